/**
 * Opaque keyset cursors: `v1.<base64url payload>.<signature>`. The payload holds the sort values
 * and id of the last item sent and a hash of the order, filter and q it belongs to; the HMAC (with a
 * secret kept in the store) means a cursor cannot be forged or edited.
 */
import { hmacBase64url, safeEqual, sha256Hex } from '../lib/crypto';
import { queryError } from './errors';

export type CursorValue = string | number | boolean | null;

export interface CursorPosition {
  values: CursorValue[];
  id: string;
}

export class CursorCodec {
  constructor(private readonly secret: Uint8Array) {}

  static binding(parts: { resource: string; order: string; filter: string; q: string }): string {
    return sha256Hex(JSON.stringify([parts.resource, parts.order, parts.filter, parts.q])).slice(0, 16);
  }

  encode(binding: string, position: CursorPosition): string {
    const payload = Buffer.from(JSON.stringify({ b: binding, v: position.values, i: position.id })).toString('base64url');
    return `v1.${payload}.${hmacBase64url(this.secret, payload)}`;
  }

  decode(cursor: string, binding: string): CursorPosition {
    const [version, payload, signature] = cursor.split('.');
    if (version !== 'v1' || !payload || !signature || !safeEqual(signature, hmacBase64url(this.secret, payload))) {
      throw queryError('cursor', 'not a cursor this server issued; pass nextCursor from a previous page unchanged');
    }
    const data = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { b: string; v: CursorValue[]; i: string };
    if (data.b !== binding) {
      throw queryError('cursor', 'this cursor belongs to another order, filter or q; send the same ones as the page it came from');
    }
    return { values: data.v, id: data.i };
  }
}
