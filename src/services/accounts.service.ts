/**
 * Organizations, projects and API keys: creating them (CLI, bootstrap), and turning a presented key
 * into a principal with the checks every /v1 request goes through.
 */
import type { Clock } from '../lib/clock';
import { randomToken, sha256Hex } from '../lib/crypto';
import { ApiError, notFound } from '../lib/errors';
import { newId } from '../lib/ids';
import { KEY_ROLES, type KeyRole } from '../domain/keys';
import type { ApiKeyRecord, OrgRecord, ProjectRecord } from '../store/accounts.store';
import type { Repositories, StorePort } from '../store/port';

export interface Principal {
  key: ApiKeyRecord;
  org: OrgRecord;
}

export interface CreatedKey {
  record: ApiKeyRecord;
  /** The key itself, shown once. */
  secret: string;
}

export class AccountsService {
  constructor(
    private readonly port: StorePort,
    private readonly clock: Clock,
  ) {}

  createOrg(input: { name: string; id?: string; monthlyRequestQuota?: number | null }): Promise<OrgRecord> {
    const name = checkName(input.name, 'organization name');
    const id = input.id ?? newId('org');
    return this.port.transaction(async (tx) => {
      if (await tx.accounts.getOrg(id)) throw new ApiError(400, 'invalid_input', `organization ${id} already exists`);
      const now = this.clock.now();
      const org: OrgRecord = {
        id,
        name,
        suspended_at: null,
        monthly_request_quota: input.monthlyRequestQuota ?? null,
        created_at: now,
        updated_at: now,
      };
      await tx.accounts.putOrg(org);
      return org;
    });
  }

  listOrgs(): Promise<OrgRecord[]> {
    return this.port.accounts.listOrgs();
  }

  /** The organization, or 404; read through `tx` inside a transaction. */
  async getOrg(id: string, tx: Repositories = this.port): Promise<OrgRecord> {
    const org = await tx.accounts.getOrg(id);
    if (!org) throw notFound(`organization ${id}`);
    return org;
  }

  /** Suspends (or, with `false`, reinstates) an organization; its keys then get 403 org_suspended. */
  setSuspended(id: string, suspended: boolean): Promise<OrgRecord> {
    return this.updateOrg(id, (org) => ({ ...org, suspended_at: suspended ? (org.suspended_at ?? this.clock.now()) : null }));
  }

  setQuota(id: string, quota: number | null): Promise<OrgRecord> {
    if (quota !== null && (!Number.isInteger(quota) || quota < 0)) {
      throw new ApiError(400, 'invalid_input', 'quota must be a whole number >= 0, or none');
    }
    return this.updateOrg(id, (org) => ({ ...org, monthly_request_quota: quota }));
  }

  private updateOrg(id: string, change: (org: OrgRecord) => OrgRecord): Promise<OrgRecord> {
    return this.port.transaction(async (tx) => {
      const org = await this.getOrg(id, tx);
      const next = { ...change(org), updated_at: this.clock.now() };
      await tx.accounts.putOrg(next);
      return next;
    });
  }

  createProject(input: { organizationId: string; name: string; id?: string }): Promise<ProjectRecord> {
    const name = checkName(input.name, 'project name');
    const id = input.id ?? newId('proj');
    return this.port.transaction(async (tx) => {
      await this.getOrg(input.organizationId, tx);
      if (await tx.accounts.getProject(id)) throw new ApiError(400, 'invalid_input', `project ${id} already exists`);
      const now = this.clock.now();
      const project: ProjectRecord = { id, organization_id: input.organizationId, name, created_at: now, updated_at: now };
      await tx.accounts.putProject(project);
      return project;
    });
  }

  listProjects(organizationId?: string): Promise<ProjectRecord[]> {
    return this.port.accounts.listProjects(organizationId);
  }

  createKey(input: {
    organizationId: string;
    name?: string;
    role?: KeyRole;
    projectIds?: string[] | null;
    expiresAt?: number | null;
    /** A chosen key value (bootstrap); otherwise a random one is made. */
    secret?: string;
  }): Promise<CreatedKey> {
    const role = input.role ?? 'write';
    if (!KEY_ROLES.includes(role)) throw new ApiError(400, 'invalid_input', `role must be one of ${KEY_ROLES.join(', ')}`);
    const secret = input.secret ?? `rsk_${randomToken(32)}`;
    const now = this.clock.now();
    if (input.expiresAt != null && input.expiresAt <= now) throw new ApiError(400, 'invalid_input', 'expiry must be in the future');
    return this.port.transaction(async (tx) => {
      await this.getOrg(input.organizationId, tx);
      const projectIds = input.projectIds?.length ? [...new Set(input.projectIds)] : null;
      for (const pid of projectIds ?? []) {
        const project = await tx.accounts.getProject(pid);
        if (!project || project.organization_id !== input.organizationId) {
          throw new ApiError(400, 'invalid_input', `project ${pid} is not in organization ${input.organizationId}`);
        }
      }
      const hash = sha256Hex(secret);
      if (await tx.accounts.getKeyByHash(hash)) throw new ApiError(400, 'invalid_input', 'that key value is already in use');
      const record: ApiKeyRecord = {
        id: newId('key'),
        organization_id: input.organizationId,
        name: input.name?.trim() || 'API key',
        role,
        project_ids: projectIds,
        hash,
        prefix: secret.slice(0, 8),
        created_at: now,
        expires_at: input.expiresAt ?? null,
        revoked_at: null,
      };
      await tx.accounts.putKey(record);
      return { record, secret };
    });
  }

  listKeys(organizationId?: string): Promise<ApiKeyRecord[]> {
    return this.port.accounts.listKeys(organizationId);
  }

  revokeKey(id: string): Promise<ApiKeyRecord> {
    return this.port.transaction(async (tx) => {
      const key = await tx.accounts.getKey(id);
      if (!key) throw notFound(`key ${id}`);
      const next = { ...key, revoked_at: key.revoked_at ?? this.clock.now() };
      await tx.accounts.putKey(next);
      return next;
    });
  }

  /**
   * Principals of recently presented keys, valid while no organization, project or key has changed
   * (checked with one read of the accounts version, which every such change, also the CLI's, bumps).
   */
  private readonly principals = new Map<string, { version: number; principal: Principal }>();

  /** Resolves a presented key; any key that cannot be used is the same 401, so nothing leaks. */
  async authenticate(secret: string | null): Promise<Principal> {
    if (!secret) throw unauthorized();
    const version = await this.port.accounts.version();
    const cached = this.principals.get(secret);
    let principal: Principal;
    if (cached && cached.version === version) {
      principal = cached.principal;
    } else {
      const key = await this.port.accounts.getKeyByHash(sha256Hex(secret));
      const org = key ? await this.port.accounts.getOrg(key.organization_id) : undefined;
      if (!key || !org) throw unauthorized();
      principal = { key, org };
      if (this.principals.size >= MAX_CACHED_PRINCIPALS) this.principals.clear();
      this.principals.set(secret, { version, principal });
    }
    const { key, org } = principal;
    if (key.revoked_at !== null) throw unauthorized();
    if (key.expires_at !== null && key.expires_at <= this.clock.now()) throw unauthorized();
    if (org.suspended_at !== null) throw new ApiError(403, 'org_suspended', 'This organization is suspended');
    return principal;
  }

  /** Which projects a principal may see, remembered with the principal (so for one accounts version). */
  private readonly visibility = new WeakMap<Principal, Map<string, boolean>>();

  private async projectVisible(principal: Principal, projectId: string): Promise<boolean> {
    let known = this.visibility.get(principal);
    if (!known) this.visibility.set(principal, (known = new Map()));
    let visible = known.get(projectId);
    if (visible === undefined) {
      const project = await this.port.accounts.getProject(projectId);
      visible =
        project !== undefined &&
        project.organization_id === principal.org.id &&
        (principal.key.project_ids === null || principal.key.project_ids.includes(project.id));
      if (known.size < 1000) known.set(projectId, visible);
    }
    return visible;
  }

  /**
   * The access rules of a request: an organization or project outside the key is 404 (never
   * revealing that it exists); a read key that writes is 403.
   */
  async authorize(principal: Principal, target: { organizationId?: string; projectId?: string; write: boolean }): Promise<void> {
    if (target.organizationId !== undefined && target.organizationId !== principal.org.id) throw notFound('organization');
    if (target.projectId !== undefined && !(await this.projectVisible(principal, target.projectId))) throw notFound('project');
    if (target.write && principal.key.role === 'read') throw new ApiError(403, 'forbidden', 'This API key is read-only');
  }

  /**
   * Organization-wide settings (webhooks) see every project's events, so a key limited to some
   * projects cannot reach them, and only an admin key may change them.
   */
  authorizeOrgSettings(principal: Principal, write: boolean): void {
    if (principal.key.project_ids !== null) throw new ApiError(403, 'forbidden', 'This API key is limited to projects; organization settings need an organization-wide key');
    if (write && principal.key.role !== 'admin') throw new ApiError(403, 'forbidden', 'Changing organization settings needs an admin API key');
  }

  /** Projects the principal can see, for GET /v1/me. */
  async visibleProjects(principal: Principal): Promise<ProjectRecord[]> {
    const all = await this.port.accounts.listProjects(principal.org.id);
    return principal.key.project_ids === null ? all : all.filter((p) => principal.key.project_ids!.includes(p.id));
  }
}

const MAX_CACHED_PRINCIPALS = 10_000;

function unauthorized(): ApiError {
  return new ApiError(401, 'unauthorized', 'A valid API key is required: send "Authorization: ApiKey <key>"');
}

function checkName(name: string, what: string): string {
  const trimmed = name?.trim() ?? '';
  if (trimmed.length < 1 || trimmed.length > 128) throw new ApiError(400, 'invalid_input', `${what} must be 1 to 128 characters`);
  return trimmed;
}
