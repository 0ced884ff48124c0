/**
 * Image kind, size and resolution read from the file's header alone, so an image too large to
 * decode is refused before any pixel is allocated.
 */
import UTIF from 'utif';

export type ImageKind = 'png' | 'jpeg' | 'tiff' | 'webp' | 'bmp' | 'gif';

export interface ImageInfo {
  kind: ImageKind;
  /** Size of the first page, in pixels. */
  width: number;
  height: number;
  /** Pixels per inch when the file says so (and says something plausible). */
  dpi: number | null;
  /** Pages (TIFF frames); every other kind reads as one page. */
  pages: number;
}

const ascii = (bytes: Uint8Array, at: number, length: number) => String.fromCharCode(...bytes.subarray(at, at + length));

/** The image kind from magic bytes; null when the bytes are not an image rowsmith reads. */
export function imageKind(bytes: Uint8Array): ImageKind | null {
  if (bytes.length < 12) return null;
  if (bytes[0] === 0x89 && ascii(bytes, 1, 3) === 'PNG') return 'png';
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'jpeg';
  if (ascii(bytes, 0, 4) === 'II*\0' || ascii(bytes, 0, 4) === 'MM\0*') return 'tiff';
  if (ascii(bytes, 0, 4) === 'RIFF' && ascii(bytes, 8, 4) === 'WEBP') return 'webp';
  // "BM" also starts text; a bitmap has zero reserved bytes and a known info header size.
  if (ascii(bytes, 0, 2) === 'BM' && bytes.length > 18 && bytes.subarray(6, 10).every((b) => b === 0) && [12, 40, 52, 56, 108, 124].includes(bytes[14]! | (bytes[15]! << 8))) return 'bmp';
  if (ascii(bytes, 0, 6) === 'GIF87a' || ascii(bytes, 0, 6) === 'GIF89a') return 'gif';
  return null;
}

/** A resolution worth trusting: screenshots say 72 or 96 and phones say nothing or 72. */
const plausibleDpi = (dpi: number) => (dpi >= 100 && dpi <= 1200 ? Math.round(dpi) : null);

function pngInfo(view: DataView, bytes: Uint8Array): Omit<ImageInfo, 'kind' | 'pages'> {
  const width = view.getUint32(16);
  const height = view.getUint32(20);
  let dpi: number | null = null;
  // Chunks follow IHDR; pHYs (unit 1 = metre) precedes the image data when present.
  for (let at = 8; at + 12 <= bytes.length; ) {
    const length = view.getUint32(at);
    const type = ascii(bytes, at + 4, 4);
    if (type === 'pHYs' && bytes[at + 16] === 1) dpi = plausibleDpi(view.getUint32(at + 8) * 0.0254);
    if (type === 'IDAT' || type === 'IEND') break;
    at += 12 + length;
  }
  return { width, height, dpi };
}

function jpegInfo(view: DataView, bytes: Uint8Array): Omit<ImageInfo, 'kind' | 'pages'> {
  let dpi: number | null = null;
  for (let at = 2; at + 9 < bytes.length; ) {
    if (bytes[at] !== 0xff) {
      at++;
      continue;
    }
    const marker = bytes[at + 1]!;
    if (marker === 0xff || marker === 0xd8 || (marker >= 0xd0 && marker <= 0xd7)) {
      at += marker === 0xff ? 1 : 2;
      continue;
    }
    const length = view.getUint16(at + 2);
    if (marker === 0xe0 && ascii(bytes, at + 4, 4) === 'JFIF') {
      const unit = bytes[at + 11];
      const density = view.getUint16(at + 12);
      if (unit === 1) dpi = plausibleDpi(density);
      if (unit === 2) dpi = plausibleDpi(density * 2.54);
    }
    // SOF0..SOF15 carry the frame size; C4, C8 and CC are other tables.
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return { height: view.getUint16(at + 5), width: view.getUint16(at + 7), dpi };
    }
    at += 2 + length;
  }
  throw new Error('no frame header in the JPEG');
}

function webpInfo(view: DataView, bytes: Uint8Array): Omit<ImageInfo, 'kind' | 'pages'> {
  const chunk = ascii(bytes, 12, 4);
  if (chunk === 'VP8X') {
    const w = bytes[24]! | (bytes[25]! << 8) | (bytes[26]! << 16);
    const h = bytes[27]! | (bytes[28]! << 8) | (bytes[29]! << 16);
    return { width: w + 1, height: h + 1, dpi: null };
  }
  if (chunk === 'VP8L') {
    const bits = view.getUint32(21, true);
    return { width: (bits & 0x3fff) + 1, height: ((bits >> 14) & 0x3fff) + 1, dpi: null };
  }
  return { width: view.getUint16(26, true) & 0x3fff, height: view.getUint16(28, true) & 0x3fff, dpi: null };
}

/** TIFF pages: full-resolution frames, without the reduced-size previews some scanners add. */
export function tiffPages(bytes: Uint8Array): Array<Record<string, unknown>> {
  const ifds = UTIF.decode(bytes) as Array<Record<string, unknown>>;
  return ifds.filter((ifd) => {
    const subfileType = (ifd.t254 as number[] | undefined)?.[0] ?? 0;
    return (subfileType & 1) === 0 && ifd.t256 && ifd.t257;
  });
}

export function tiffDpi(ifd: Record<string, unknown>): number | null {
  const x = (ifd.t282 as number[] | undefined)?.[0];
  const unit = (ifd.t296 as number[] | undefined)?.[0] ?? 2;
  if (!x) return null;
  return plausibleDpi(unit === 3 ? x * 2.54 : x);
}

/** Kind, size and resolution of an image; throws when the header is damaged. */
export function imageInfo(bytes: Uint8Array): ImageInfo {
  const kind = imageKind(bytes);
  if (!kind) throw new Error('not an image rowsmith reads (PNG, JPEG, TIFF, WebP, BMP or GIF)');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  switch (kind) {
    case 'png':
      return { kind, pages: 1, ...pngInfo(view, bytes) };
    case 'jpeg':
      return { kind, pages: 1, ...jpegInfo(view, bytes) };
    case 'webp':
      return { kind, pages: 1, ...webpInfo(view, bytes) };
    case 'gif':
      return { kind, pages: 1, width: view.getUint16(6, true), height: view.getUint16(8, true), dpi: null };
    case 'bmp': {
      const ppm = view.getInt32(38, true);
      return { kind, pages: 1, width: Math.abs(view.getInt32(18, true)), height: Math.abs(view.getInt32(22, true)), dpi: plausibleDpi(ppm * 0.0254) };
    }
    case 'tiff': {
      const pages = tiffPages(bytes);
      if (pages.length === 0) throw new Error('the TIFF has no image');
      const first = pages[0]!;
      return { kind, pages: pages.length, width: (first.t256 as number[])[0]!, height: (first.t257 as number[])[0]!, dpi: tiffDpi(first) };
    }
  }
}
