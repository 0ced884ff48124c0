/**
 * Pages as grey images: image files decoded (TIFF by UTIF, the rest by Skia through
 * @napi-rs/canvas), PDF pages rendered by PDF.js onto the same canvas at the OCR resolution.
 */
import { createCanvas, loadImage } from '@napi-rs/canvas';
import UTIF from 'utif';
import { createIsomorphicCanvasFactory, getDocumentProxy, getResolvedPDFJS } from 'unpdf';
import { imageInfo, tiffDpi, tiffPages } from './image-info';
import { greyFromRgba, shrink, type GreyImage } from './raster';

/** The resolution scanned pages are rendered at: what the recogniser is trained for. */
export const RENDER_DPI = 300;

export interface Limits {
  /** Larger sources are refused before decoding. */
  maxSourcePixels: number;
  /** Larger pages are shrunk to this many pixels before recognition. */
  maxPagePixels: number;
}

export interface Raster {
  image: GreyImage;
  /** Pixels per inch of `image`; null when the source did not say. */
  dpi: number | null;
  notes: string[];
}

const megapixels = (w: number, h: number) => `${Math.round((w * h) / 1e6)} megapixels`;

export class ImageTooLarge extends Error {}

export function checkSourceSize(width: number, height: number, limits: Limits): void {
  if (width * height > limits.maxSourcePixels) {
    throw new ImageTooLarge(
      `the image is ${width} x ${height} pixels (${megapixels(width, height)}), more than the ${megapixels(limits.maxSourcePixels, 1)} rowsmith reads: scan at 300 dpi or send a smaller image`,
    );
  }
}

/** The factor to shrink a page by so it fits `maxPagePixels`; 1 when it fits. */
const shrinkFactor = (width: number, height: number, limits: Limits) => Math.max(1, Math.sqrt((width * height) / limits.maxPagePixels));

function downscaleNote(width: number, height: number, factor: number): string {
  return `the page image (${width} x ${height} pixels) was reduced to ${Math.round(width / factor)} x ${Math.round(height / factor)} for reading`;
}

async function decodeWithCanvas(bytes: Uint8Array, limits: Limits): Promise<Raster> {
  const info = imageInfo(bytes);
  checkSourceSize(info.width, info.height, limits);
  const image = await loadImage(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  const factor = shrinkFactor(image.width, image.height, limits);
  const width = Math.max(1, Math.round(image.width / factor));
  const height = Math.max(1, Math.round(image.height / factor));
  const canvas = createCanvas(width, height);
  const context = canvas.getContext('2d');
  context.fillStyle = '#ffffff';
  context.fillRect(0, 0, width, height);
  context.drawImage(image, 0, 0, width, height);
  const grey = greyFromRgba(context.getImageData(0, 0, width, height).data, width, height);
  return { image: grey, dpi: info.dpi ? info.dpi / factor : null, notes: factor > 1 ? [downscaleNote(image.width, image.height, factor)] : [] };
}

function decodeTiffPage(bytes: Uint8Array, page: number, limits: Limits): Raster {
  const ifd = tiffPages(bytes)[page - 1];
  if (!ifd) throw new Error(`the TIFF has no page ${page}`);
  const width = (ifd.t256 as number[])[0]!;
  const height = (ifd.t257 as number[])[0]!;
  checkSourceSize(width, height, limits);
  UTIF.decodeImage(bytes, ifd);
  let grey = greyFromRgba(UTIF.toRGBA8(ifd), width, height);
  const factor = shrinkFactor(width, height, limits);
  if (factor > 1) grey = shrink(grey, factor);
  const dpi = tiffDpi(ifd);
  return { image: grey, dpi: dpi ? dpi / factor : null, notes: factor > 1 ? [downscaleNote(width, height, factor)] : [] };
}

export async function rasteriseImage(bytes: Uint8Array, page: number, limits: Limits): Promise<Raster> {
  return imageInfo(bytes).kind === 'tiff' ? decodeTiffPage(bytes, page, limits) : decodeWithCanvas(bytes, limits);
}

type PdfDocument = Awaited<ReturnType<typeof getDocumentProxy>>;

/** The last PDF opened, so its pages are not parsed again for every page a worker reads. */
let openPdf: { key: string; pdf: PdfDocument } | null = null;

type PdfPage = Awaited<ReturnType<PdfDocument['getPage']>>;

interface PdfImage {
  width: number;
  height: number;
  /** 1: one bit per pixel (set is white), rows padded to bytes; 2: RGB; 3: RGBA. */
  kind: number;
  data: Uint8Array | Uint8ClampedArray;
}

function greyFromPdfImage(image: PdfImage): GreyImage {
  const { width, height, data, kind } = image;
  if (kind === 3) return greyFromRgba(data, width, height);
  const grey = new Uint8Array(width * height);
  if (kind === 2) {
    for (let i = 0, p = 0; i < grey.length; i++, p += 3) grey[i] = (data[p]! * 299 + data[p + 1]! * 587 + data[p + 2]! * 114) / 1000;
    return { width, height, data: grey };
  }
  const rowBytes = Math.ceil(width / 8);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) grey[y * width + x] = data[y * rowBytes + (x >> 3)]! & (0x80 >> (x & 7)) ? 255 : 0;
  }
  return { width, height, data: grey };
}

/**
 * The scanned image itself when a page does nothing but paint one image the page's shape (what
 * scanners write): read at its own resolution, it is faster than rendering and loses nothing.
 */
async function paintedScan(pdfPage: PdfPage): Promise<{ image: GreyImage; dpi: number } | null> {
  const { OPS } = await getResolvedPDFJS();
  const operators = await pdfPage.getOperatorList();
  const allowed = new Set<number>([OPS.dependency, OPS.save, OPS.restore, OPS.transform, OPS.setGState, OPS.paintImageXObject]);
  if (!operators.fnArray.every((op) => allowed.has(op))) return null;
  const paints = operators.fnArray.flatMap((op, i) => (op === OPS.paintImageXObject ? [operators.argsArray[i] as [string]] : []));
  if (paints.length !== 1) return null;
  const key = paints[0]![0];
  const image = await new Promise<PdfImage | null>((resolve) => (key.startsWith('g_') ? pdfPage.commonObjs : pdfPage.objs).get(key, resolve as never));
  if (!image?.data || ![1, 2, 3].includes(image.kind)) return null;
  const [x0, y0, x1, y1] = pdfPage.view as [number, number, number, number];
  const pageWidth = x1 - x0;
  const pageHeight = y1 - y0;
  if (Math.abs(image.width / image.height - pageWidth / pageHeight) > 0.03 * (pageWidth / pageHeight)) return null;
  return { image: greyFromPdfImage(image), dpi: (image.width / pageWidth) * 72 };
}

export async function rasterisePdfPage(bytes: Uint8Array, key: string, page: number, limits: Limits): Promise<Raster> {
  if (openPdf?.key !== key) {
    await openPdf?.pdf.loadingTask.destroy();
    openPdf = null;
    const CanvasFactory = await createIsomorphicCanvasFactory(() => import('@napi-rs/canvas'));
    openPdf = { key, pdf: await getDocumentProxy(new Uint8Array(bytes), { CanvasFactory } as Parameters<typeof getDocumentProxy>[1]) };
  }
  const pdfPage = await openPdf.pdf.getPage(page);
  const painted = await paintedScan(pdfPage);
  if (painted) {
    // Finer than the recogniser needs is only slower; past the page limit it must shrink anyway.
    const factor = Math.max(painted.dpi / (RENDER_DPI * 1.34), Math.sqrt((painted.image.width * painted.image.height) / limits.maxPagePixels), 1);
    pdfPage.cleanup();
    const image = factor > 1 ? shrink(painted.image, factor) : painted.image;
    return { image, dpi: painted.dpi / factor, notes: [] };
  }
  const natural = pdfPage.getViewport({ scale: 1 });
  let scale = RENDER_DPI / 72;
  const notes: string[] = [];
  const pixels = natural.width * natural.height * scale * scale;
  if (pixels > limits.maxPagePixels) {
    const reduced = scale / Math.sqrt(pixels / limits.maxPagePixels);
    notes.push(`page ${page} is ${Math.round(natural.width / 72)} x ${Math.round(natural.height / 72)} inches: rendered at ${Math.round(reduced * 72)} dpi instead of ${RENDER_DPI}`);
    scale = reduced;
  }
  const viewport = pdfPage.getViewport({ scale });
  const width = Math.ceil(viewport.width);
  const height = Math.ceil(viewport.height);
  const canvas = createCanvas(width, height);
  const context = canvas.getContext('2d');
  context.fillStyle = '#ffffff';
  context.fillRect(0, 0, width, height);
  await pdfPage.render({ canvas: canvas as never, canvasContext: context as never, viewport }).promise;
  pdfPage.cleanup();
  return { image: greyFromRgba(context.getImageData(0, 0, width, height).data, width, height), dpi: scale * 72, notes };
}
