/**
 * The secret that signs cursors, on PostgreSQL: made once by the first node to start, and shared by
 * every node, so a cursor one node gave is good on all of them. Meta values are JSON there, so it
 * is kept as base64 text (LMDB keeps the bytes).
 */
import { randomBytes } from 'node:crypto';
import type { StorePort } from '../port';

const NAME = 'server_secret';

export async function serverSecret(port: StorePort): Promise<Buffer> {
  const existing = await port.meta.get<string>(NAME);
  if (existing) return Buffer.from(existing, 'base64');
  // Nodes starting together both find none: the serializable transaction lets one of them write it,
  // and the other's try runs again and reads it.
  return port.transaction(async (tx) => {
    const again = await tx.meta.get<string>(NAME);
    if (again) return Buffer.from(again, 'base64');
    const secret = randomBytes(32);
    await tx.meta.put(NAME, secret.toString('base64'));
    return secret;
  });
}
