// The failed-job stores key records by the payload's uuid. The payload is decoded only to read that
// field; the stored text is always the original string (or bytes), never a re-encoding.
import { isUtf8 } from 'buffer';
import { randomUUID } from 'crypto';
import { InvalidPayloadError } from '../errors';
import { phpJsonDecode } from '../payload/json';

/** The payload's top-level `uuid` as text, or null when the payload is not a JSON object or has none. */
export function payloadUuid(payload: string | Buffer): string | null {
  let decoded: unknown;
  try {
    // A uuid is ASCII: decoding invalid UTF-8 elsewhere in the bytes to U+FFFD cannot change it.
    decoded = phpJsonDecode(typeof payload === 'string' ? payload : payload.toString('utf8'));
  } catch {
    return null;
  }
  if (typeof decoded !== 'object' || decoded === null || Array.isArray(decoded)) return null;
  const uuid = (decoded as Record<string, unknown>).uuid;
  // PHP would store a numeric uuid as its decimal text; anything else (array, bool, null) is no uuid.
  if (typeof uuid === 'string') return uuid;
  if (typeof uuid === 'number' || typeof uuid === 'bigint') return String(uuid);
  return null;
}

/** The payload's uuid, or a generated one for a payload without (a raw job from another producer): a record is never refused for it. */
export function recordUuid(payload: string | Buffer): string {
  return payloadUuid(payload) ?? randomUUID();
}

/**
 * The payload as a store whose text column or file must hold valid UTF-8 takes it: the text, or an
 * InvalidPayloadError when the bytes are not valid UTF-8 (storing them would change them).
 */
export function utf8Payload(payload: string | Buffer, store: string): string {
  if (typeof payload === 'string') return payload;
  if (!isUtf8(payload)) {
    throw new InvalidPayloadError(
      `${store} cannot hold this payload byte for byte: it is not valid UTF-8`,
      payload.toString('utf8'),
    );
  }
  return payload.toString('utf8');
}
