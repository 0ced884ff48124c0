/** Small PDFs drawn for the layout tests: text, rules and boxes placed in top-left coordinates. */
import { degrees, PDFDocument, rgb, StandardFonts, type PDFFont, type PDFPage } from 'pdf-lib';

export interface Drawing {
  /** Text at (x, top of the line), size in points. */
  text(content: string, x: number, y: number, options?: { size?: number; bold?: boolean; rotate?: 90 | 270; white?: boolean; mono?: boolean }): void;
  /** A horizontal or vertical rule between two points. */
  line(x0: number, y0: number, x1: number, y1: number): void;
  /** The outline of a box. */
  box(x0: number, y0: number, x1: number, y1: number): void;
  /** A grid of rules over the given column and row positions. */
  grid(xs: number[], ys: number[]): void;
  /** A filled box without outline, grey by default (0 black, 1 white); `outline` strokes it in its own colour. */
  fill(x0: number, y0: number, x1: number, y1: number, options?: { grey?: number; outline?: boolean }): void;
  page: PDFPage;
}

export async function makePdf(pages: Array<(d: Drawing) => void>, options: { width?: number; height?: number } = {}): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const regular = await doc.embedFont(StandardFonts.Helvetica);
  const bold = await doc.embedFont(StandardFonts.HelveticaBold);
  const mono = await doc.embedFont(StandardFonts.Courier);
  for (const draw of pages) {
    const height = options.height ?? 792;
    const page = doc.addPage([options.width ?? 612, height]);
    const line = (x0: number, y0: number, x1: number, y1: number) =>
      page.drawLine({ start: { x: x0, y: height - y0 }, end: { x: x1, y: height - y1 }, thickness: 0.8 });
    const drawing: Drawing = {
      page,
      text(content, x, y, { size = 10, bold: isBold = false, rotate, white = false, mono: isMono = false } = {}) {
        const font: PDFFont = isMono ? mono : isBold ? bold : regular;
        const color = white ? rgb(1, 1, 1) : rgb(0, 0, 0);
        // pdf-lib places the baseline; tops of lines are easier to lay out.
        if (rotate === 90) page.drawText(content, { x: x + size * 0.8, y: height - y, size, font, color, rotate: degrees(90) });
        else if (rotate === 270) page.drawText(content, { x, y: height - y, size, font, color, rotate: degrees(270) });
        else page.drawText(content, { x, y: height - y - size * 0.8, size, font, color });
      },
      fill(x0, y0, x1, y1, { grey = 0.85, outline = false } = {}) {
        const color = rgb(grey, grey, grey);
        page.drawRectangle({ x: x0, y: height - y1, width: x1 - x0, height: y1 - y0, color, ...(outline ? { borderColor: color, borderWidth: 0.8 } : {}) });
      },
      line,
      box(x0, y0, x1, y1) {
        line(x0, y0, x1, y0);
        line(x0, y1, x1, y1);
        line(x0, y0, x0, y1);
        line(x1, y0, x1, y1);
      },
      grid(xs, ys) {
        for (const y of ys) line(xs[0]!, y, xs[xs.length - 1]!, y);
        for (const x of xs) line(x, ys[0]!, x, ys[ys.length - 1]!);
      },
    };
    draw(drawing);
  }
  return doc.save();
}

export const pdfDocument = (bytes: Uint8Array) => ({ name: 'test.pdf', contentType: 'application/pdf', bytes });
