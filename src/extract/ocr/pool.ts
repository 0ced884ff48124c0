/**
 * The OCR worker pool: pages are read in worker threads so the server keeps answering. Each
 * document's pages form a queue, and free workers take pages from the queues in turn, so one long
 * scan does not hold back a short one sent after it. A page over its time limit has its worker
 * ended (the recogniser cannot be interrupted otherwise) and a new worker started.
 */
import { languageFolder, type OcrEngine } from './languages';
import type { Limits } from './rasterise';
import type { PageScan } from './recognise';
import type { PageJob, PageReply, WorkerSetup } from './worker';

export interface OcrOptions {
  languages: string[];
  workers: number;
  pageTimeoutMs: number;
  limits: Limits;
  engine: OcrEngine;
}

export type ScannedPage = PageScan & { dpi: number | null; notes: string[] };

/** A page's outcome: its scan, or why it could not be read. */
export type PageOutcome = { page: number; scan: ScannedPage } | { page: number; error: string };

interface Batch {
  source: 'image' | 'pdf';
  key: string;
  bytes: Uint8Array;
  waiting: number[];
  outcomes: PageOutcome[];
  total: number;
  onPage?: (done: number, total: number) => void;
  finish: (outcomes: PageOutcome[]) => void;
}

interface Slot {
  worker: Worker | null;
  ready: Promise<void> | null;
  busy: boolean;
}

/** A worker left idle this long is ended, giving back the recogniser's memory. */
const IDLE_MS = 60_000;

let nextJob = 1;
let nextBatch = 1;

export class OcrPool {
  private readonly slots: Slot[];
  private readonly batches: Batch[] = [];
  /** Where the round-robin over batches continues. */
  private turn = 0;
  private folder: string | null = null;
  private idleTimer: ReturnType<typeof setTimeout> | null = null;

  constructor(private readonly options: OcrOptions) {
    this.slots = Array.from({ length: Math.max(1, options.workers) }, () => ({ worker: null, ready: null, busy: false }));
  }

  /** Reads pages 1..pages of a document; resolves with one outcome per page, in page order. */
  read(source: 'image' | 'pdf', bytes: Uint8Array, pages: number, onPage?: (done: number, total: number) => void): Promise<PageOutcome[]> {
    if (pages <= 0) return Promise.resolve([]);
    return new Promise((resolve) => {
      this.batches.push({
        source,
        key: `doc-${nextBatch++}`,
        bytes,
        waiting: Array.from({ length: pages }, (_, i) => i + 1),
        outcomes: [],
        total: pages,
        onPage,
        finish: (outcomes) => resolve(outcomes.sort((a, b) => a.page - b.page)),
      });
      this.dispatch();
    });
  }

  /** Ends every worker; pages still queued are reported as not read. */
  async close(): Promise<void> {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    for (const batch of this.batches.splice(0)) {
      for (const page of batch.waiting) batch.outcomes.push({ page, error: 'the server is shutting down' });
      batch.finish(batch.outcomes);
    }
    for (const slot of this.slots) this.end(slot);
  }

  private end(slot: Slot): void {
    slot.worker?.terminate();
    slot.worker = null;
    slot.ready = null;
  }

  private start(slot: Slot): Promise<void> {
    this.folder ??= languageFolder(this.options.languages);
    const worker = new Worker(new URL('./worker.ts', import.meta.url).href);
    slot.worker = worker;
    if (!slot.busy) worker.unref();
    const setup: WorkerSetup = { languages: this.options.languages, languageFolder: this.folder, limits: this.options.limits, engine: this.options.engine };
    slot.ready = new Promise((resolve, reject) => {
      worker.onmessage = (event: MessageEvent<{ ready: boolean; error?: string }>) => (event.data.ready ? resolve() : reject(new Error(event.data.error)));
      worker.onerror = (event) => reject(new Error(event.message));
    });
    worker.postMessage({ setup });
    return slot.ready;
  }

  private nextPage(): { batch: Batch; page: number } | null {
    for (let i = 0; i < this.batches.length; i++) {
      const batch = this.batches[(this.turn + i) % this.batches.length]!;
      const page = batch.waiting.shift();
      if (page !== undefined) {
        this.turn = (this.turn + i + 1) % this.batches.length;
        return { batch, page };
      }
    }
    return null;
  }

  private dispatch(): void {
    for (const slot of this.slots) {
      if (slot.busy) continue;
      const next = this.nextPage();
      if (!next) break;
      slot.busy = true;
      // A busy worker keeps the process alive until its page is read; an idle one does not.
      slot.worker?.ref();
      void this.run(slot, next.batch, next.page).finally(() => {
        slot.busy = false;
        slot.worker?.unref();
        this.dispatch();
      });
    }
    this.scheduleIdle();
  }

  private scheduleIdle(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    if (this.slots.some((s) => s.busy) || !this.slots.some((s) => s.worker)) return;
    this.idleTimer = setTimeout(() => {
      for (const slot of this.slots) if (!slot.busy) this.end(slot);
    }, IDLE_MS);
    this.idleTimer.unref?.();
  }

  private async run(slot: Slot, batch: Batch, page: number): Promise<void> {
    const outcome = await this.readOne(slot, batch, page);
    batch.outcomes.push(outcome);
    batch.onPage?.(batch.outcomes.length, batch.total);
    if (batch.outcomes.length === batch.total) {
      const index = this.batches.indexOf(batch);
      this.batches.splice(index, 1);
      // The batch whose turn is next stays next.
      if (index < this.turn) this.turn--;
      if (this.turn >= this.batches.length) this.turn = 0;
      batch.finish(batch.outcomes);
    }
  }

  private async readOne(slot: Slot, batch: Batch, page: number): Promise<PageOutcome> {
    const started = Date.now();
    try {
      await (slot.ready ?? this.start(slot));
    } catch (error) {
      this.end(slot);
      return { page, error: `the OCR engine did not start: ${(error as Error).message}` };
    }
    const worker = slot.worker!;
    const job: PageJob = { id: nextJob++, source: batch.source, documentKey: batch.key, bytes: batch.bytes, page, deadline: started + this.options.pageTimeoutMs };
    const seconds = Math.round(this.options.pageTimeoutMs / 1000);
    return new Promise<PageOutcome>((resolve) => {
      const timer = setTimeout(() => {
        this.end(slot);
        resolve({ page, error: `page ${page} took longer than ${seconds} s to read and was skipped` });
      }, Math.max(0, job.deadline - Date.now()));
      worker.onmessage = (event: MessageEvent<PageReply>) => {
        if (event.data.id !== job.id) return;
        clearTimeout(timer);
        const { scan, error } = event.data;
        if (scan) resolve({ page, scan });
        else resolve({ page, error: error === 'out of time' ? `page ${page} took longer than ${seconds} s to read and was skipped` : `page ${page} could not be read: ${error}` });
      };
      worker.onerror = (event) => {
        clearTimeout(timer);
        this.end(slot);
        resolve({ page, error: `page ${page} could not be read: ${event.message}` });
      };
      worker.postMessage({ job });
    });
  }
}
