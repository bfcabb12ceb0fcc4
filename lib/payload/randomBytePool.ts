// Random bytes for job ids. randomBytes() costs about 1.5µs a call whatever the size, nearly all of it the
// trip into OpenSSL, which was a tenth of a payload's cost; one fill of this pool serves some 200 ids.
// Every byte is handed out once, so ids stay as unpredictable as the CSPRNG itself.
import { randomFillSync } from 'crypto';

const POOL_BYTES = 8192;
const pool = Buffer.allocUnsafe(POOL_BYTES);
let next = POOL_BYTES;

/** One uniformly random byte (0..255) from the CSPRNG. */
export function randomByte(): number {
  if (next === POOL_BYTES) {
    randomFillSync(pool);
    next = 0;
  }
  return pool[next++];
}
