// Small helpers for reading and rewriting the properties of a PHP job object without disturbing the
// others: every property keeps its position, visibility and bytes unless it is the one being set.
import { PhpArray, PhpBytes, PhpObject, type PhpValue } from '../php/values';

/** A copy of `object` with `name` set to `value`: in place when present, else appended as public. */
export function withProperty(object: PhpObject, name: string, value: PhpValue): PhpObject {
  const index = object.properties.findIndex((p) => p.name === name);
  const properties = [...object.properties];
  if (index === -1) properties.push({ name, visibility: 'public', value });
  else properties[index] = { ...properties[index], value };
  return new PhpObject(object.className, properties);
}

/** True for what PHP's `?:` treats as truthy among the values a Queueable property holds. */
export function truthy(v: PhpValue | undefined): boolean {
  if (v === undefined || v === null || v === false) return false;
  if (v === '' || v === '0') return false;
  if (typeof v === 'bigint') return v !== 0n;
  if (typeof v === 'number') return v !== 0;
  if (v instanceof PhpArray) return v.size > 0;
  return true;
}

/** A PHP string value as the input unserialize() accepts (raw bytes kept). */
export function serializedInput(v: PhpValue | undefined): string | Buffer | null {
  if (typeof v === 'string') return v;
  if (v instanceof PhpBytes) return v.bytes;
  return null;
}

/** The keys Laravel's own envelope writes (8.x-13.x); every other top-level key came from a hook. */
export const ENVELOPE_KEYS: ReadonlySet<string> = new Set([
  'uuid', 'displayName', 'job', 'maxTries', 'maxExceptions', 'failOnTimeout', 'backoff', 'timeout', 'retryUntil',
  'deleteWhenMissingModels', 'data', 'createdAt', 'id', 'attempts', 'delay',
]);
