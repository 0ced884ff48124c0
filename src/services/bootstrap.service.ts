/** First start on an empty store: the default organization, project and admin key, exactly once. */
import type { Clock } from '../lib/clock';
import { randomToken } from '../lib/crypto';
import type { StorePort } from '../store/port';
import type { AccountsService } from './accounts.service';

export const DEFAULT_ORG_ID = 'org_default';
export const DEFAULT_PROJECT_ID = 'proj_default';

export type BootstrapResult =
  | { created: false }
  | { created: true; key: string; keyFromEnv: boolean };

export function bootstrap(port: StorePort, accounts: AccountsService, clock: Clock, bootstrapKey: string | null): Promise<BootstrapResult> {
  const key = bootstrapKey ?? `rsk_${randomToken(32)}`;
  return port.transaction(async (tx): Promise<BootstrapResult> => {
    if ((await tx.meta.get('bootstrapped_at')) !== undefined) return { created: false };
    // Inside this transaction the service calls join it, so a crash leaves all or nothing.
    await accounts.createOrg({ id: DEFAULT_ORG_ID, name: 'Default organization' });
    await accounts.createProject({ id: DEFAULT_PROJECT_ID, organizationId: DEFAULT_ORG_ID, name: 'Default project' });
    await accounts.createKey({ organizationId: DEFAULT_ORG_ID, name: 'Bootstrap admin key', role: 'admin', secret: key });
    await tx.meta.put('bootstrapped_at', clock.now());
    return { created: true, key, keyFromEnv: bootstrapKey !== null };
  });
}
