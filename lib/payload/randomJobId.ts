// Laravel's Str::random(32), which RedisQueue uses as a job's Redis id: letters and digits, each equally
// likely, from the CSPRNG. One job id is drawn per push, so random bytes are fetched in blocks rather
// than one call into the CSPRNG per id; every byte is used once, so ids are as unpredictable as the source.
import { randomFillSync } from 'crypto';

const ALPHABET = Buffer.from('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789', 'latin1');

/** Random bytes handed out one at a time from a block refilled when used up. */
class RandomByteSource {
  private readonly block = Buffer.allocUnsafe(4096);
  private next = this.block.length;

  /** One uniformly random byte (0..255). */
  byte(): number {
    if (this.next === this.block.length) {
      randomFillSync(this.block);
      this.next = 0;
    }
    return this.block[this.next++];
  }
}

const source = new RandomByteSource();
/** Where an id's letters are written before being read back as one string (ids longer than this get their own). */
const scratch = Buffer.allocUnsafe(64);

/** Laravel's `Str::random(length)` alphabet and distribution ([A-Za-z0-9]); default 32, the job id's length. */
export function randomJobId(length: number = 32): string {
  const chars = length <= scratch.length ? scratch : Buffer.allocUnsafe(length);
  let n = 0;
  while (n < length) {
    const byte = source.byte();
    // 248 = 4 * 62: dropping the bytes above keeps every character equally likely
    if (byte < 248) chars[n++] = ALPHABET[byte % 62];
  }
  return chars.toString('latin1', 0, length);
}
