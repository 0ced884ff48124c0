/** Organizations, projects and API keys: the records authentication reads on every request. */
import type { KeyRole } from '../domain/keys';
import type { Store } from './db';

export interface OrgRecord {
  id: string;
  name: string;
  suspended_at: number | null;
  /** Requests allowed per calendar month (UTC); null means unlimited. */
  monthly_request_quota: number | null;
  created_at: number;
  updated_at: number;
}

export interface ProjectRecord {
  id: string;
  organization_id: string;
  name: string;
  created_at: number;
  updated_at: number;
}

export interface ApiKeyRecord {
  id: string;
  organization_id: string;
  name: string;
  role: KeyRole;
  /** Projects the key is limited to; null means every project of its organization. */
  project_ids: string[] | null;
  /** SHA-256 of the key; the key itself is never stored. */
  hash: string;
  /** The first characters of the key, so people can tell keys apart in a listing. */
  prefix: string;
  created_at: number;
  expires_at: number | null;
  revoked_at: number | null;
}

export class AccountsStore {
  constructor(private readonly store: Store) {}

  private get orgs() {
    return this.store.db<OrgRecord, string>('orgs');
  }
  private get projects() {
    return this.store.db<ProjectRecord, string>('projects');
  }
  private get keys() {
    return this.store.db<ApiKeyRecord, string>('api_keys');
  }
  private get keyHashes() {
    return this.store.db<string, string>('api_key_hashes');
  }

  getOrg(id: string): OrgRecord | undefined {
    return this.orgs.get(id);
  }
  /** Counts changes to organizations, projects and keys, from this process or the CLI's. */
  version(): number {
    return (this.store.db<number, string>('meta').get('accounts_version') as number | undefined) ?? 0;
  }

  /** Call inside the transaction of every change. */
  private changed(): void {
    this.store.db<number, string>('meta').putSync('accounts_version', this.version() + 1);
  }

  putOrg(org: OrgRecord): void {
    this.changed();
    this.orgs.putSync(org.id, org);
  }
  listOrgs(): OrgRecord[] {
    return [...this.orgs.getRange().map(({ value }) => value)];
  }

  getProject(id: string): ProjectRecord | undefined {
    return this.projects.get(id);
  }
  putProject(project: ProjectRecord): void {
    this.changed();
    this.projects.putSync(project.id, project);
  }
  listProjects(organizationId?: string): ProjectRecord[] {
    const all = [...this.projects.getRange().map(({ value }) => value)];
    return organizationId ? all.filter((p) => p.organization_id === organizationId) : all;
  }

  getKey(id: string): ApiKeyRecord | undefined {
    return this.keys.get(id);
  }
  getKeyByHash(hash: string): ApiKeyRecord | undefined {
    const id = this.keyHashes.get(hash);
    return id === undefined ? undefined : this.keys.get(id);
  }
  /** Writes the key and its hash index together; call inside a transaction. */
  putKey(key: ApiKeyRecord): void {
    this.changed();
    this.keys.putSync(key.id, key);
    this.keyHashes.putSync(key.hash, key.id);
  }
  listKeys(organizationId?: string): ApiKeyRecord[] {
    const all = [...this.keys.getRange().map(({ value }) => value)];
    return organizationId ? all.filter((k) => k.organization_id === organizationId) : all;
  }
}
