// Reading the properties of a serialized middleware object as PHP would use them.
import { UnsupportedMiddlewareError } from '../errors';
import { PhpObject, type PhpValue } from '../php/values';

/** PHP's string conversion of a scalar key (`$prefix.$key`): ints in decimal, true "1", false and null "". */
export function phpString(value: PhpValue | undefined): string | null {
  if (value === undefined || value === null || value === false) return '';
  if (value === true) return '1';
  if (typeof value === 'string') return value;
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'number') return Number.isInteger(value) ? `${value}` : String(value);
  return null;
}

/** An int property (seconds, counts); null stays null; anything else refuses the middleware. */
export function intOrNull(object: PhpObject, name: string, jobName: string): number | null {
  const value = object.get(name);
  if (value === undefined || value === null) return null;
  if (typeof value === 'bigint') return Number(value);
  if (typeof value === 'number' && Number.isFinite(value)) return Math.trunc(value);
  if (value === false) return 0;
  throw new UnsupportedMiddlewareError(jobName, object.className, `its ${name} is not a number of seconds`);
}

/** A property that must be a string key (cast as PHP concatenation casts it). */
export function keyProperty(object: PhpObject, name: string, jobName: string): string {
  const key = phpString(object.get(name));
  if (key === null) throw new UnsupportedMiddlewareError(jobName, object.className, `its ${name} is not a scalar`);
  return key;
}

/** Refuse a middleware whose serialized copy holds a closure or callback Node cannot run. */
export function refuseCallbacks(object: PhpObject, names: readonly string[], jobName: string): void {
  for (const name of names) {
    const value = object.get(name);
    const empty =
      value === undefined || value === null || (typeof value === 'object' && 'size' in value && value.size === 0);
    if (!empty) throw new UnsupportedMiddlewareError(jobName, object.className, `its ${name} is PHP code`);
  }
}

export { PhpObject };
