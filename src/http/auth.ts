/**
 * Every /v1 route: the key from `Authorization: ApiKey <key>` (or `Bearer <key>`), the rate limit
 * and quota of its organization, and access to the organization or project named in the path.
 */
import { Elysia } from 'elysia';
import type { AccountsService, Principal } from '../services/accounts.service';
import type { RateLimiter } from '../services/ratelimit.service';
import type { UsageService } from '../services/usage.service';
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

export function authPlugin(deps: AuthDeps) {
  return new Elysia({ name: 'auth' }).derive({ as: 'scoped' }, ({ request, params }): { principal: Principal } => {
    const principal = deps.accounts.authenticate(presentedKey(request.headers.get('authorization')));
    requestInfo(request).keyId = principal.key.id;
    deps.rateLimiter.take(principal.key.id);
    deps.usage.count(principal.org);
    const path = (params ?? {}) as Record<string, string | undefined>;
    deps.accounts.authorize(principal, {
      organizationId: path.organization_id,
      projectId: path.project_id,
      write: !READ_METHODS.has(request.method),
    });
    return { principal };
  });
}
