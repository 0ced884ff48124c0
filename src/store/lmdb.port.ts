/**
 * The store port on LMDB: each repository is a store module of this folder, whose synchronous
 * methods it runs through `Store.call`; a transaction is `Store.transactionAsync`, which routes
 * the store modules' reads and writes through its buffer, so the same repositories serve inside
 * and outside one.
 */
import { AccountsStore } from './accounts.store';
import { BatchesStore } from './batches.store';
import type { Store } from './db';
import { ExamplesStore } from './examples.store';
import { ExportsStore } from './exports.store';
import { IdempotencyStore } from './idempotency.store';
import { MetaStore } from './meta.store';
import { ReadingsStore } from './readings.store';
import type {
  AccountsRepository,
  BatchesRepository,
  ExamplesRepository,
  ExportsRepository,
  IdempotencyRepository,
  MetaRepository,
  ReadingsRepository,
  Repositories,
  RowsRepository,
  StorePort,
  TablesRepository,
  TemplatesRepository,
  UsageRepository,
  WebhooksRepository,
} from './port';
import { RowsStore } from './rows.store';
import { TablesStore } from './tables.store';
import { TemplatesStore } from './templates.store';
import { UsageStore } from './usage.store';
import { WebhooksStore } from './webhooks.store';

/** A repository's methods as a synchronous store module has them. */
type Synchronous<R> = {
  [K in keyof R]: R[K] extends (...args: infer A) => Promise<infer T> ? (...args: A) => T | Promise<T> : never;
};

/** The repository `R` over a store module: each of its methods, run by `Store.call`. */
function repository<R>(store: Store, module: Synchronous<R>): R {
  const out: Record<string, unknown> = {};
  for (let proto = Object.getPrototypeOf(module); proto && proto !== Object.prototype; proto = Object.getPrototypeOf(proto)) {
    for (const [name, descriptor] of Object.entries(Object.getOwnPropertyDescriptors(proto))) {
      const method = descriptor.value as unknown;
      if (name === 'constructor' || name in out || typeof method !== 'function') continue;
      out[name] = (...args: unknown[]) => store.call(() => (method as (...a: unknown[]) => unknown).apply(module, args));
    }
  }
  return out as R;
}

export function lmdbPort(store: Store): StorePort {
  const repositories: Repositories = {
    tables: repository<TablesRepository>(store, new TablesStore(store)),
    rows: repository<RowsRepository>(store, new RowsStore(store)),
    meta: repository<MetaRepository>(store, new MetaStore(store)),
    accounts: repository<AccountsRepository>(store, new AccountsStore(store)),
    usage: repository<UsageRepository>(store, new UsageStore(store)),
    idempotency: repository<IdempotencyRepository>(store, new IdempotencyStore(store)),
    batches: repository<BatchesRepository>(store, new BatchesStore(store)),
    webhooks: repository<WebhooksRepository>(store, new WebhooksStore(store)),
    examples: repository<ExamplesRepository>(store, new ExamplesStore(store)),
    readings: repository<ReadingsRepository>(store, new ReadingsStore(store)),
    exports: repository<ExportsRepository>(store, new ExportsStore(store)),
    templates: repository<TemplatesRepository>(store, new TemplatesStore(store)),
  };
  // A transaction's `lock` is left out: every LMDB transaction already holds the one write lock.
  return { ...repositories, transaction: (fn) => store.transactionAsync(() => fn(repositories)) };
}
