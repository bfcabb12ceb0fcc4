// The UUIDs Laravel writes, made with the `uuid` package: a payload's `uuid` (Str::uuid, version 4), a
// batch id (Str::orderedUuid) and the check the CLI applies to failed-job IDs.
import { randomBytes } from 'crypto';
import { validate, v4 } from 'uuid';
import { systemClock, type Clock } from './clock';

/** A random version 4 UUID in lower case, as Str::uuid() writes a payload's `uuid`. */
export function randomUuid(): string {
  return v4();
}

/**
 * Laravel's Str::orderedUuid() (8.x-13.x, ramsey/uuid's timestamp-first COMB): a version 4 UUID whose
 * first 48 bits are the time in units of 10 microseconds (microtime's seconds and five decimals), so ids
 * made later sort later as text; the rest is random apart from the version and variant bits.
 */
export function orderedUuid(clock: Clock = systemClock): string {
  const bytes = randomBytes(16);
  bytes.writeUIntBE(Math.floor(clock.nowMs() * 100), 0, 6);
  return v4({ random: bytes });
}

/** Whether `text` is a UUID in its 36-character form (any version, either case). */
export function isUuid(text: string): boolean {
  return validate(text);
}
