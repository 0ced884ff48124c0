/**
 * Request bodies: JSON only (uploads add multipart on their own routes), read with a size cap that
 * holds for chunked bodies too. Malformed JSON is 400, anything else 415, too large 413.
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

export function isJson(contentType: string): boolean {
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  return type === 'application/json' || type.endsWith('+json');
}

export function jsonBody(maxBodyBytes: number) {
  return new Elysia({ name: 'json-body' }).onParse({ as: 'global' }, async ({ request, contentType }) => {
    const bytes = await readLimited(request, maxBodyBytes);
    if (bytes.byteLength === 0) return null;
    if (!isJson(contentType ?? '')) {
      throw new ApiError(415, 'unsupported_media_type', 'Send the request body as application/json');
    }
    try {
      return JSON.parse(new TextDecoder().decode(bytes));
    } catch {
      throw new ApiError(400, 'invalid_input', 'The request body is not valid JSON', {
        body: [{ error_key: 'invalid_json', message: 'not valid JSON', path: 'body' }],
      });
    }
  });
}
