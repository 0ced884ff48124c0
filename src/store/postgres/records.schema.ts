/**
 * The tables of every record the store port keeps besides rows (see `port.ts` in this folder).
 * Each record is one JSONB value, as the LMDB store modules keep it; the columns beside it are
 * what a query looks records up or orders them by. Ids are `COLLATE "C"`, so they sort by byte,
 * as LMDB's keys do (ids are ULID-based: that order is creation order).
 *
 * LMDB's index sub-databases (a table's slug, a project's tables, the delivery queue, …) become
 * indexes over these columns, which the database keeps in step with the record itself.
 */
export const RECORDS_SCHEMA = `
CREATE TABLE meta (
  name text COLLATE "C" PRIMARY KEY,
  value jsonb NOT NULL
);

CREATE TABLE tables (
  id text COLLATE "C" PRIMARY KEY,
  -- The table's internal number, by which the rows repository knows it.
  seq integer NOT NULL UNIQUE,
  project_id text COLLATE "C" NOT NULL,
  slug text COLLATE "C" NOT NULL,
  deleted_at double precision,
  record jsonb NOT NULL
);
CREATE INDEX tables_project ON tables (project_id, id);
CREATE INDEX tables_slug ON tables (project_id, slug) WHERE deleted_at IS NULL;
CREATE INDEX tables_deleted ON tables (deleted_at, id) WHERE deleted_at IS NOT NULL;

CREATE TABLE orgs (
  id text COLLATE "C" PRIMARY KEY,
  record jsonb NOT NULL
);
CREATE TABLE projects (
  id text COLLATE "C" PRIMARY KEY,
  organization_id text COLLATE "C" NOT NULL,
  record jsonb NOT NULL
);
CREATE TABLE api_keys (
  id text COLLATE "C" PRIMARY KEY,
  organization_id text COLLATE "C" NOT NULL,
  hash text COLLATE "C" NOT NULL,
  record jsonb NOT NULL
);
CREATE INDEX api_keys_hash ON api_keys (hash);

CREATE TABLE usage (
  organization_id text COLLATE "C" NOT NULL,
  month text COLLATE "C" NOT NULL,
  count bigint NOT NULL,
  PRIMARY KEY (organization_id, month)
);

CREATE TABLE idempotency (
  scope text COLLATE "C" NOT NULL,
  key text COLLATE "C" NOT NULL,
  created_at double precision NOT NULL,
  fingerprint text NOT NULL,
  status integer NOT NULL,
  headers jsonb NOT NULL,
  body bytea NOT NULL,
  PRIMARY KEY (scope, key)
);
CREATE INDEX idempotency_created ON idempotency (created_at);

CREATE TABLE batches (
  id text COLLATE "C" PRIMARY KEY,
  project_id text COLLATE "C" NOT NULL,
  status text NOT NULL,
  record jsonb NOT NULL
);
CREATE INDEX batches_project ON batches (project_id, id);
CREATE TABLE extractions (
  id text COLLATE "C" PRIMARY KEY,
  record jsonb NOT NULL
);
CREATE TABLE batch_rows (
  batch_id text COLLATE "C" NOT NULL,
  n integer NOT NULL,
  record jsonb NOT NULL,
  PRIMARY KEY (batch_id, n)
);

CREATE TABLE webhooks (
  id text COLLATE "C" PRIMARY KEY,
  organization_id text COLLATE "C" NOT NULL,
  record jsonb NOT NULL
);
CREATE INDEX webhooks_org ON webhooks (organization_id, id);
CREATE TABLE deliveries (
  id text COLLATE "C" PRIMARY KEY,
  webhook_id text COLLATE "C" NOT NULL,
  status text NOT NULL,
  -- The queue: due time, or lease end during a send; null once finished.
  queued_at double precision,
  record jsonb NOT NULL
);
CREATE INDEX deliveries_webhook ON deliveries (webhook_id, id);
CREATE INDEX deliveries_queue ON deliveries (queued_at, id) WHERE queued_at IS NOT NULL;

CREATE TABLE examples (
  id text COLLATE "C" PRIMARY KEY,
  table_id text COLLATE "C" NOT NULL,
  row_id text COLLATE "C" NOT NULL,
  record jsonb NOT NULL
);
CREATE INDEX examples_table ON examples (table_id, id);
CREATE INDEX examples_row ON examples (table_id, row_id);

-- Readings stay msgpack, as in LMDB: a reading is large, and only ever read whole.
CREATE TABLE readings (
  checksum text COLLATE "C" PRIMARY KEY,
  version integer NOT NULL,
  packed bytea NOT NULL
);

CREATE TABLE exports (
  id text COLLATE "C" PRIMARY KEY,
  record jsonb NOT NULL
);

CREATE TABLE templates (
  id text COLLATE "C" PRIMARY KEY,
  organization_id text COLLATE "C",
  record jsonb NOT NULL
);
-- Uses of every template, built-in ones (not stored here) included.
CREATE TABLE template_usage (
  id text COLLATE "C" PRIMARY KEY,
  count bigint NOT NULL
);
`;
