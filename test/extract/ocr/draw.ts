/** Documents drawn for the OCR tests: a small invoice with a ruled table, as PNG, TIFF or PDF. */
import { createCanvas, type SKRSContext2D } from '@napi-rs/canvas';
import { PDFDocument } from 'pdf-lib';

/**
 * One named face (Debian's fonts-dejavu-core) rather than whatever `sans-serif` resolves to: installing
 * Chromium brings Liberation Sans, which changed what the recogniser reads of the small, faint prints.
 */
const FONT = '"DejaVu Sans", sans-serif';

/** Pixels per inch the test pages are drawn at: small pages keep OCR tests quick. */
export const DRAW_DPI = 150;

export interface Drawn {
  png: Uint8Array;
  width: number;
  height: number;
  /** Where each word was drawn, in points (1/72 inch), to compare with the boxes read back. */
  boxes: Map<string, { x0: number; y0: number }>;
}

export const INVOICE_ROWS = [
  ['Hammer', '2', '14.50'],
  ['Screwdriver', '5', '3.20'],
  ['Ladder', '1', '89.00'],
];

/** An invoice: a number and date line, then a ruled table of items, drawn on white. */
export function drawInvoice(quarters = 0): Drawn {
  const width = 900;
  const height = 700;
  const page = createCanvas(width, height);
  const g = page.getContext('2d');
  g.fillStyle = '#ffffff';
  g.fillRect(0, 0, width, height);
  g.fillStyle = '#000000';
  const boxes = new Map<string, { x0: number; y0: number }>();
  const text = (context: SKRSContext2D, value: string, x: number, y: number, size: number) => {
    context.font = `${size}px ${FONT}`;
    context.fillText(value, x, y);
    const metrics = context.measureText(value);
    boxes.set(value, { x0: (x * 72) / DRAW_DPI, y0: ((y - metrics.actualBoundingBoxAscent) * 72) / DRAW_DPI });
  };
  text(g, 'INVOICE', 60, 80, 44);
  text(g, 'Number: A-1042', 60, 150, 26);
  text(g, 'Date: 2024-03-15', 520, 150, 26);
  const columns = [60, 400, 560, 900 - 60];
  const top = 220;
  const rowHeight = 60;
  g.lineWidth = 2;
  for (let r = 0; r <= INVOICE_ROWS.length + 1; r++) {
    g.beginPath();
    g.moveTo(columns[0]!, top + r * rowHeight);
    g.lineTo(columns[3]!, top + r * rowHeight);
    g.stroke();
  }
  for (const x of columns) {
    g.beginPath();
    g.moveTo(x, top);
    g.lineTo(x, top + (INVOICE_ROWS.length + 1) * rowHeight);
    g.stroke();
  }
  ['Item', 'Qty', 'Price'].forEach((h, c) => text(g, h, columns[c]! + 14, top + 40, 26));
  INVOICE_ROWS.forEach((row, r) => row.forEach((cell, c) => text(g, cell, columns[c]! + 14, top + (r + 1) * rowHeight + 40, 26)));
  text(g, 'Total: 131.00', 560, top + (INVOICE_ROWS.length + 1) * rowHeight + 60, 26);

  const q = ((quarters % 4) + 4) % 4;
  const turned = createCanvas(q % 2 ? height : width, q % 2 ? width : height);
  const t = turned.getContext('2d');
  t.translate(turned.width / 2, turned.height / 2);
  t.rotate((q * Math.PI) / 2);
  t.drawImage(page, -width / 2, -height / 2);
  return { png: new Uint8Array(turned.toBuffer('image/png')), width: turned.width, height: turned.height, boxes };
}

/** Grey pixels of a drawn PNG's canvas, for the TIFF writer. */
export function greyPixels(width: number, height: number, draw: (g: SKRSContext2D) => void): Uint8Array {
  const canvas = createCanvas(width, height);
  const g = canvas.getContext('2d');
  g.fillStyle = '#ffffff';
  g.fillRect(0, 0, width, height);
  g.fillStyle = '#000000';
  draw(g);
  const rgba = g.getImageData(0, 0, width, height).data;
  const grey = new Uint8Array(width * height);
  for (let i = 0; i < grey.length; i++) grey[i] = rgba[i * 4]!;
  return grey;
}

/** An uncompressed 8-bit grey TIFF with one page per image, written by hand (little-endian). */
export function tiff(pages: Array<{ width: number; height: number; grey: Uint8Array }>): Uint8Array {
  const entries = 9;
  const ifdSize = 2 + entries * 12 + 4;
  let size = 8;
  const layout = pages.map((p) => {
    const ifd = size;
    const resolution = ifd + ifdSize;
    const pixels = resolution + 8;
    size = pixels + p.grey.length;
    return { ifd, resolution, pixels };
  });
  const out = new Uint8Array(size);
  const view = new DataView(out.buffer);
  out.set([0x49, 0x49, 42, 0]);
  view.setUint32(4, layout[0]!.ifd, true);
  pages.forEach((p, i) => {
    const { ifd, resolution, pixels } = layout[i]!;
    const tags: Array<[number, number, number]> = [
      [256, 4, p.width],
      [257, 4, p.height],
      [258, 3, 8],
      [259, 3, 1],
      [262, 3, 1],
      [273, 4, pixels],
      [279, 4, p.grey.length],
      [282, 5, resolution],
      [296, 3, 2],
    ];
    view.setUint16(ifd, entries, true);
    tags.forEach(([tag, type, value], n) => {
      const at = ifd + 2 + n * 12;
      view.setUint16(at, tag, true);
      view.setUint16(at + 2, type, true);
      view.setUint32(at + 4, 1, true);
      if (type === 3) view.setUint16(at + 8, value, true);
      else view.setUint32(at + 8, value, true);
    });
    view.setUint32(ifd + 2 + entries * 12, layout[i + 1]?.ifd ?? 0, true);
    view.setUint32(resolution, DRAW_DPI, true);
    view.setUint32(resolution + 4, 1, true);
    out.set(p.grey, pixels);
  });
  return out;
}

/** A PDF whose only page is the image, sized so the image is at DRAW_DPI: a scan with no text. */
export async function scannedPdf(drawn: Drawn): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  const image = await pdf.embedPng(drawn.png);
  const width = (drawn.width * 72) / DRAW_DPI;
  const height = (drawn.height * 72) / DRAW_DPI;
  const page = pdf.addPage([width, height]);
  page.drawImage(image, { x: 0, y: 0, width, height });
  return pdf.save();
}

/** A PNG with the given pixel size and resolution in its header (pHYs), for header-only checks. */
export function pngHeader(width: number, height: number): Uint8Array {
  const out = new Uint8Array(8 + 25 + 12);
  out.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  const view = new DataView(out.buffer);
  view.setUint32(8, 13);
  out.set([0x49, 0x48, 0x44, 0x52], 12);
  view.setUint32(16, width);
  view.setUint32(20, height);
  out.set([8, 0, 0, 0, 0], 24);
  view.setUint32(33, 0);
  out.set([0x49, 0x45, 0x4e, 0x44], 37);
  return out;
}

export const RECEIPT_LINES = ['NORTHWIND STORES', '18 Harbour Road', 'Invoice 20431', 'Date 14/03/2019', 'Milk 2.40', 'Bread 3.10', 'Total 5.50'];

/**
 * A receipt photographed: a narrow sheet of text lines, turned `degrees` clockwise, lying on a
 * darker table. `ink` is the grey of the print (faded thermal paper is light), `size` its height
 * in pixels; `penMark` adds a tick in dark ink.
 */
export function drawReceiptPhoto(options: { degrees: number; ink?: string; size?: number; table?: string; penMark?: boolean }): Uint8Array {
  const size = options.size ?? 26;
  const sheetWidth = size * 16;
  const sheetHeight = Math.round(size * 2 * (RECEIPT_LINES.length + 2));
  const sheet = createCanvas(sheetWidth, sheetHeight);
  const s = sheet.getContext('2d');
  s.fillStyle = '#f4f1ea';
  s.fillRect(0, 0, sheetWidth, sheetHeight);
  s.fillStyle = options.ink ?? '#202020';
  s.font = `${size}px ${FONT}`;
  RECEIPT_LINES.forEach((line, i) => s.fillText(line, size, size * 2 * (i + 1.5)));
  if (options.penMark) {
    // A tick in dark ink beside the print.
    s.strokeStyle = '#101010';
    s.lineWidth = Math.max(3, size / 4);
    s.beginPath();
    s.moveTo(sheetWidth - size * 3, size * 4);
    s.lineTo(sheetWidth - size * 2.2, size * 5);
    s.lineTo(sheetWidth - size, size * 2.5);
    s.stroke();
  }
  const width = Math.round(sheetWidth * 1.8);
  const height = Math.round(sheetHeight * 1.4);
  const photo = createCanvas(width, height);
  const g = photo.getContext('2d');
  g.fillStyle = options.table ?? '#4a4038';
  g.fillRect(0, 0, width, height);
  g.translate(width / 2, height / 2);
  g.rotate((options.degrees * Math.PI) / 180);
  g.drawImage(sheet, -sheetWidth / 2, -sheetHeight / 2);
  return new Uint8Array(photo.toBuffer('image/png'));
}

/**
 * A till receipt printed at a fixed pitch (narrow monospace glyphs, as thermal printers set them),
 * one text line per entry, spaces kept: a space between words is as wide as a glyph, wider than
 * proportional type sets it. Blank entries leave a line free.
 */
export function drawFixedPitchReceipt(lines: string[], size = 22): Uint8Array {
  const width = size * 26;
  const height = Math.round(size * 1.4 * (lines.length + 2));
  const canvas = createCanvas(width, height);
  const g = canvas.getContext('2d');
  g.fillStyle = '#ffffff';
  g.fillRect(0, 0, width, height);
  g.fillStyle = '#111111';
  g.font = `${size}px "DejaVu Sans Mono", monospace`;
  // Thermal fonts are narrower than a screen's monospace: the glyphs squeezed to seven tenths.
  g.scale(0.7, 1);
  lines.forEach((line, i) => g.fillText(line, size, size * 1.4 * (i + 1.5)));
  return new Uint8Array(canvas.toBuffer('image/png'));
}
