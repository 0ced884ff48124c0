/** What an API key may do, defined once for the store, the HTTP schemas, the CLI and the console. */

export const KEY_ROLES = ['admin', 'write', 'read'] as const;
export type KeyRole = (typeof KEY_ROLES)[number];
