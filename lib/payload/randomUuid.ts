// Version 4 UUIDs (122 random bits, version 4, variant 10xx), the payload's `uuid`, as crypto.randomUUID()
// makes them but from the pooled random bytes. randomUUID() joins 20 short strings into a rope that each
// payload then walks again; this one is written as ASCII into a buffer and read back as one flat string.
import { randomPool, reserveRandomBytes } from './randomBytePool';

const HEX = Buffer.from('0123456789abcdef', 'latin1');
const TEXT = Buffer.alloc(36, '-');
/** Where each of the 16 bytes' two hex digits go, around the dashes at 8, 13, 18 and 23. */
const DIGITS_AT = [0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34];

/** A random v4 UUID in lower case, `xxxxxxxx-xxxx-4xxx-[89ab]xxx-xxxxxxxxxxxx`. */
export function randomUuid(): string {
  const at = reserveRandomBytes(16);
  for (let i = 0; i < 16; i++) {
    let byte = randomPool[at + i];
    if (i === 6) byte = (byte & 0x0f) | 0x40;
    else if (i === 8) byte = (byte & 0x3f) | 0x80;
    const d = DIGITS_AT[i];
    TEXT[d] = HEX[byte >> 4];
    TEXT[d + 1] = HEX[byte & 0x0f];
  }
  return TEXT.toString('latin1');
}
