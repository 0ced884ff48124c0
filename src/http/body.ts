/**
 * Request bodies: JSON, and on the upload routes multipart/form-data and
 * application/x-www-form-urlencoded too, read with a size cap that holds for chunked bodies too.
 * Malformed JSON is 400, anything else 415, too large 413. U+0000 in a URL, a JSON string or a form's
 * text field is 400 on both stores: PostgreSQL text cannot hold it, and no API value means it.
 */
import { Elysia } from 'elysia';
import { ApiError } from '../lib/errors';

export async function readLimited(request: Request, limit: number): Promise<Uint8Array> {
  if (!request.body) return new Uint8Array();
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge(limit);
    }
    chunks.push(value);
  }
  const out = new Uint8Array(total);
  let offset = 0;
  for (const c of chunks) {
    out.set(c, offset);
    offset += c.byteLength;
  }
  return out;
}

export function tooLarge(limit: number): ApiError {
  return new ApiError(413, 'content_too_large', `Request body is larger than the limit of ${limit} bytes`);
}

const mediaType = (contentType: string) => contentType.split(';')[0]!.trim().toLowerCase();

export function isJson(contentType: string): boolean {
  const type = mediaType(contentType);
  return type === 'application/json' || type.endsWith('+json');
}

/**
 * Routes that take form fields: JSON, multipart/form-data (the only way to send files) and
 * urlencoded, which the official SDK sends whenever a request carries text fields and no file.
 */
const UPLOAD_ROUTE = /\/(extract|extract-stream|suggest-schema)$/;

/** The fields of a urlencoded body as FormData, so both form encodings go through one reader. */
function urlencodedForm(bytes: Uint8Array): FormData {
  const form = new FormData();
  for (const [name, value] of new URLSearchParams(new TextDecoder().decode(bytes))) form.append(name, value);
  return form;
}

/**
 * No request of the API nests anywhere near this deep; a deeper body costs time and memory that
 * grow with the square of its depth when validation reports it (the reported value is indented).
 */
export const MAX_JSON_DEPTH = 64;

/** Whether JSON text nests arrays and objects deeper than `limit`, in one pass (strings skipped). */
export function nestingExceeds(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > limit) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

/** The path of the first string or key holding U+0000 in a parsed JSON value (`creates[3].name`), or null. */
function nulPath(value: unknown, path = ''): string | null {
  if (typeof value === 'string') return value.includes('\u0000') ? path || 'body' : null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = nulPath(value[i], `${path}[${i}]`);
      if (found !== null) return found;
    }
  } else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      const at = path ? `${path}.${key}` : key;
      const found = key.includes('\u0000') ? at : nulPath(item, at);
      if (found !== null) return found;
    }
  }
  return null;
}

function nulRefused(path: string): ApiError {
  return new ApiError(400, 'invalid_input', `${path}: holds U+0000 (a NUL character), which no text value may hold`, {
    [path]: [{ error_key: 'invalid_character', message: 'holds U+0000 (a NUL character), which no text value may hold', path }],
  });
}

/** A form's text fields must be free of U+0000 as JSON strings are; files are documents, whose values extraction cleans. */
function checkedForm<F extends { forEach(each: (value: unknown, name: string) => void): void }>(form: F): F {
  form.forEach((value, name) => {
    if (typeof value === 'string' && value.includes('\u0000')) throw nulRefused(name);
  });
  return form;
}

export function jsonBody(maxBodyBytes: number, maxUploadBytes: number) {
  return new Elysia({ name: 'json-body' })
    .onTransform({ as: 'global' }, ({ request }) => {
      // A URL carries U+0000 only percent-encoded; path parameters and query values would take it to the store.
      if (request.url.includes('%00')) throw nulRefused('url');
    })
    .onParse({ as: 'global' }, async ({ request, contentType }) => {
      const upload = UPLOAD_ROUTE.test(new URL(request.url).pathname);
      if (upload && (contentType ?? '').toLowerCase().startsWith('multipart/form-data')) {
        const bytes = await readLimited(request, maxUploadBytes);
        // Elysia's contentType drops the boundary; the header has it.
        const form = await new Response(bytes, { headers: { 'content-type': request.headers.get('content-type') ?? '' } }).formData().catch(() => {
          throw new ApiError(400, 'invalid_input', 'The multipart body could not be read', {
            body: [{ error_key: 'invalid_multipart', message: 'not valid multipart/form-data', path: 'body' }],
          });
        });
        return checkedForm(form);
      }
      const bytes = await readLimited(request, maxBodyBytes);
      if (bytes.byteLength === 0) return null;
      if (upload && mediaType(contentType ?? '') === 'application/x-www-form-urlencoded') return checkedForm(urlencodedForm(bytes));
      if (!isJson(contentType ?? '')) {
        const hint = upload ? 'application/json, multipart/form-data or application/x-www-form-urlencoded' : 'application/json';
        throw new ApiError(415, 'unsupported_media_type', `Send the request body as ${hint}`);
      }
      const text = new TextDecoder().decode(bytes);
      if (nestingExceeds(text, MAX_JSON_DEPTH)) {
        throw new ApiError(400, 'invalid_input', `The request body is nested deeper than ${MAX_JSON_DEPTH} levels`, {
          body: [{ error_key: 'too_deep', message: `nested deeper than ${MAX_JSON_DEPTH} levels`, path: 'body' }],
        });
      }
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        throw new ApiError(400, 'invalid_input', 'The request body is not valid JSON', {
          body: [{ error_key: 'invalid_json', message: 'not valid JSON', path: 'body' }],
        });
      }
      // JSON text holds U+0000 only as this escape (a raw one is not valid JSON), so most bodies are never walked.
      const nul = text.includes('\\u0000') ? nulPath(parsed) : null;
      if (nul !== null) throw nulRefused(nul);
      return parsed;
    });
}
