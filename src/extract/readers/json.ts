/**
 * JSON and NDJSON: an array of objects, or an object holding one (the largest found), or a single
 * object. Nested objects are flattened to dotted names (`customer.email`); arrays of plain values stay arrays.
 */
import { decodeText, UnreadableDocument, type RecordGroup, type SourceDocument, type SourceRecord } from '../document';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export function flatten(value: Record<string, unknown>, prefix = '', out: SourceRecord = {}): SourceRecord {
  for (const [key, v] of Object.entries(value)) {
    const name = prefix ? `${prefix}.${key}` : key;
    if (isObject(v)) flatten(v, name, out);
    else out[name] = v;
  }
  return out;
}

/** Arrays of objects anywhere in the value, with their paths, largest first. */
function objectArrays(value: unknown, path: string, found: Array<{ path: string; items: Record<string, unknown>[] }>, depth = 0): void {
  if (depth > 6) return;
  if (Array.isArray(value)) {
    const objects = value.filter(isObject);
    if (objects.length > 0 && objects.length >= value.length / 2) found.push({ path, items: objects });
    return;
  }
  if (isObject(value)) for (const [k, v] of Object.entries(value)) objectArrays(v, path ? `${path}.${k}` : k, found, depth + 1);
}

export function readJson(doc: SourceDocument, ndjson: boolean): RecordGroup[] {
  const text = decodeText(doc.bytes);
  if (!text.trim()) throw new UnreadableDocument('the file is empty');
  let value: unknown;
  try {
    value = ndjson
      ? text.split(/\r?\n/).filter((l) => l.trim()).map((l) => JSON.parse(l))
      : JSON.parse(text);
  } catch (error) {
    throw new UnreadableDocument(`not valid ${ndjson ? 'NDJSON' : 'JSON'}: ${(error as Error).message}`);
  }
  const arrays: Array<{ path: string; items: Record<string, unknown>[] }> = [];
  objectArrays(value, '', arrays);
  arrays.sort((a, b) => b.items.length - a.items.length);
  const groups = arrays.map((a) => ({ label: a.path || 'items', records: a.items.map((item) => flatten(item)) }));
  if (isObject(value)) groups.push({ label: 'object', records: [flatten(value)] });
  return groups;
}
