/** The part of UTIF.js (which ships no types) that rowsmith uses. */
declare module 'utif' {
  /** An image file directory: TIFF tags as `t<number>` arrays, plus what decodeImage adds. */
  type Ifd = Record<string, unknown>;
  const UTIF: {
    decode(bytes: ArrayBuffer | Uint8Array): Ifd[];
    decodeImage(bytes: ArrayBuffer | Uint8Array, ifd: Ifd, ifds?: Ifd[]): void;
    toRGBA8(ifd: Ifd): Uint8Array;
    encodeImage(rgba: ArrayBuffer | Uint8Array, width: number, height: number, metadata?: Record<string, unknown>): ArrayBuffer;
    encode(ifds: Ifd[]): ArrayBuffer;
  };
  export default UTIF;
}
