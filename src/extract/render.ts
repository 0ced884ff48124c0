/**
 * A page of a PDF or image as a colour PNG, for the review view that draws the page model's word
 * boxes over it: the whole page, turned as the page model is, so a box placed as a fraction of the
 * page's width and height lands on its word.
 */
import { createCanvas, ImageData, loadImage, type Canvas, type Image } from '@napi-rs/canvas';
import UTIF from 'utif';
import { createIsomorphicCanvasFactory, getDocumentProxy } from 'unpdf';
import { UnreadableDocument } from './document';
import { textDirection } from './layout/pdf-page';
import { DEFAULT_LIMITS } from './ocr';
import { imageInfo, tiffPages } from './ocr/image-info';
import { checkSourceSize } from './ocr/rasterise';

export type RenderFormat = 'pdf' | 'image';

export interface RenderedPage {
  png: Uint8Array;
  /** Pixel size of `png`. */
  width: number;
  height: number;
  pageCount: number;
}

/** Pixels per point a PDF page is rendered at at most: finer shows nothing more in a review. */
const MAX_PDF_SCALE = 3;

type PdfDocument = Awaited<ReturnType<typeof getDocumentProxy>>;
type PdfPage = Awaited<ReturnType<PdfDocument['getPage']>>;

function checkPage(page: number, pageCount: number): void {
  if (!Number.isInteger(page) || page < 1 || page > pageCount) {
    throw new RangeError(`page ${page}: the document has ${pageCount} ${pageCount === 1 ? 'page' : 'pages'}`);
  }
}

async function encode(canvas: Canvas, pageCount: number): Promise<RenderedPage> {
  const png = await canvas.encode('png');
  return { png: new Uint8Array(png.buffer, png.byteOffset, png.byteLength), width: canvas.width, height: canvas.height, pageCount };
}

async function openPdf(bytes: Uint8Array): Promise<PdfDocument> {
  const CanvasFactory = await createIsomorphicCanvasFactory(() => import('@napi-rs/canvas'));
  try {
    return await getDocumentProxy(new Uint8Array(bytes), { CanvasFactory, verbosity: 0 } as Parameters<typeof getDocumentProxy>[1]);
  } catch (error) {
    if ((error as Error).name === 'PasswordException') throw new UnreadableDocument('the PDF is encrypted with a password; upload it without the password');
    throw new UnreadableDocument(`not a readable PDF: ${(error as Error).message}`);
  }
}

async function renderPdfPage(bytes: Uint8Array, number: number, maxSide: number): Promise<RenderedPage> {
  const pdf = await openPdf(bytes);
  try {
    checkPage(number, pdf.numPages);
    let page: PdfPage;
    try {
      page = await pdf.getPage(number);
    } catch (error) {
      throw new UnreadableDocument(`page ${number} of the PDF cannot be read: ${(error as Error).message}`);
    }
    try {
      const natural = page.getViewport({ scale: 1 });
      const direction = await textDirection(page);
      const longSide = Math.max(natural.width, natural.height);
      const scale = Math.min(maxSide, MAX_PDF_SCALE * longSide) / longSide;
      // Viewport rotation is clockwise: turning back by the text's direction makes it read left to right.
      const viewport = page.getViewport({ scale, rotation: (((page.rotate - direction) % 360) + 360) % 360 });
      const width = Math.max(1, Math.round(viewport.width));
      const height = Math.max(1, Math.round(viewport.height));
      checkSourceSize(width, height, DEFAULT_LIMITS);
      const canvas = createCanvas(width, height);
      const context = canvas.getContext('2d');
      await page.render({ canvas: canvas as never, canvasContext: context as never, viewport }).promise;
      return await encode(canvas, pdf.numPages);
    } finally {
      page.cleanup();
    }
  } finally {
    await pdf.loadingTask.destroy();
  }
}

/** `source` drawn on white (transparent parts show as paper), shrunk so its long side fits `maxSide`. */
function fitted(source: Image | Canvas, maxSide: number): Canvas {
  const factor = Math.max(1, Math.max(source.width, source.height) / maxSide);
  const width = Math.max(1, Math.round(source.width / factor));
  const height = Math.max(1, Math.round(source.height / factor));
  const canvas = createCanvas(width, height);
  const context = canvas.getContext('2d');
  context.imageSmoothingQuality = 'high';
  context.fillStyle = '#ffffff';
  context.fillRect(0, 0, width, height);
  context.drawImage(source, 0, 0, width, height);
  return canvas;
}

function tiffPage(bytes: Uint8Array, number: number, maxSide: number): { canvas: Canvas; pageCount: number } {
  const pages = tiffPages(bytes);
  checkPage(number, pages.length);
  const ifd = pages[number - 1]!;
  const width = (ifd.t256 as number[])[0]!;
  const height = (ifd.t257 as number[])[0]!;
  checkSourceSize(width, height, DEFAULT_LIMITS);
  let rgba: Uint8Array;
  try {
    UTIF.decodeImage(bytes, ifd);
    rgba = UTIF.toRGBA8(ifd);
  } catch (error) {
    throw new UnreadableDocument(`page ${number} of the TIFF cannot be read: ${(error as Error).message}`);
  }
  if (rgba.length !== width * height * 4) throw new UnreadableDocument(`page ${number} of the TIFF cannot be read: its pixel data is incomplete`);
  const full = createCanvas(width, height);
  full.getContext('2d').putImageData(new ImageData(new Uint8ClampedArray(rgba.buffer, rgba.byteOffset, rgba.byteLength), width, height), 0, 0);
  return { canvas: fitted(full, maxSide), pageCount: pages.length };
}

async function renderImage(bytes: Uint8Array, number: number, maxSide: number): Promise<RenderedPage> {
  let info;
  try {
    info = imageInfo(bytes);
  } catch (error) {
    throw new UnreadableDocument((error as Error).message);
  }
  if (info.kind === 'tiff') {
    const { canvas, pageCount } = tiffPage(bytes, number, maxSide);
    return encode(canvas, pageCount);
  }
  checkPage(number, 1);
  checkSourceSize(info.width, info.height, DEFAULT_LIMITS);
  let image: Image;
  try {
    image = await loadImage(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  } catch (error) {
    throw new UnreadableDocument(`the ${info.kind.toUpperCase()} image cannot be decoded: ${(error as Error).message}`);
  }
  return encode(fitted(image, maxSide), 1);
}

/**
 * Page `page` (1-based) of a PDF or image as PNG bytes, with the page count of the document. PDF
 * pages are rendered in colour at up to MAX_PDF_SCALE pixels per point, turned like the page model;
 * images are shown as they are, only shrunk. Sources above the OCR's pixel limit are refused with
 * its ImageTooLarge; a page outside the document is a RangeError.
 */
export async function renderPage(bytes: Uint8Array, format: RenderFormat, page: number, maxSide = 1600): Promise<RenderedPage> {
  if (!(maxSide >= 1) || !Number.isFinite(maxSide)) throw new RangeError(`maxSide ${maxSide}: it must be a number of pixels, at least 1`);
  const side = Math.floor(maxSide);
  return format === 'pdf' ? renderPdfPage(bytes, page, side) : renderImage(bytes, page, side);
}
