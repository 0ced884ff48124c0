/**
 * Examples: documents a person corrected, per table (`table_examples` [table_id, example_id]) and
 * per reviewed row (`row_examples` [table_id, row_id] -> example_id), each with the reviewed row's
 * values, where the document prints them, and its fingerprint.
 */
import type { Box, DayOrder } from '../extract';
import { recordsUnder, type Store } from './db';

export interface ExampleField {
  column_id: string;
  value: unknown;
  /** The person changed this value (false: left as extracted when reviewing the row). */
  corrected: boolean;
  page: number | null;
  box: Box | null;
  label: string | null;
  /** Internal: the printed text, the lines it covers, and a date's day/month order. */
  text: string | null;
  lines: number;
  order?: DayOrder;
}

export interface ExampleRecord {
  id: string;
  project_id: string;
  table_id: string;
  row_id: string;
  extraction_id: string;
  batch_id: string;
  file_name: string;
  /** Internal: the document's checksum, to leave its own layout out when it is evaluated. */
  file_checksum: string | null;
  fields: ExampleField[];
  identifiers: string[];
  /** Internal: the letterhead's words and the page sizes, for matching and placing. */
  words: string[];
  pages: Array<{ number: number; width: number; height: number }>;
  created_at: number;
  updated_at: number;
}

export class ExamplesStore {
  constructor(private readonly store: Store) {}

  private get examples() {
    return this.store.db<ExampleRecord, string>('examples');
  }
  private get byTable() {
    return this.store.db<true, [string, string]>('table_examples');
  }

  private get byRow() {
    return this.store.db<string, [string, string]>('row_examples');
  }

  /** The example a reviewed row made. */
  ofRow(tableId: string, rowId: string): ExampleRecord | undefined {
    const id = this.byRow.get([tableId, rowId]);
    return id === undefined ? undefined : this.examples.get(id);
  }

  get(id: string): ExampleRecord | undefined {
    return this.examples.get(id);
  }

  listTable(tableId: string): ExampleRecord[] {
    return recordsUnder(this.byTable, this.examples, tableId);
  }

  /** Call inside a transaction. */
  put(example: ExampleRecord): void {
    this.byTable.putSync([example.table_id, example.id], true);
    this.byRow.putSync([example.table_id, example.row_id], example.id);
    this.examples.putSync(example.id, example);
  }

  /** Call inside a transaction. */
  remove(example: ExampleRecord): void {
    this.byTable.removeSync([example.table_id, example.id]);
    this.byRow.removeSync([example.table_id, example.row_id]);
    this.examples.removeSync(example.id);
  }
}
