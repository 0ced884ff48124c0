/**
 * Table templates: the built-in catalogue plus each organization's own, listed and read per
 * project, used to create tables, and managed by their organization (built-in ones are read-only).
 */
import type { InsertMode, Strictness } from '../domain/tables';
import type { Clock } from '../lib/clock';
import { ApiError } from '../lib/errors';
import { newId } from '../lib/ids';
import type { CursorCodec } from '../query/cursor';
import type { ListSpec } from '../query/fields';
import { envelope, listInMemory, parseListQuery, recordAccess, type ListParams } from '../query/list';
import type { Repositories, StorePort } from '../store/port';
import type { TableRecord } from '../store/tables.store';
import type { TemplateRecord } from '../store/templates.store';
import { checkColumns, normalizeColumn, resolveMergeColumns, type ColumnInput } from './columns.rules';
import type { TablesService } from './tables.service';
import { CATALOG } from './templates.catalog';

export const TEMPLATE_LIST: ListSpec = {
  resource: 'templates',
  fields: {
    name: { type: 'string', sortable: true, filterable: true },
    category: { type: 'string', sortable: true, filterable: true },
    usage_count: { type: 'number', sortable: true, filterable: true },
    created_at: { type: 'number', sortable: true, filterable: true },
    updated_at: { type: 'number', sortable: true },
    id: { type: 'string', filterable: true },
    description: { type: 'string' },
  },
  searchable: ['name', 'description', 'category'],
  defaultOrder: 'name.asc',
};

export type Template = Omit<TemplateRecord, 'organization_id'>;

export interface TemplateInput {
  name?: string;
  category?: string;
  description?: string | null;
  instruction?: string | null;
  strictness?: Strictness;
  insert_mode?: InsertMode;
  merge_columns_json?: string[] | null;
  columns_json?: Array<ColumnInput & { id: string }>;
}

export class TemplatesService {
  constructor(
    private readonly port: StorePort,
    private readonly tables: TablesService,
    private readonly cursors: CursorCodec,
    private readonly clock: Clock,
  ) {}

  /** Catalogue entries as records; their use counts are kept in the store like everyone's. */
  private static readonly BUILT_IN: TemplateRecord[] = CATALOG.map((t) => ({
    ...t,
    organization_id: null,
    creator_display_name: 'rowsmith',
    creator_user_id: null,
    usage_count: 0,
    created_at: 0,
    updated_at: 0,
  }));

  /** The record with its current use count (kept apart from the definition, so both kinds count alike). */
  private async counted(record: TemplateRecord): Promise<TemplateRecord> {
    return { ...record, usage_count: await this.port.templates.usage(record.id) };
  }

  private async toTemplate(record: TemplateRecord): Promise<Template> {
    const { organization_id: _o, ...template } = await this.counted(record);
    return template;
  }

  /** A template the organization can see: built-in or its own; 404 otherwise. Read through `tx` inside a transaction. */
  private async visible(organizationId: string, id: string, tx: Repositories = this.port): Promise<TemplateRecord> {
    const found = TemplatesService.BUILT_IN.find((t) => t.id === id) ?? (await tx.templates.get(id));
    if (!found || (found.organization_id !== null && found.organization_id !== organizationId)) {
      throw new ApiError(404, 'not_found', `Template ${id} not found`);
    }
    return found;
  }

  /** The organization's own template, for changes: built-in ones are 403, others' 404. */
  private async own(tx: Repositories, organizationId: string, id: string): Promise<TemplateRecord> {
    const template = await this.visible(organizationId, id, tx);
    if (template.organization_id === null) throw new ApiError(403, 'forbidden', 'Built-in templates cannot be changed; use one, or create your own');
    return template;
  }

  private async list(all: TemplateRecord[], params: ListParams) {
    const query = parseListQuery(TEMPLATE_LIST, params, this.cursors);
    // Counted first: the list may be ordered or filtered by usage_count.
    const page = listInMemory(await Promise.all(all.map((t) => this.counted(t))), TEMPLATE_LIST, query, recordAccess(), this.cursors);
    return envelope('templates', query, {
      ...page,
      items: page.items.map(({ organization_id: _o, ...template }) => template),
    });
  }

  /** Built-in templates and the organization's own. */
  async listForProject(organizationId: string, params: ListParams) {
    return this.list([...TemplatesService.BUILT_IN, ...(await this.port.templates.listOrg(organizationId))], params);
  }

  async listMine(organizationId: string, params: ListParams) {
    return this.list(await this.port.templates.listOrg(organizationId), params);
  }

  async get(organizationId: string, id: string): Promise<Template> {
    return this.toTemplate(await this.visible(organizationId, id));
  }

  /** Checked columns and merge columns of a definition. */
  private definition(input: TemplateInput, current?: TemplateRecord): Pick<TemplateRecord, 'columns_json' | 'merge_columns_json'> {
    const columns = input.columns_json ? input.columns_json.map(normalizeColumn) : current!.columns_json;
    if (input.columns_json) checkColumns(columns);
    const merge = input.merge_columns_json !== undefined ? input.merge_columns_json : (current?.merge_columns_json ?? null);
    return { columns_json: columns, merge_columns_json: resolveMergeColumns(merge, columns) };
  }

  async create(organizationId: string, creator: string, input: TemplateInput & Required<Pick<TemplateInput, 'name' | 'category' | 'columns_json'>>): Promise<Template> {
    const now = this.clock.now();
    const record: TemplateRecord = {
      id: newId('ttmpl', now),
      organization_id: organizationId,
      name: input.name.trim(),
      category: input.category.trim(),
      description: input.description ?? null,
      instruction: input.instruction ?? null,
      strictness: input.strictness ?? 'balanced',
      insert_mode: input.insert_mode ?? 'append',
      ...this.definition(input),
      creator_display_name: creator.slice(0, 101),
      creator_user_id: null,
      usage_count: 0,
      created_at: now,
      updated_at: now,
    };
    await this.port.templates.put(record);
    return this.toTemplate(record);
  }

  async update(organizationId: string, id: string, input: TemplateInput): Promise<Template> {
    return this.toTemplate(
      await this.port.transaction(async (tx) => {
        const current = await this.own(tx, organizationId, id);
        const next: TemplateRecord = {
          ...current,
          ...Object.fromEntries(Object.entries(input).filter(([k, v]) => v !== undefined && k !== 'columns_json' && k !== 'merge_columns_json')),
          ...this.definition(input, current),
          updated_at: this.clock.now(),
        };
        await tx.templates.put(next);
        return next;
      }),
    );
  }

  async remove(organizationId: string, id: string): Promise<{ id: string }> {
    await this.port.transaction(async (tx) => {
      await this.own(tx, organizationId, id);
      await tx.templates.remove(id);
    });
    return { id };
  }

  /** Creates a table from a template, counting the use in the same transaction. */
  async use(organizationId: string, projectId: string, id: string, input: { name: string; slug?: string }): Promise<TableRecord> {
    const template = await this.visible(organizationId, id);
    // tables.create joins this transaction, so the table and the count are written together.
    return this.port.transaction(async (tx) => {
      const table = await this.tables.create(projectId, {
        name: input.name,
        slug: input.slug,
        columns_json: template.columns_json,
        instruction: template.instruction,
        strictness: template.strictness,
        insert_mode: template.insert_mode,
        merge_columns_json: template.merge_columns_json,
      });
      await tx.templates.countUse(template.id);
      return table;
    });
  }
}
