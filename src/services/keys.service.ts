/**
 * API keys of an organization through the API (a decision of ours: the spec leaves how keys are
 * issued open; the admin CLI does the same with direct access to the store). Only an admin key
 * that is not limited to projects may list, create or revoke keys, and only its own
 * organization's. A key's value is shown once, when it is created; listings show its prefix.
 */
import type { KeyRole } from '../domain/keys';
import type { CursorCodec } from '../query/cursor';
import type { ListSpec } from '../query/fields';
import { envelope, listInMemory, parseListQuery, type ListParams } from '../query/list';
import { ApiError } from '../lib/errors';
import type { ApiKeyRecord } from '../store/accounts.store';
import type { AccountsService, Principal } from './accounts.service';

export const KEY_LIST: ListSpec = {
  resource: 'keys',
  fields: {
    created_at: { type: 'number', sortable: true, filterable: true },
    expires_at: { type: 'number', sortable: true, filterable: true },
    revoked_at: { type: 'number', sortable: true, filterable: true },
    name: { type: 'string', sortable: true, filterable: true },
    role: { type: 'string', sortable: true, filterable: true },
    id: { type: 'string', filterable: true },
    prefix: { type: 'string', filterable: true },
  },
  searchable: ['name', 'prefix', 'id'],
  selectable: ['id', 'name', 'role', 'project_ids', 'prefix', 'created_at', 'expires_at', 'revoked_at'],
};

export type ApiKey = Omit<ApiKeyRecord, 'hash' | 'organization_id'>;

export function toKey(record: ApiKeyRecord): ApiKey {
  const { hash: _h, organization_id: _o, ...key } = record;
  return key;
}

export interface KeyInput {
  name?: string;
  role?: KeyRole;
  project_ids?: string[] | null;
  expires_at?: number | null;
}

export class KeysService {
  constructor(
    private readonly accounts: AccountsService,
    private readonly cursors: CursorCodec,
  ) {}

  private requireAdmin(principal: Principal): void {
    this.accounts.authorizeOrgSettings(principal, true);
  }

  async list(principal: Principal, params: ListParams) {
    this.requireAdmin(principal);
    const query = parseListQuery(KEY_LIST, params, this.cursors);
    const all = await this.accounts.listKeys(principal.org.id);
    const page = listInMemory(all, KEY_LIST, query, { get: (k, f) => k[f as keyof ApiKeyRecord], id: (k) => k.id }, this.cursors);
    return envelope('keys', query, { ...page, items: page.items.map(toKey) });
  }

  async create(principal: Principal, input: KeyInput): Promise<ApiKey & { key: string }> {
    this.requireAdmin(principal);
    const created = await this.accounts.createKey({
      organizationId: principal.org.id,
      name: input.name,
      role: input.role,
      projectIds: input.project_ids ?? null,
      expiresAt: input.expires_at ?? null,
    });
    return { ...toKey(created.record), key: created.secret };
  }

  async revoke(principal: Principal, keyId: string): Promise<ApiKey> {
    this.requireAdmin(principal);
    const key = (await this.accounts.listKeys(principal.org.id)).find((k) => k.id === keyId);
    if (!key) throw new ApiError(404, 'not_found', `API key ${keyId} not found`);
    return toKey(await this.accounts.revokeKey(keyId));
  }
}
