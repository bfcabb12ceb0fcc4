// Random bytes for job ids and uuids. randomBytes() costs about 1.5µs a call whatever the size, nearly all of
// it the trip into OpenSSL, which was a tenth of a payload's cost; one fill of this pool serves some 200
// ids. Every byte is handed out once, so ids stay as unpredictable as the CSPRNG itself.
import { randomFillSync } from 'crypto';

const POOL_BYTES = 8192;
/** The pool itself: read only the bytes reserveRandomBytes() hands out, before asking again. */
export const randomPool = Buffer.allocUnsafe(POOL_BYTES);
let next = POOL_BYTES;

/** One uniformly random byte (0..255) from the CSPRNG. */
export function randomByte(): number {
  if (next === POOL_BYTES) refill();
  return randomPool[next++];
}

/** Reserve `n` (at most 8192) fresh random bytes: randomPool[at, at + n), for the returned `at`. */
export function reserveRandomBytes(n: number): number {
  // the few bytes left at the end are dropped, never handed out
  if (POOL_BYTES - next < n) refill();
  const at = next;
  next += n;
  return at;
}

function refill(): void {
  randomFillSync(randomPool);
  next = 0;
}
