/** Upload bodies (multipart or JSON) as plain documents and fields, for extract and suggest-schema. */
import type { TSchema } from 'elysia';
import type { SourceDocument } from '../extract/document';
import { ApiError } from '../lib/errors';
import { checkShape } from './errors';

export interface UploadInput {
  documents: SourceDocument[];
  text: string | null;
  url: string | null;
  /** The `schema` field, parsed and checked against `schemaShape`. */
  schema: unknown;
}

/** Documents and fields out of multipart (`file` parts, `text`, `url`, `schema` as JSON) or JSON (checked against `jsonShape`). */
export async function uploadInput(body: unknown, jsonShape: TSchema, schemaShape: TSchema | null): Promise<UploadInput> {
  if (body instanceof FormData) {
    const documents: SourceDocument[] = [];
    for (const part of [...body.getAll('file'), ...body.getAll('files')]) {
      if (typeof part === 'string') continue;
      documents.push({ name: part.name || 'upload', contentType: part.type, bytes: new Uint8Array(await part.arrayBuffer()) });
    }
    const field = (name: string) => {
      const value = body.get(name);
      return typeof value === 'string' ? value : null;
    };
    let schema: unknown = null;
    const schemaText = schemaShape ? field('schema') : null;
    if (schemaText) {
      try {
        schema = JSON.parse(schemaText);
      } catch {
        throw new ApiError(400, 'invalid_input', 'schema: not valid JSON', { schema: [{ error_key: 'invalid_json', message: 'not valid JSON', path: 'schema' }] });
      }
      checkShape(schemaShape!, schema, 'schema');
    }
    return { documents, text: field('text'), url: field('url'), schema };
  }
  if (body === null || body === undefined) return { documents: [], text: null, url: null, schema: null };
  checkShape(jsonShape, body, '');
  const json = body as { text?: string; url?: string; schema?: unknown };
  return { documents: [], text: json.text ?? null, url: json.url ?? null, schema: json.schema ?? null };
}
