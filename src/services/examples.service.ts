/**
 * Review and learn. A person's write to a row that came from a document records that document as
 * an example of its table: the reviewed values, where the document prints each (its page model's
 * words), and the document's fingerprint. Later documents of the same issuer are read through the
 * layout the example shows; `evaluate` re-extracts the corrected documents and scores them against
 * their corrected rows. Examples belong to one table and act on no other.
 */
import type { Column } from '../domain/columns';
import type { Clock } from '../lib/clock';
import { ApiError } from '../lib/errors';
import { newId } from '../lib/ids';
import type { CursorCodec } from '../query/cursor';
import type { ListSpec } from '../query/fields';
import { envelope, listInMemory, parseListQuery, type ListParams } from '../query/list';
import {
  exampleFingerprint,
  locateRow,
  pagesFromLines,
  readDocument,
  hasValue,
  sameValue,
  renderPage,
  UnreadableDocument,
  type LearnedLayout,
  type MappedRow,
  type PageModel,
  type Reading,
} from '../extract';
import type { ExtractionRecord } from '../store/batches.store';
import type { ExampleField, ExampleRecord } from '../store/examples.store';
import type { FilesStore } from '../store/files.store';
import type { Repositories, StorePort } from '../store/port';
import type { RowRecord } from '../store/rows.store';
import type { TableRecord } from '../store/tables.store';
import type { BatchesService } from './batches.service';
import { rowsOfReading } from './extract.service';
import type { TablesService } from './tables.service';

export const EXAMPLE_LIST: ListSpec = {
  resource: 'examples',
  fields: {
    created_at: { type: 'number', sortable: true, filterable: true },
    updated_at: { type: 'number', sortable: true, filterable: true },
    id: { type: 'string', filterable: true },
    row_id: { type: 'string', filterable: true },
    extraction_id: { type: 'string', filterable: true },
    batch_id: { type: 'string', filterable: true },
    file_name: { type: 'string', sortable: true, filterable: true },
  },
  searchable: ['file_name'],
  selectable: ['id', 'table_id', 'row_id', 'extraction_id', 'batch_id', 'file_name', 'fields', 'identifiers', 'created_at', 'updated_at'],
};

/** Documents a write reads again, at most, to record where its rows' values are printed. */
const PREPARE_READS = 10;
/** Pages searched for a reviewed row's values (the first and last halves), and for a row's provenance: about 20 ms a page. */
const REVIEW_PAGES = 10;
const PROVENANCE_PAGES = 100;
/** Worst documents an evaluation lists. */
const WORST = 10;

export type Example = Omit<ExampleRecord, 'project_id' | 'file_checksum' | 'words' | 'pages' | 'fields'> & {
  fields: Array<Pick<ExampleField, 'column_id' | 'value' | 'corrected' | 'page' | 'box' | 'label'>>;
};

export function toExample(record: ExampleRecord): Example {
  const { project_id: _p, file_checksum: _c, words: _w, pages: _s, fields, ...rest } = record;
  return { ...rest, fields: fields.map(({ column_id, value, corrected, page, box, label }) => ({ column_id, value, corrected, page, box, label })) };
}

const valuesOf = (table: TableRecord, row: RowRecord) => Object.fromEntries(table.columns_json.map((c) => [c.id, row.values[table.slots[c.id]!] ?? null]));

/** The pages a reading's values can be found on: its page words, or its lines as rows of text. */
const pagesOf = (reading: Reading): PageModel[] => (reading.pages?.length ? reading.pages : pagesFromLines(reading.lines));

/** The layout an example shows: its fingerprint and the fields it found in the document. */
const toLayout = (e: ExampleRecord): LearnedLayout & { document: string } => ({
  id: e.id,
  document: e.file_checksum ?? e.extraction_id,
  fingerprint: { identifiers: e.identifiers, words: e.words },
  pages: e.pages,
  fields: e.fields.flatMap((f) =>
    f.page !== null && f.box
      ? [{ column_id: f.column_id, value: f.value, page: f.page, box: f.box, label: f.label, lines: f.lines, text: f.text, ...(f.order ? { order: f.order } : {}) }]
      : [],
  ),
});

const RENDERED: Partial<Record<string, 'pdf' | 'image'>> = { text_pdf: 'pdf', scanned: 'pdf', image: 'image' };

export interface ColumnScore {
  column_id: string;
  name: string;
  precision: number | null;
  recall: number | null;
  f1: number | null;
  support: number;
}

export class ExamplesService {
  constructor(
    private readonly port: StorePort,
    private readonly files: FilesStore,
    private readonly tables: TablesService,
    private readonly cursors: CursorCodec,
    private readonly clock: Clock,
    private readonly config: { dateOrder?: 'mdy' | 'dmy' },
    private readonly origins: BatchesService,
  ) {}

  private async require(projectId: string, tableId: string, exampleId: string): Promise<ExampleRecord> {
    await this.tables.requireActive(projectId, tableId);
    const example = await this.port.examples.get(exampleId);
    if (!example || example.table_id !== tableId) throw new ApiError(404, 'not_found', `Example ${exampleId} not found`);
    return example;
  }

  async list(projectId: string, tableId: string, params: ListParams) {
    await this.tables.requireActive(projectId, tableId);
    const query = parseListQuery(EXAMPLE_LIST, params, this.cursors);
    const all = await this.port.examples.listTable(tableId);
    const page = listInMemory(all, EXAMPLE_LIST, query, { get: (e, f) => e[f as keyof ExampleRecord], id: (e) => e.id }, this.cursors);
    return envelope('examples', query, { ...page, items: page.items.map(toExample) });
  }

  async get(projectId: string, tableId: string, exampleId: string): Promise<Example> {
    return toExample(await this.require(projectId, tableId, exampleId));
  }

  async remove(projectId: string, tableId: string, exampleId: string) {
    const example = await this.require(projectId, tableId, exampleId);
    await this.port.examples.remove(example);
    return { id: example.id, deleted: true as const };
  }

  async removeAll(projectId: string, tableId: string) {
    await this.tables.requireActive(projectId, tableId);
    const deleted = await this.port.transaction(async (tx) => {
      const all = await tx.examples.listTable(tableId);
      for (const e of all) await tx.examples.remove(e);
      return all.length;
    });
    return { deleted };
  }

  /** The layouts a table's examples show. */
  async layoutsFor(tableId: string): Promise<LearnedLayout[]> {
    return (await this.port.examples.listTable(tableId)).map(toLayout);
  }

  /** What reading the row's document gave: kept since its extraction, or read again (and kept) when not. */
  private async readingOf(extraction: ExtractionRecord): Promise<Reading | null> {
    const kept = extraction.file_checksum ? await this.port.readings.get(extraction.file_checksum) : undefined;
    if (kept) return kept;
    const bytes = await this.files.read(extraction.file_key);
    if (!bytes) return null;
    try {
      const reading = await readDocument({ name: extraction.file_name, contentType: extraction.content_type, bytes });
      if (extraction.file_checksum) await this.port.readings.put(extraction.file_checksum, reading);
      return reading;
    } catch (error) {
      if (error instanceof UnreadableDocument) return null;
      throw error;
    }
  }

  /** Before a person's write to rows: their documents' readings at hand, so the write can record examples in its own transaction. */
  async prepare(projectId: string, tableId: string, rowIds: string[]): Promise<void> {
    const table = await this.tables.requireActive(projectId, tableId);
    const documents = new Map<string, ExtractionRecord>();
    for (const id of new Set(rowIds)) {
      const row = await this.port.rows.get(table.seq, id);
      const extraction = row?.extraction_id ? await this.port.batches.getExtraction(row.extraction_id) : undefined;
      if (extraction?.file_checksum && !(await this.port.readings.has(extraction.file_checksum))) documents.set(extraction.file_checksum, extraction);
    }
    // A bulk update of many documents' rows reads a few again; the others' examples keep their values without places.
    for (const extraction of [...documents.values()].slice(0, PREPARE_READS)) await this.readingOf(extraction);
  }

  /**
   * Inside the write's transaction: a person wrote to a row that came from a document (corrected
   * it, or confirmed it with its own values), so the document becomes (or stays) an example with
   * the row's values as reviewed.
   */
  async reviewed(table: TableRecord, previous: RowRecord, row: RowRecord, tx: Repositories): Promise<void> {
    if (!previous.extraction_id) return;
    // A write that changes nothing confirms the row as extracted: an example all the same.
    const changed = table.columns_json.filter((c) => JSON.stringify(previous.values[table.slots[c.id]!] ?? null) !== JSON.stringify(row.values[table.slots[c.id]!] ?? null));
    const extraction = await tx.batches.getExtraction(previous.extraction_id);
    if (!extraction) return;
    const reading = extraction.file_checksum ? await tx.readings.get(extraction.file_checksum) : undefined;
    const pages = reading ? pagesOf(reading) : [];
    const values = valuesOf(table, row);
    // Inside a write transaction: the pages a document's own fields stand on (its first and last), not all of a long one.
    const searched = pages.length > REVIEW_PAGES ? [...pages.slice(0, REVIEW_PAGES / 2), ...pages.slice(-REVIEW_PAGES / 2)] : pages;
    const located = locateRow(searched, table.columns_json, values, { exclusive: true });
    const existing = await tx.examples.ofRow(table.id, row.id);
    const corrected = new Set([...changed.map((c) => c.id), ...(existing?.fields.filter((f) => f.corrected).map((f) => f.column_id) ?? [])]);
    const fields: ExampleField[] = table.columns_json.map((c) => {
      const at = located.get(c.id);
      return {
        column_id: c.id,
        value: values[c.id] ?? null,
        corrected: corrected.has(c.id),
        page: at?.page ?? null,
        box: at?.box ?? null,
        label: at?.label ?? null,
        text: at?.text ?? null,
        lines: at?.lines ?? 1,
        ...(at?.order ? { order: at.order } : {}),
      };
    });
    const fingerprint = exampleFingerprint(pages, Object.values(values));
    const now = this.clock.now();
    await tx.examples.put({
      id: existing?.id ?? newId('exmp', now),
      project_id: table.project_id,
      table_id: table.id,
      row_id: row.id,
      extraction_id: extraction.id,
      batch_id: extraction.batch_id,
      file_name: extraction.file_name,
      file_checksum: extraction.file_checksum,
      fields,
      identifiers: fingerprint.identifiers,
      words: fingerprint.words,
      pages: pages.map((p) => ({ number: p.number, width: p.width, height: p.height })),
      created_at: existing?.created_at ?? now,
      updated_at: now,
    });
  }

  /** Where the document prints each of the row's values: page and box (points, origin top-left). */
  async provenance(projectId: string, tableId: string, rowId: string) {
    const { table, row, extraction } = await this.origins.rowOrigin(projectId, tableId, rowId);
    const reading = await this.readingOf(extraction);
    const pages = (reading ? pagesOf(reading) : []).slice(0, PROVENANCE_PAGES);
    const image = reading?.pages?.length ? RENDERED[extraction.file_type ?? ''] !== undefined : false;
    const located = locateRow(pages, table.columns_json, valuesOf(table, row));
    return {
      row_id: row.id,
      extraction_id: extraction.id,
      batch_id: extraction.batch_id,
      file_name: extraction.file_name,
      pages: pages.map((p) => ({ number: p.number, width: p.width, height: p.height, image })),
      fields: table.columns_json.flatMap((c) => {
        const at = located.get(c.id);
        return at ? [{ column_id: c.id, page: at.page, box: at.box, text: at.text, label: at.label }] : [];
      }),
    };
  }

  /** A page of the row's document as a PNG. */
  async pageImage(projectId: string, tableId: string, rowId: string, page: number): Promise<Uint8Array> {
    const { extraction } = await this.origins.rowOrigin(projectId, tableId, rowId);
    const format = RENDERED[extraction.file_type ?? ''];
    const bytes = await this.files.read(extraction.file_key);
    if (!format || !bytes) throw new ApiError(404, 'row_source_not_found', `Row ${rowId} came from ${extraction.file_name}, which has no pages to show`);
    try {
      return (await renderPage(bytes, format, page)).png;
    } catch (error) {
      if (error instanceof RangeError) throw new ApiError(404, 'not_found', error.message);
      if (error instanceof UnreadableDocument) throw new ApiError(404, 'row_source_not_found', error.message);
      throw error;
    }
  }

  /**
   * Re-extracts each corrected document of the table (its own example left out, so the score says
   * what the other examples and the general model do) and scores it against its reviewed row.
   */
  async evaluate(projectId: string, tableId: string) {
    const started = performance.now();
    const table = await this.tables.requireActive(projectId, tableId);
    const examples = await this.port.examples.listTable(table.id);
    const layouts = examples.map(toLayout);
    const schema = { columns: table.columns_json, instruction: table.instruction, strictness: table.strictness };
    const counts = new Map(table.columns_json.map((c) => [c.id, { tp: 0, fp: 0, fn: 0, support: 0 }]));
    const documents: Array<{ example_id: string; row_id: string; extraction_id: string; file_name: string; f1: number | null; wrong: string[] }> = [];
    for (const example of examples) {
      const extraction = await this.port.batches.getExtraction(example.extraction_id);
      const reading = extraction ? await this.readingOf(extraction) : null;
      const truth = new Map(example.fields.map((f) => [f.column_id, f.value]));
      const columns = table.columns_json.filter((c) => truth.has(c.id));
      const rows = reading ? rowsOfReading(reading, schema, table.name, { dateOrder: this.config.dateOrder, layouts: layouts.filter((l) => l.document !== (example.file_checksum ?? example.extraction_id)) }) : [];
      // The extracted row that is this reviewed row: the one agreeing on most columns.
      const agreement = (r: MappedRow) => columns.filter((c) => hasValue(truth.get(c.id)) && sameValue(r.values[c.id], truth.get(c.id), c)).length;
      const predicted = rows.reduce<MappedRow | null>((best, r) => (!best || agreement(r) > agreement(best) ? r : best), null);
      const doc = { tp: 0, fp: 0, fn: 0 };
      const wrong: string[] = [];
      for (const c of columns) {
        const want = truth.get(c.id);
        const got = predicted?.values[c.id];
        const n = counts.get(c.id)!;
        if (hasValue(want)) n.support++;
        if (sameValue(got, want, c)) {
          if (hasValue(want)) [n.tp, doc.tp] = [n.tp + 1, doc.tp + 1];
          continue;
        }
        wrong.push(c.id);
        if (hasValue(got)) [n.fp, doc.fp] = [n.fp + 1, doc.fp + 1];
        if (hasValue(want)) [n.fn, doc.fn] = [n.fn + 1, doc.fn + 1];
      }
      documents.push({ example_id: example.id, row_id: example.row_id, extraction_id: example.extraction_id, file_name: example.file_name, f1: scores(doc).f1, wrong });
    }
    const total = { tp: 0, fp: 0, fn: 0 };
    for (const n of counts.values()) [total.tp, total.fp, total.fn] = [total.tp + n.tp, total.fp + n.fp, total.fn + n.fn];
    const overall = scores(total);
    return {
      table_id: table.id,
      documents: examples.length,
      precision: examples.length ? overall.precision : null,
      recall: examples.length ? overall.recall : null,
      f1: examples.length ? overall.f1 : null,
      columns: table.columns_json.map((c): ColumnScore => {
        const n = counts.get(c.id)!;
        return { column_id: c.id, name: c.name, ...scores(n), support: n.support };
      }),
      worst: documents.sort((a, b) => (a.f1 ?? 1) - (b.f1 ?? 1)).slice(0, WORST).filter((d) => d.wrong.length),
      duration_ms: Math.round(performance.now() - started),
    };
  }
}

const round = (v: number) => Math.round(v * 1000) / 1000;

/** Precision, recall and F1 of counts; null where nothing was there to count. */
function scores(n: { tp: number; fp: number; fn: number }): { precision: number | null; recall: number | null; f1: number | null } {
  const precision = n.tp + n.fp ? n.tp / (n.tp + n.fp) : null;
  const recall = n.tp + n.fn ? n.tp / (n.tp + n.fn) : null;
  const f1 = precision !== null && recall !== null ? (precision + recall ? (2 * precision * recall) / (precision + recall) : 0) : null;
  return { precision: precision === null ? null : round(precision), recall: recall === null ? null : round(recall), f1: f1 === null ? null : round(f1) };
}
