/**
 * Organizations' own table templates, and the usage counts of every template (built-in ones
 * included, whose definitions live in code).
 */
import type { Column } from '../domain/columns';
import type { InsertMode, Strictness } from '../domain/tables';
import type { Store } from './db';

export interface TemplateRecord {
  id: string;
  /** The owning organization; null for built-in templates. */
  organization_id: string | null;
  name: string;
  category: string;
  description: string | null;
  instruction: string | null;
  strictness: Strictness;
  insert_mode: InsertMode;
  merge_columns_json: string[] | null;
  columns_json: Column[];
  creator_display_name: string | null;
  creator_user_id: string | null;
  usage_count: number;
  created_at: number;
  updated_at: number;
}

export class TemplatesStore {
  constructor(private readonly store: Store) {}

  private get db() {
    return this.store.db<TemplateRecord | number, string | [string, string]>('templates');
  }

  get(id: string): TemplateRecord | undefined {
    return this.db.get(id) as TemplateRecord | undefined;
  }

  listOrg(organizationId: string): TemplateRecord[] {
    return [...this.db.getRange({ start: 'ttmpl_', end: 'ttmpl_\uffff' }).map(({ value }) => value as TemplateRecord).filter((t) => t.organization_id === organizationId)];
  }

  /** Call inside a transaction. */
  put(template: TemplateRecord): void {
    this.db.putSync(template.id, template);
  }

  /** Call inside a transaction. */
  remove(id: string): void {
    this.db.removeSync(id);
    this.db.removeSync(['usage', id]);
  }

  usage(id: string): number {
    return (this.db.get(['usage', id]) as number | undefined) ?? 0;
  }

  /** Call inside a transaction. */
  countUse(id: string): void {
    this.db.putSync(['usage', id], this.usage(id) + 1);
  }
}
