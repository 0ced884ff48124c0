/** First start on an empty store: the default organization, project and admin key, exactly once. */
import type { Clock } from '../lib/clock';
import { randomToken } from '../lib/crypto';
import type { Store } from '../store/db';
import type { MetaStore } from '../store/meta.store';
import type { AccountsService } from './accounts.service';

export const DEFAULT_ORG_ID = 'org_default';
export const DEFAULT_PROJECT_ID = 'proj_default';

export type BootstrapResult =
  | { created: false }
  | { created: true; key: string; keyFromEnv: boolean };

export function bootstrap(
  store: Store,
  meta: MetaStore,
  accounts: AccountsService,
  clock: Clock,
  bootstrapKey: string | null,
): BootstrapResult {
  const key = bootstrapKey ?? `rsk_${randomToken(32)}`;
  return store.transactionSync((): BootstrapResult => {
    if (meta.get('bootstrapped_at') !== undefined) return { created: false };
    // Inside this transaction the service calls join it, so a crash leaves all or nothing.
    void accounts.createOrg({ id: DEFAULT_ORG_ID, name: 'Default organization' });
    void accounts.createProject({ id: DEFAULT_PROJECT_ID, organizationId: DEFAULT_ORG_ID, name: 'Default project' });
    void accounts.createKey({ organizationId: DEFAULT_ORG_ID, name: 'Bootstrap admin key', role: 'admin', secret: key });
    meta.put('bootstrapped_at', clock.now());
    return { created: true, key, keyFromEnv: bootstrapKey !== null };
  });
}
