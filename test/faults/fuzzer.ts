/**
 * The API fuzzer shared by `npm run bench -- fuzz` (a child server, 100,000+ requests) and the short
 * fixed-seed test: valid requests of every operation in the served OpenAPI document, mutated, plus
 * hostile inputs (broken and deep JSON, odd numbers and Unicode, broken query grammars, multipart
 * oddities, decompression bombs, malformed PDFs, entity expansion, CSV formulas). Every answer must
 * come within the deadline, never be a 5xx, and carry the error envelope when it is a 4xx.
 */
import { deflateRawSync, gzipSync } from 'node:zlib';

export type Send = (request: Request) => Promise<Response>;

export interface FuzzOptions {
  seed: number;
  requests: number;
  concurrency: number;
  /** An answer slower than this is a hang. */
  deadlineMs: number;
  baseUrl: string;
  key: string;
  /** Share of requests that are hostile documents and bodies rather than mutated valid ones. */
  hostileShare?: number;
  /** Uncompressed size of the decompression bombs. */
  bombBytes: number;
  /** Replays only these request numbers of the seed (to look at one failure alone). */
  only?: number[];
  /** Hostile documents left out by name: defects reported but not yet fixed where they live. */
  skipDocuments?: string[];
  progress?: (done: number) => void;
}

export interface FuzzFailure {
  seed: number;
  index: number;
  label: string;
  method: string;
  url: string;
  body: string;
  problem: string;
}

export interface FuzzReport {
  requests: number;
  statuses: Record<number, number>;
  failures: FuzzFailure[];
  hangs: number;
  slowestMs: number;
  /** The slowest answers, to say where the time goes. */
  slowest: Array<{ ms: number; label: string }>;
}

/** mulberry32: small, fast, and the same sequence for the same seed everywhere. */
export function random(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)]!;
  return { next, int, pick, chance: (p: number) => next() < p };
}
export type Rng = ReturnType<typeof random>;

interface Operation {
  method: string;
  path: string;
  query: Array<{ name: string; schema: any }>;
  body?: any;
}

interface Draft {
  label: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string | Uint8Array | FormData;
}

/** Ids that exist, so mutated requests reach the handlers and not only the 404s. */
export interface FuzzIds {
  project: string;
  org: string;
  tables: string[];
  rows: string[];
  columns: string[];
  batches: string[];
  exports: string[];
  webhooks: string[];
  templates: string[];
  /** An https URL the server accepts for webhooks (it checks the address). */
  webhookUrl: string;
}

const ODD_STRINGS = [
  '',
  ' ',
  '\u0000',
  '\uFEFF',
  '\u202Eevil',
  'e\u0301\u0301\u0301',
  '👩‍👩‍👧‍👦'.repeat(20),
  '\uD800',
  '\uDFFF\uD800',
  'a'.repeat(10_000),
  'ß'.repeat(3000),
  '%00%ff%',
  '../../etc/passwd',
  '<script>alert(1)</script>',
  "'; DROP TABLE rows; --",
  '=HYPERLINK("http://x","y")',
  '+SUM(1,2)',
  '-2+3',
  '@cmd',
  '\t=1',
  '"quoted"',
  '\\',
  '{"a":1}',
  'null',
  'tbl_',
  '*',
  '()',
];
const ODD_NUMBERS: unknown[] = [0, -0, -1, 1e308, -1e308, 1e-320, 2 ** 53 + 1, 1.5, 99999999999999999999, '1e400', 'NaN', 'Infinity', '-Infinity', '0x10', '1_000'];

function oddValue(rng: Rng, depth = 0): unknown {
  switch (rng.int(9)) {
    case 0:
      return rng.pick(ODD_STRINGS);
    case 1:
      return rng.pick(ODD_NUMBERS);
    case 2:
      return null;
    case 3:
      return rng.chance(0.5);
    case 4:
      return depth > 2 ? [] : Array.from({ length: rng.int(4) }, () => oddValue(rng, depth + 1));
    case 5:
      return depth > 2 ? {} : { [rng.pick(ODD_STRINGS)]: oddValue(rng, depth + 1), __proto__x: 1, constructor: oddValue(rng, 3) };
    case 6:
      return Array.from({ length: 2000 }, (_, i) => i);
    case 7:
      return { __proto__: { polluted: true } };
    default:
      return rng.pick(['2024-02-30', '9999-12-31T99:99', 'user@', 'https://', 'USD', 'EUR', 'paid']);
  }
}

/** A value that fits a JSON schema of the served document, most of the time. */
function valid(schema: any, rng: Rng, ids: FuzzIds, name = ''): unknown {
  if (!schema) return 'x';
  if (schema.const !== undefined) return schema.const;
  if (schema.enum) return rng.pick(schema.enum);
  if (schema.anyOf) return valid(rng.pick(schema.anyOf.filter((s: any) => s.type !== 'null' || rng.chance(0.2))), rng, ids, name);
  switch (schema.type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      const required = new Set<string>(schema.required ?? []);
      for (const [key, sub] of Object.entries<any>(schema.properties ?? {})) {
        if (required.has(key) || rng.chance(0.4)) out[key] = valid(sub, rng, ids, key);
      }
      if (schema.additionalProperties !== false && !schema.properties) {
        for (const column of ids.columns.slice(0, 3)) out[column] = rng.pick(['hello', 12, '2024-01-02', true]);
      }
      return out;
    }
    case 'array': {
      const n = Math.max(schema.minItems ?? 0, rng.int(3));
      if (name === 'order' || name === 'deletes') return ids[name === 'order' ? 'columns' : 'rows'].slice(0, n || 1);
      return Array.from({ length: n }, () => valid(schema.items, rng, ids, name));
    }
    case 'integer':
    case 'number':
      return Math.max(schema.minimum ?? 0, Math.min(schema.maximum ?? 1000, rng.int(50)));
    case 'boolean':
      return rng.chance(0.5);
    case 'string': {
      if (name === 'url') return ids.webhookUrl;
      if (name === 'id') return rng.pick(ids.rows.length ? ids.rows : ['x']);
      if (name === 'currency_code') return 'USD';
      const length = Math.max(schema.minLength ?? 1, Math.min(schema.maxLength ?? 12, 6));
      return `v${rng.int(1e6)}`.padEnd(length, 'x').slice(0, schema.maxLength ?? 64);
    }
    default:
      return rng.pick(['x', 1, true]);
  }
}

/** Breaks a value in one place: a wrong type, a limit crossed, an odd value, a deleted key. */
function mutate(value: unknown, rng: Rng): unknown {
  if (rng.chance(0.25)) return oddValue(rng);
  if (Array.isArray(value)) {
    if (!value.length || rng.chance(0.3)) return rng.chance(0.5) ? [] : Array.from({ length: 1001 }, () => value[0] ?? 1);
    const copy = [...value];
    const i = rng.int(copy.length);
    copy[i] = mutate(copy[i], rng);
    return copy;
  }
  if (value && typeof value === 'object') {
    const copy: Record<string, unknown> = { ...(value as Record<string, unknown>) };
    const keys = Object.keys(copy);
    if (!keys.length || rng.chance(0.2)) copy[rng.pick(ODD_STRINGS) || 'extra'] = oddValue(rng);
    else if (rng.chance(0.3)) delete copy[rng.pick(keys)];
    else {
      const key = rng.pick(keys);
      copy[key] = mutate(copy[key], rng);
    }
    return copy;
  }
  if (typeof value === 'string') return rng.pick([value.repeat(300), '', value + rng.pick(ODD_STRINGS), 42, null]);
  if (typeof value === 'number') return rng.pick([-value - 1, value * 1e300, 0.5, '12', null]);
  return oddValue(rng);
}

const FILTER_PIECES = ['title', 'amount', 'created_at', 'id', 'name', 'nope', '.', ',', '(', ')', 'or(', 'and(', 'not.', 'eq', 'gt', 'in', 'is', 'like', 'ilike', 'contains', 'null', '"', '\\"', '*', '1e999', 'NaN', '%', '🙂', ''];
const ORDER_PIECES = ['title', 'amount', 'created_at', 'name', 'nope', '.asc', '.desc', '.nullsfirst', '.nullslast', '.sideways', ',', '', '..'];
const AGGS_PIECES = ['count', 'sum', 'avg', 'min', 'max', ':', 'amount', 'title', 'created_at', ',', 'x', '::', ''];

function grammar(rng: Rng, pieces: string[], valid: string): string {
  if (rng.chance(0.3)) {
    const chars = [...valid];
    const at = rng.int(chars.length + 1);
    const op = rng.int(3);
    if (op === 0) chars.splice(at, 1);
    else if (op === 1) chars.splice(at, 0, rng.pick(['(', ')', ',', '.', '"', '\\', '*', '\u0000', '%']));
    else chars.splice(at, chars.length - at);
    return chars.join('');
  }
  if (rng.chance(0.05)) return 'or('.repeat(rng.int(50) + 4) + 'title.eq.a' + ')'.repeat(rng.int(60));
  if (rng.chance(0.05)) return Array.from({ length: rng.int(40) + 18 }, (_, i) => `amount.gt.${i}`).join(',');
  if (rng.chance(0.05)) return `title.in.(${Array.from({ length: 150 }, (_, i) => i).join(',')})`;
  return Array.from({ length: rng.int(8) + 1 }, () => rng.pick(pieces)).join('');
}

const QUERY_VALID: Record<string, string[]> = {
  filter: ['title.eq.hello', 'amount.gt.3,title.like.h*', 'or(amount.lt.2,title.is.null)', 'name.ilike.*a*', 'created_at.gte.0'],
  order: ['created_at.desc', 'amount.asc.nullsfirst,title.desc', 'name.asc', 'title'],
  aggs: ['count', 'count,sum:amount,avg:amount', 'min:amount,max:amount', 'count:title'],
  select: ['id,title', '*', 'amount'],
  q: ['hello', 'hel lo', ''],
};

function queryValue(name: string, schema: any, rng: Rng, broken: boolean): string {
  const known = QUERY_VALID[name];
  if (name === 'cursor') return broken ? rng.pick(['', 'abc', 'eyJ4IjoxfQ', '%%%', 'a'.repeat(5000), '..']) : '';
  if (known) {
    const base = rng.pick(known);
    if (!broken) return base;
    return grammar(rng, name === 'order' ? ORDER_PIECES : name === 'aggs' ? AGGS_PIECES : FILTER_PIECES, base);
  }
  if (broken) return String(rng.pick([...ODD_STRINGS.slice(0, 12), ...ODD_NUMBERS]));
  const value = valid(schema, rng, { columns: [], rows: [], webhookUrl: '' } as unknown as FuzzIds, name);
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? String(value) : '';
}

function pathFor(op: Operation, ids: FuzzIds, rng: Rng, broken: boolean): string {
  const choose = (list: string[], fallback: string) => (broken && rng.chance(0.3) ? rng.pick(ODD_STRINGS.slice(0, 16)) || '%20' : list.length ? rng.pick(list) : fallback);
  return op.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value =
      name === 'project_id' ? (broken && rng.chance(0.1) ? 'proj_x' : ids.project)
      : name === 'organization_id' ? (broken && rng.chance(0.1) ? 'org_x' : ids.org)
      : name === 'table_id' ? choose(ids.tables, 'tbl_x')
      : name === 'row_id' ? choose(ids.rows, 'row_x')
      : name === 'col_id' ? choose(ids.columns, 'title')
      : name === 'batch_id' ? choose(ids.batches, 'bat_x')
      : name === 'export_id' ? choose(ids.exports, 'exp_x')
      : name === 'template_id' ? choose(ids.templates, 'tpl_x')
      : choose(ids.webhooks, 'whook_x');
    return pathSegment(value);
  });
}

/** Percent-encodes a path segment; a lone surrogate becomes invalid UTF-8 bytes, hostile on purpose. */
function pathSegment(value: string): string {
  try {
    return encodeURIComponent(value);
  } catch {
    return '%ED%A0%80';
  }
}

const UPLOAD = /\/(extract|extract-stream|suggest-schema)$/;

/** One mutated request of a served operation. */
function fromOperation(op: Operation, ids: FuzzIds, rng: Rng): Draft {
  const broken = rng.chance(0.7);
  const params = new URLSearchParams();
  for (const q of op.query) {
    if (rng.chance(broken ? 0.5 : 0.4)) params.set(q.name, queryValue(q.name, q.schema, rng, broken && rng.chance(0.6)));
  }
  if (broken && rng.chance(0.05)) params.append('limit', '5');
  const query = params.size ? `?${params}` : '';
  const draft: Draft = { label: `${op.method} ${op.path}`, method: op.method, path: pathFor(op, ids, rng, broken) + query, headers: {} };
  if (UPLOAD.test(op.path) && op.method === 'POST') {
    const form = new FormData();
    const text = rng.pick(['Title,Amount\nhello,3\n', 'Title: hi\nAmount: 4', '', String(oddValue(rng)), '=1+1,@x\n-2,+3\n']);
    if (rng.chance(0.5)) form.append('text', text);
    else form.append('file', new File([text], rng.pick(['a.csv', 'a.txt', 'a', 'a.pdf', '\u202Ea.csv', 'x'.repeat(400)]), { type: rng.pick(['text/csv', '', 'application/pdf', 'text/plain']) }));
    if (broken) form.append(rng.pick(['schema', 'columns_json', 'instruction', 'url', 'table_name', 'x']), String(JSON.stringify(oddValue(rng))));
    draft.body = form;
    return draft;
  }
  if (op.body) {
    let value = valid(op.body, rng, ids);
    if (broken) value = mutate(value, rng);
    draft.body = JSON.stringify(value);
    draft.headers['content-type'] = broken && rng.chance(0.05) ? rng.pick(['text/plain', 'application/xml', '', 'application/json; charset=utf-16']) : 'application/json';
  }
  if (broken && rng.chance(0.03)) draft.headers['if-match'] = rng.pick(['"x"', '*', 'W/"1"', '']);
  if (broken && rng.chance(0.03)) draft.headers['idempotency-key'] = rng.pick(['k1', '', ' ', 'x'.repeat(300), '\u00ff']);
  return draft;
}

/** A small ZIP with stored central directory; entries are deflated. */
export function zip(files: Record<string, string | Uint8Array>): Uint8Array {
  const encoder = new TextEncoder();
  const locals: Uint8Array[] = [];
  const centrals: Uint8Array[] = [];
  let offset = 0;
  for (const [name, content] of Object.entries(files)) {
    const data = typeof content === 'string' ? encoder.encode(content) : content;
    const packed = deflateRawSync(data, { level: 9 });
    const nameBytes = encoder.encode(name);
    const crc = crc32(data);
    const local = new Uint8Array(30 + nameBytes.length + packed.length);
    const lv = new DataView(local.buffer);
    lv.setUint32(0, 0x04034b50, true);
    lv.setUint16(4, 20, true);
    lv.setUint16(8, 8, true);
    lv.setUint32(14, crc, true);
    lv.setUint32(18, packed.length, true);
    lv.setUint32(22, data.length, true);
    lv.setUint16(26, nameBytes.length, true);
    local.set(nameBytes, 30);
    local.set(packed, 30 + nameBytes.length);
    const central = new Uint8Array(46 + nameBytes.length);
    const cv = new DataView(central.buffer);
    cv.setUint32(0, 0x02014b50, true);
    cv.setUint16(4, 20, true);
    cv.setUint16(6, 20, true);
    cv.setUint16(10, 8, true);
    cv.setUint32(16, crc, true);
    cv.setUint32(20, packed.length, true);
    cv.setUint32(24, data.length, true);
    cv.setUint16(28, nameBytes.length, true);
    cv.setUint32(42, offset, true);
    central.set(nameBytes, 46);
    locals.push(local);
    centrals.push(central);
    offset += local.length;
  }
  const centralSize = centrals.reduce((n, c) => n + c.length, 0);
  const end = new Uint8Array(22);
  const ev = new DataView(end.buffer);
  ev.setUint32(0, 0x06054b50, true);
  ev.setUint16(8, centrals.length, true);
  ev.setUint16(10, centrals.length, true);
  ev.setUint32(12, centralSize, true);
  ev.setUint32(16, offset, true);
  return concat([...locals, ...centrals, end]);
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(data: Uint8Array): number {
  let c = 0xffffffff;
  for (let i = 0; i < data.length; i++) c = CRC_TABLE[(c ^ data[i]!) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** Hostile documents, made once: bombs are costly to build. */
export function hostileDocuments(bombBytes: number) {
  const rowXml = '<row><c t="inlineStr"><is><t>0000000000</t></is></c></row>';
  const sheet = `<?xml version="1.0"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>${rowXml.repeat(Math.ceil(bombBytes / rowXml.length))}</sheetData></worksheet>`;
  const xlsxBomb = zip({
    '[Content_Types].xml': '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/></Types>',
    '_rels/.rels': '<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>',
    'xl/workbook.xml': '<?xml version="1.0"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="S" sheetId="1" r:id="rId1"/></sheets></workbook>',
    'xl/_rels/workbook.xml.rels': '<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>',
    'xl/worksheets/sheet1.xml': sheet,
  });
  const paragraph = '<w:p><w:r><w:t>0000000000</w:t></w:r></w:p>';
  const docxBomb = zip({
    '[Content_Types].xml': '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>',
    '_rels/.rels': '<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>',
    'word/document.xml': `<?xml version="1.0"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>${paragraph.repeat(Math.ceil(bombBytes / paragraph.length))}</w:body></w:document>`,
  });
  const laughs = ['<!ENTITY lol "lol">', ...Array.from({ length: 9 }, (_, i) => `<!ENTITY lol${i + 1} "${`&lol${i || ''};`.repeat(10)}">`)].join('');
  const entityXml = `<?xml version="1.0"?><!DOCTYPE lolz [${laughs}]><lolz>&lol9;</lolz>`;
  const pdfHeader = '%PDF-1.7\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj\n3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 612 792]/Contents 4 0 R>>endobj\n';
  const pdfs = [
    '%PDF-1.4\n',
    pdfHeader,
    `${pdfHeader}4 0 obj<</Length 999999>>stream\nBT /F1 12 Tf (hi) Tj ET\nendstream endobj\ntrailer<</Root 1 0 R>>\n%%EOF`,
    `${pdfHeader}trailer<</Root 1 0 R/Encrypt<</Filter/Standard/V 2/R 3/O(x)/U(y)/P -4>>>>\n%%EOF`,
    `%PDF-1.7\n1 0 obj<</Type/Pages/Kids[1 0 R]/Count 1>>endobj\ntrailer<</Root<</Pages 1 0 R>>>>\n%%EOF`,
    `%PDF-1.7\nxref\n0 999999999\ntrailer<</Size -1>>startxref\n-5\n%%EOF`,
  ];
  return {
    files: [
      { name: 'bomb.xlsx', type: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', bytes: xlsxBomb },
      { name: 'bomb.docx', type: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', bytes: docxBomb },
      { name: 'lol.xml', type: 'application/xml', bytes: new TextEncoder().encode(entityXml) },
      { name: 'lol.html', type: 'text/html', bytes: new TextEncoder().encode(`<!DOCTYPE html [${laughs}]><html><body><table><tr><td>&lol9;</td></tr></table></body></html>`) },
      { name: 'formulas.csv', type: 'text/csv', bytes: new TextEncoder().encode('Title,Amount\n=cmd|\' /C calc\'!A0,@SUM(1)\n+1+1,-2-2\n"=HYPERLINK(""http://x"")",\t=1\n') },
      { name: 'notzip.xlsx', type: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', bytes: new TextEncoder().encode('PK\u0003\u0004garbage') },
      { name: 'nested.json', type: 'application/json', bytes: new TextEncoder().encode('['.repeat(100_000)) },
      { name: 'deep.html', type: 'text/html', bytes: new TextEncoder().encode('<div>'.repeat(50_000)) },
      { name: 'bad.eml', type: 'message/rfc822', bytes: new TextEncoder().encode('Content-Type: multipart/mixed; boundary=x\n\n--x\nContent-Transfer-Encoding: base64\n\n!!!!\n') },
      ...pdfs.map((text, i) => ({ name: `broken${i}.pdf`, type: 'application/pdf', bytes: new TextEncoder().encode(text) })),
      { name: 'gz.csv', type: 'text/csv', bytes: gzipSync(new Uint8Array(bombBytes)) },
    ],
  };
}

type Hostile = ReturnType<typeof hostileDocuments>;

/** A request that is hostile as a whole: bodies, encodings and documents no client should send. */
function hostile(ids: FuzzIds, rng: Rng, docs: Hostile): Draft {
  const table = rng.pick(ids.tables.length ? ids.tables : ['tbl_x']);
  const P = `/v1/projects/${ids.project}`;
  const jsonPaths = [`${P}/tables`, `${P}/tables/${table}`, `${P}/tables/${table}/rows`, `${P}/tables/${table}/rows/bulk`, `${P}/tables/${table}/columns`, `/v1/organizations/${ids.org}/webhooks`, '/v1/table-templates'];
  const json = (label: string, body: string | Uint8Array, headers: Record<string, string> = {}): Draft => ({
    label,
    method: rng.pick(['POST', 'PATCH', 'PUT']),
    path: rng.pick(jsonPaths),
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });
  const upload = (form: FormData | string | Uint8Array, headers: Record<string, string> = {}, label = 'upload'): Draft => ({
    label,
    method: 'POST',
    path: rng.pick([`${P}/tables/${table}/extract`, `${P}/extract`, `${P}/suggest-schema`, `${P}/tables/${table}/extract-stream`]),
    headers,
    body: form,
  });
  switch (rng.int(12)) {
    case 0:
      return json('deeply nested JSON', '['.repeat(rng.pick([1000, 100_000])) + ']'.repeat(rng.int(3)));
    case 1:
      return json('deeply nested object', '{"a":'.repeat(20_000) + '1' + '}'.repeat(20_000));
    case 2:
      return json('broken JSON', rng.pick(['{', '{"name":', '{"name":"x",}', '\u0000', '{"a":1}{"b":2}', '\uFEFF{}', 'nul', '"\\ud800"', '{"a":1e99999}', '[1,2', '{"name":"\\u00"}']));
    case 3:
      return json('huge numbers', `{"name":"t","columns_json":[{"id":"a","name":"A"}],"amount":${rng.pick(['1e400', '-1e400', '1' + '0'.repeat(400), '0.' + '0'.repeat(400) + '1', '-0'])}}`);
    case 4:
      return json('invalid UTF-8', new Uint8Array([0x7b, 0x22, 0x6e, 0x61, 0x6d, 0x65, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0xc3, 0x22, 0x7d]));
    case 5:
      return json('gzip body', gzipSync(new TextEncoder().encode('{"name":"x"}')), { 'content-encoding': 'gzip' });
    case 6:
      return upload('--x\r\nContent-Disposition: form-data; name="file"; filename="a.csv"\r\n\r\nA,B\n1,2', { 'content-type': 'multipart/form-data' }, 'multipart without boundary');
    case 7:
      return upload('--x\r\nContent-Disposition: form-data; name="file"; filename="a.csv"\r\n\r\n' + 'A,B\n1,2\n'.repeat(1000), { 'content-type': 'multipart/form-data; boundary=x' }, 'endless part');
    case 8: {
      const form = new FormData();
      for (let i = 0; i < 3000; i++) form.append(i % 2 ? 'text' : 'file', i % 2 ? 'A\n1' : new File(['A\n1'], `f${i}.csv`));
      return upload(form, {}, 'thousands of parts');
    }
    case 9:
      return upload(
        `--x\r\nContent-Disposition: form-data; name="file"; filename="${rng.pick(ODD_STRINGS.slice(0, 12))}"\r\nContent-Type: ${rng.pick(['text/csv', '', ';;;', 'x/y; charset=nope'])}\r\n\r\nA\n1\r\n--x--\r\n`,
        { 'content-type': 'multipart/form-data; boundary=x' },
        'odd part headers',
      );
    default: {
      const doc = rng.pick(docs.files);
      const form = new FormData();
      form.append('file', new File([doc.bytes], doc.name, { type: doc.type }));
      return upload(form, {}, `hostile document ${doc.name}`);
    }
  }
}

function operationsOf(document: any): Operation[] {
  const ops: Operation[] = [];
  for (const [path, methods] of Object.entries<any>(document.paths)) {
    if (!path.startsWith('/v1/')) continue;
    for (const [method, spec] of Object.entries<any>(methods)) {
      ops.push({
        method: method.toUpperCase(),
        path,
        query: (spec.parameters ?? []).filter((p: any) => p.in === 'query').map((p: any) => ({ name: p.name, schema: p.schema })),
        body: spec.requestBody?.content?.['application/json']?.schema,
      });
    }
  }
  return ops;
}

function describeBody(body: Draft['body']): string {
  if (body === undefined) return '';
  if (typeof body === 'string') return body.length > 300 ? `${body.slice(0, 300)}... (${body.length} chars)` : body;
  if (body instanceof Uint8Array) return `<${body.length} bytes>`;
  const names = [...body.keys()];
  return `<multipart: ${names.length} parts: ${[...new Set(names)].join(', ')}>`;
}

function envelopeProblem(status: number, text: string): string | null {
  if (status < 400 || status >= 500) return null;
  try {
    const body = JSON.parse(text);
    const ok =
      body.success === false && body.status === status && typeof body.error_key === 'string' && typeof body.status_key === 'string' &&
      typeof body.message === 'string' && typeof body.fields === 'object' && body.fields !== null;
    return ok ? null : `4xx without the error envelope: ${text.slice(0, 200)}`;
  } catch {
    return `4xx answered with non-JSON: ${text.slice(0, 200)}`;
  }
}

/** Runs the fuzzer: `send` answers one request (in process or over HTTP). */
export async function runFuzz(send: Send, document: any, ids: FuzzIds, options: FuzzOptions, refresh?: () => Promise<void>): Promise<FuzzReport> {
  const operations = operationsOf(document);
  const docs = hostileDocuments(options.bombBytes);
  docs.files = docs.files.filter((f) => !options.skipDocuments?.includes(f.name));
  const report: FuzzReport = { requests: 0, statuses: {}, failures: [], hangs: 0, slowestMs: 0, slowest: [] };
  let next = 0;
  const worker = async () => {
    for (;;) {
      const at = next++;
      if (at >= (options.only?.length ?? options.requests)) return;
      const index = options.only ? options.only[at]! : at;
      // Each request has its own seed, so one failing request can be made again alone.
      const rng = random(options.seed * 1_000_003 + index);
      const draft = rng.chance(options.hostileShare ?? 0.15) ? hostile(ids, rng, docs) : fromOperation(rng.pick(operations), ids, rng);
      const headers = { authorization: `ApiKey ${options.key}`, ...draft.headers };
      const url = options.baseUrl + draft.path;
      const started = performance.now();
      let problem: string | null = null;
      let timer: ReturnType<typeof setTimeout> | undefined;
      try {
        const deadline = new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error('hang')), options.deadlineMs);
        });
        const answer = await Promise.race([
          (async () => {
            const response = await send(new Request(url, { method: draft.method, headers, body: draft.body }));
            return { status: response.status, text: await response.text() };
          })(),
          deadline,
        ]);
        report.statuses[answer.status] = (report.statuses[answer.status] ?? 0) + 1;
        if (answer.status >= 500) problem = `answered ${answer.status}: ${answer.text.slice(0, 200)}`;
        else problem = envelopeProblem(answer.status, answer.text);
      } catch (error) {
        if ((error as Error).message === 'hang') {
          report.hangs++;
          problem = `no answer within ${options.deadlineMs} ms`;
        } else problem = `request failed: ${(error as Error).message}`;
      } finally {
        clearTimeout(timer);
      }
      const ms = performance.now() - started;
      report.slowestMs = Math.max(report.slowestMs, ms);
      if (report.slowest.length < 10 || ms > report.slowest[9]!.ms) {
        report.slowest = [...report.slowest, { ms: Math.round(ms), label: draft.label }].sort((x, y) => y.ms - x.ms).slice(0, 10);
      }
      report.requests++;
      if (problem) {
        report.failures.push({ seed: options.seed, index, label: draft.label, method: draft.method, url, body: describeBody(draft.body), problem });
      }
      if (refresh && index % 500 === 499) await refresh();
      options.progress?.(report.requests);
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, worker));
  return report;
}

export function formatFailure(f: FuzzFailure): string {
  const url = f.url.length > 300 ? `${f.url.slice(0, 300)}... (${f.url.length} chars)` : f.url;
  return `seed ${f.seed} request #${f.index} (${f.label}): ${f.problem}\n  ${f.method} ${url}\n  body: ${f.body}`;
}

/** The fixtures the fuzzer aims at, made over HTTP so both the test and the bench use it. */
export async function seedFixtures(send: Send, baseUrl: string, key: string, project: string, org: string, webhookUrl: string, ids?: FuzzIds): Promise<FuzzIds> {
  const call = async (method: string, path: string, body?: unknown, form?: FormData) => {
    const response = await send(
      new Request(baseUrl + path, {
        method,
        headers: { authorization: `ApiKey ${key}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
        body: form ?? (body !== undefined ? JSON.stringify(body) : undefined),
      }),
    );
    return { status: response.status, body: (await response.json().catch(() => null)) as any };
  };
  const out: FuzzIds = ids ?? { project, org, tables: [], rows: [], columns: ['title', 'amount', 'when', 'tags', 'paid'], batches: [], exports: [], webhooks: [], templates: [], webhookUrl };
  const P = `/v1/projects/${project}`;
  const table = await call('POST', `${P}/tables`, {
    name: `Fuzz ${Date.now()}`,
    columns_json: [
      { id: 'title', name: 'Title' },
      { id: 'amount', name: 'Amount', type: 'number' },
      { id: 'when', name: 'When', type: 'date' },
      { id: 'tags', name: 'Tags', type: 'multi_select', options: ['a', 'b'] },
      { id: 'paid', name: 'Paid', type: 'boolean' },
    ],
  });
  if (table.status !== 201) throw new Error(`fixture table: ${table.status} ${JSON.stringify(table.body)}`);
  out.tables = [table.body.id, ...out.tables].slice(0, 4);
  const bulk = await call('POST', `${P}/tables/${table.body.id}/rows/bulk`, {
    creates: Array.from({ length: 20 }, (_, i) => ({ title: `hello ${i}`, amount: i, when: '2024-01-02', tags: ['a'], paid: i % 2 === 0 })),
  });
  out.rows = [...(bulk.body?.created ?? []).map((r: { id: string }) => r.id), ...out.rows].slice(0, 40);
  const form = new FormData();
  form.append('file', new File(['Title,Amount\n=1+1,3\nhello,4\n'], 'fix.csv', { type: 'text/csv' }));
  const batch = await call('POST', `${P}/tables/${table.body.id}/extract`, undefined, form);
  if (batch.body?.batch_id) out.batches = [batch.body.batch_id, ...out.batches].slice(0, 4);
  const exported = await call('GET', `${P}/tables/${table.body.id}/export?format=csv`);
  if (exported.body?.id) out.exports = [exported.body.id, ...out.exports].slice(0, 4);
  if (!out.webhooks.length) {
    const webhook = await call('POST', `/v1/organizations/${org}/webhooks`, { url: webhookUrl, events: ['ping'] });
    if (webhook.body?.id) out.webhooks.push(webhook.body.id);
  }
  if (!out.templates.length) {
    const template = await call('POST', '/v1/table-templates', { name: 'Fuzz template', category: 'fuzz', columns_json: [{ id: 'title', name: 'Title' }] });
    if (template.body?.id) out.templates.push(template.body.id, 'tpl_invoices');
  }
  return out;
}
