/**
 * Upload bodies (JSON, multipart or urlencoded) as plain documents and fields, for extract and
 * suggest-schema. Form fields are turned into the JSON body they stand for and checked against the
 * same shape, so a request gets the same answer, and the same errors, whichever encoding carried it.
 */
import { t, type TSchema } from 'elysia';
import type { SourceDocument } from '../extract';
import { ApiError, invalidFields } from '../lib/errors';
import { checkShape } from './errors';

export interface UploadInput {
  documents: SourceDocument[];
  text: string | null;
  url: string | null;
  /** The `schema` field, checked against the body shape's `schema`. */
  schema: unknown;
}

/** Form fields that carry files: `file` as the reference names it, repeated for several, or `files`. */
const FILE_FIELDS = ['file', 'files'];

/** Text fields of the JSON body; `schema` is a JSON object there and a JSON string in a form. */
const TEXT_FIELDS = ['text', 'url', 'schema'];

async function formDocuments(form: FormData): Promise<SourceDocument[]> {
  const documents: SourceDocument[] = [];
  for (const name of FILE_FIELDS) {
    for (const part of form.getAll(name)) {
      // A string here is most often a file path or link an assistant passed where bytes belong.
      if (typeof part === 'string') {
        throw invalidFields([{ path: name, error_key: 'invalid', message: 'must be a file sent as multipart/form-data; to pass a link, use the url field' }]);
      }
      documents.push({ name: part.name || 'upload', contentType: part.type, bytes: new Uint8Array(await part.arrayBuffer()) });
    }
  }
  return documents;
}

/** The JSON body a form's text fields stand for. A field sent twice has no single JSON value: 400. */
function formBody(form: FormData, acceptsSchema: boolean): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const name of TEXT_FIELDS) {
    if (name === 'schema' && !acceptsSchema) continue;
    const values = form.getAll(name);
    if (values.length === 0) continue;
    if (values.length > 1) throw invalidFields([{ path: name, error_key: 'invalid', message: `sent ${values.length} times; send it once` }]);
    const value = values[0]!;
    if (typeof value !== 'string') throw invalidFields([{ path: name, error_key: 'invalid', message: 'must be a text field, not a file' }]);
    if (name !== 'schema') {
      body[name] = value;
      continue;
    }
    try {
      body.schema = JSON.parse(value);
    } catch {
      throw new ApiError(400, 'invalid_input', 'schema: not valid JSON', { schema: [{ error_key: 'invalid_json', message: 'not valid JSON', path: 'schema' }] });
    }
  }
  return body;
}

/**
 * Documents and fields out of a JSON body (checked against `jsonShape`) or a form (its text fields
 * checked against the same shape; a field the JSON body requires may be left out when files come).
 */
export async function uploadInput(body: unknown, jsonShape: TSchema): Promise<UploadInput> {
  const acceptsSchema = 'schema' in ((jsonShape as { properties?: object }).properties ?? {});
  if (body === null || body === undefined) return { documents: [], text: null, url: null, schema: null };
  let fields: unknown = body;
  let documents: SourceDocument[] = [];
  if (body instanceof FormData) {
    documents = await formDocuments(body);
    fields = formBody(body, acceptsSchema);
    checkShape(documents.length ? t.Partial(jsonShape) : jsonShape, fields, '');
  } else {
    checkShape(jsonShape, fields, '');
  }
  const json = fields as { text?: string; url?: string; schema?: unknown };
  return { documents, text: json.text ?? null, url: json.url ?? null, schema: acceptsSchema ? (json.schema ?? null) : null };
}
