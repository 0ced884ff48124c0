/** Prefixed lowercase ULIDs: sortable by creation time, unguessable in their last 80 bits. */
import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

let lastTime = -1;
let lastTimeText = '';
let lastRandom: number[] = [];

function encodeTime(time: number): string {
  let out = '';
  for (let i = 0; i < 10; i++) {
    out = ALPHABET[time % 32] + out;
    time = Math.floor(time / 32);
  }
  return out;
}

/** Monotonic within one millisecond: the random part is incremented so ids keep their order. */
export function ulid(time: number = Date.now()): string {
  if (time === lastTime) {
    let i = lastRandom.length - 1;
    while (i >= 0 && lastRandom[i] === 31) lastRandom[i--] = 0;
    if (i >= 0) lastRandom[i]!++;
  } else {
    const bytes = randomBytes(16);
    lastRandom = Array.from({ length: 16 }, (_, i) => bytes[i]! & 31);
    lastTime = time;
    lastTimeText = encodeTime(time);
  }
  let random = '';
  for (const n of lastRandom) random += ALPHABET[n];
  return lastTimeText + random;
}

export type IdPrefix =
  | 'org' | 'proj' | 'key' | 'tbl' | 'row' | 'whook' | 'whdlv' | 'msg'
  | 'batch' | 'extr' | 'exprt' | 'ttmpl' | 'req' | 'exmp';

/** Longer than any id this service makes or accepts, and short enough to be an LMDB key in any index. */
export const MAX_ID_LENGTH = 512;

export function newId(prefix: IdPrefix, time?: number): string {
  return `${prefix}_${ulid(time)}`;
}

/** Sorts before every id of that prefix made at or after `time`: a range bound for time-ordered keys. */
export function idTimeBound(prefix: IdPrefix, time: number): string {
  return `${prefix}_${encodeTime(time)}`;
}
