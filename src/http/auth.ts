/**
 * Every /v1 route: the key from `Authorization: ApiKey <key>` (or `Bearer <key>`), the rate limit
 * and quota of its organization, and access to the organization or project named in the path.
 */
import { Elysia } from 'elysia';
import type { AccountsService, Principal } from '../services/accounts.service';
import type { RateLimiter } from '../services/ratelimit.service';
import type { UsageService } from '../services/usage.service';
import { ApiError, type ErrorKey } from '../lib/errors';
import { MAX_ID_LENGTH } from '../lib/ids';
import { requestInfo } from './request-info';

export interface AuthDeps {
  accounts: AccountsService;
  rateLimiter: RateLimiter;
  usage: UsageService;
}

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export function presentedKey(header: string | null): string | null {
  const match = header?.match(/^\s*(ApiKey|Bearer)\s+(\S+)\s*$/i);
  return match ? match[2]! : null;
}

/** The 404 each id parameter gets when it names nothing. */
const MISSING: Record<string, ErrorKey> = { table_id: 'table_not_found', row_id: 'row_not_found', col_id: 'column_not_found', id: 'webhook_not_found' };

/**
 * An id longer than any id can be names nothing, and LMDB throws on a key past its size limit; a
 * segment that is not percent-encoded UTF-8 (Elysia gives null for it) names nothing either.
 */
function rejectImpossibleIds(path: Record<string, string | null | undefined>): void {
  for (const [name, value] of Object.entries(path)) {
    if (value === null || (value !== undefined && value.length > MAX_ID_LENGTH)) throw new ApiError(404, MISSING[name] ?? 'not_found', `No ${name.replace(/_id$/, '')} with that id`);
  }
}

export function authPlugin(deps: AuthDeps) {
  return new Elysia({ name: 'auth' }).derive({ as: 'scoped' }, async ({ request, params }): Promise<{ principal: Principal }> => {
    const principal = await deps.accounts.authenticate(presentedKey(request.headers.get('authorization')));
    requestInfo(request).keyId = principal.key.id;
    await deps.rateLimiter.take(principal.key.id);
    await deps.usage.count(principal.org);
    const path = (params ?? {}) as Record<string, string | null | undefined>;
    rejectImpossibleIds(path);
    await deps.accounts.authorize(principal, {
      organizationId: path.organization_id ?? undefined,
      projectId: path.project_id ?? undefined,
      write: !READ_METHODS.has(request.method),
    });
    return { principal };
  });
}
