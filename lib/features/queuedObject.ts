// What Laravel's wrappers of a queued notification or mailable read from the object they wrap: a property's
// live value, which for an object made by the builder under SerializesModels (9.4+) may be left out of the
// serialized form because it holds its declared default.
import { declarationOf } from '../php/builder';
import { PhpArray, type PhpObject, type PhpValue } from '../php/values';

/** The value PHP sees on the live object: the property, else its declared default, else null. */
export function liveValue(object: PhpObject, name: string): PhpValue {
  const value = object.get(name);
  if (value !== undefined) return value;
  return declarationOf(object)?.defaultOf(name) ?? null;
}

/** An int property as a number (null when it is not an int). */
export function liveInt(object: PhpObject, name: string): number | null {
  const v = liveValue(object, name);
  return typeof v === 'bigint' ? Number(v) : null;
}

/** A string property (null when it is not a string). */
export function liveString(object: PhpObject, name: string): string | null {
  const v = liveValue(object, name);
  return typeof v === 'string' ? v : null;
}

/** A `backoff` property: seconds or a list of seconds, as `Queue::getJobBackoff` joins them. */
export function liveBackoff(object: PhpObject): number | number[] | null {
  const v = liveValue(object, 'backoff');
  if (typeof v === 'bigint') return Number(v);
  if (v instanceof PhpArray) return [...v.entries.values()].map((e) => (typeof e === 'bigint' ? Number(e) : 0));
  return null;
}

/** A list property (`middleware`), as the list Laravel passes to through(). */
export function liveList(object: PhpObject, name: string): PhpValue[] {
  const v = liveValue(object, name);
  return v instanceof PhpArray ? [...v.entries.values()] : [];
}
