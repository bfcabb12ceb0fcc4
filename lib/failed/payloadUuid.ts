// The failed-job stores key records by the payload's uuid. The payload is decoded only to read that
// field; the stored text is always the original string, never a re-encoding.
import { phpJsonDecode } from '../payload/json';

/** The payload's top-level `uuid` as text, or null when the payload is not a JSON object or has none. */
export function payloadUuid(payload: string): string | null {
  let decoded: unknown;
  try {
    decoded = phpJsonDecode(payload);
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
