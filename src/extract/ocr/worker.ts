/**
 * An OCR worker thread: decodes or renders one page, reads it, and posts the words back. The
 * recogniser (tesseract.js) runs in a thread of its own under this one and is loaded once.
 */
import { createWorker, OEM, PSM, type Worker as TesseractWorker } from 'tesseract.js';
import { rasteriseImage, rasterisePdfPage, type Limits } from './rasterise';
import type { OcrEngine } from './languages';
import { PaddleRecogniser } from './ppocr';
import { readPageImage, tesseractReader, type PageScan, type ReadImage } from './recognise';

declare const self: Worker;

export interface WorkerSetup {
  languages: string[];
  languageFolder: string;
  limits: Limits;
  /** Which recogniser reads the pages. */
  engine: OcrEngine;
}

export interface PageJob {
  id: number;
  source: 'image' | 'pdf';
  /** Identifies the document, so a worker keeps a PDF open between its pages. */
  documentKey: string;
  bytes: Uint8Array;
  page: number;
  /** When the page's time is up (epoch ms). */
  deadline: number;
}

export interface PageReply {
  id: number;
  scan?: PageScan & { dpi: number | null; notes: string[] };
  error?: string;
}

let setup: WorkerSetup | null = null;
let tesseract: Promise<TesseractWorker> | null = null;
let reader: Promise<ReadImage> | null = null;

function recogniser(): Promise<ReadImage> {
  reader ??= setup!.engine === 'paddle' ? PaddleRecogniser.create().then((p) => (image: Parameters<ReadImage>[0]) => p.read(image)) : tesseractWorker().then(tesseractReader);
  return reader;
}

async function tesseractWorker(): Promise<TesseractWorker> {
  tesseract ??= (async () => {
    const worker = await createWorker(setup!.languages.join('+'), OEM.LSTM_ONLY, {
      langPath: setup!.languageFolder,
      gzip: true,
      cacheMethod: 'none',
      // A failed page rejects its own promise; without a handler tesseract.js also throws it again.
      errorHandler: () => {},
    });
    // Automatic page segmentation finds the scattered cells of tables and forms. Vertical text is
    // not looked for: a page on its side would otherwise read well enough not to be turned.
    await worker.setParameters({ tessedit_pageseg_mode: PSM.AUTO, textord_tabfind_vertical_text: '0' } as never);
    return worker;
  })();
  return tesseract;
}

async function readPage(job: PageJob): Promise<PageReply> {
  const limits = setup!.limits;
  const deadline = () => {
    if (Date.now() > job.deadline) throw new Error('out of time');
  };
  const raster = job.source === 'pdf' ? await rasterisePdfPage(job.bytes, job.documentKey, job.page, limits) : await rasteriseImage(job.bytes, job.page, limits);
  const scan = await readPageImage(await recogniser(), raster.image, raster.dpi, limits.maxPagePixels, deadline);
  return { id: job.id, scan: { ...scan, dpi: raster.dpi, notes: raster.notes } };
}

self.onmessage = async (event: MessageEvent<{ setup: WorkerSetup } | { job: PageJob }>) => {
  if ('setup' in event.data) {
    setup = event.data.setup;
    await recogniser().then(
      () => self.postMessage({ ready: true }),
      (error: unknown) => self.postMessage({ ready: false, error: String((error as Error)?.message ?? error) }),
    );
    return;
  }
  const { job } = event.data;
  let reply: PageReply;
  try {
    reply = await readPage(job);
  } catch (error) {
    reply = { id: job.id, error: String((error as Error)?.message ?? error) };
  }
  self.postMessage(reply);
};
