/** rowsmith's version: in the API description, the outbound User-Agent and backup manifests. */
export const VERSION = '1.0.0';
