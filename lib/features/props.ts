// Small helpers for reading and rewriting the properties of a PHP job object without disturbing the
// others: every property keeps its position, visibility and bytes unless it is the one being set.
import type { LaravelLine } from '../LaravelLine';
import { declarationOf, PhpFloat, phpIdentical, queueableTrait, toPhp } from '../php/builder';
import { PhpArray, PhpBytes, PhpObject, type PhpProperty, type PhpValue } from '../php/values';

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
  'uuid',
  'displayName',
  'job',
  'maxTries',
  'maxExceptions',
  'failOnTimeout',
  'backoff',
  'timeout',
  'retryUntil',
  'deleteWhenMissingModels',
  'data',
  'createdAt',
  'id',
  'attempts',
  'delay',
]);

// Queueable's properties per line, in declaration order, with their defaults (builder's trait declarations).
const queueable = new Map<LaravelLine, { order: readonly string[]; defaults: ReadonlyMap<string, PhpValue> }>();

function queueableLayout(line: LaravelLine): { order: readonly string[]; defaults: ReadonlyMap<string, PhpValue> } {
  let layout = queueable.get(line);
  if (layout === undefined) {
    const props = queueableTrait(line).properties;
    const order = Object.keys(props);
    layout = {
      order,
      defaults: new Map(order.map((name) => [name, toPhp((props[name] as { default?: unknown }).default ?? null)])),
    };
    queueable.set(line, layout);
  }
  return layout;
}

// Properties of the traits a job class uses after Queueable (InteractsWithQueue, Batchable).
const AFTER_QUEUEABLE = new Set(['job', 'batchId', 'fakeBatch']);

/**
 * A copy of the job object `object` with Queueable's properties in `updates` set as PHP would serialize
 * the result: each in its declared place (not appended in call order), and, when the class leaves out
 * properties still at their default (SerializesModels 9.4+: the object lacks some of Queueable's
 * properties), a property set to its default left out. An object made by PhpClass.make() is rebuilt from
 * its declaration; one read from PHP is placed by Queueable's declaration order on `line` (default 13).
 */
export function withJobProperties(
  object: PhpObject,
  updates: Readonly<Record<string, PhpValue>>,
  line: LaravelLine = 13,
): PhpObject {
  const names = object.properties.map((p) => p.name);
  const declaration = declarationOf(object);
  if (
    declaration &&
    new Set(names).size === names.length &&
    Object.keys(updates).every((n) => declaration.properties.some((p) => p.name === n))
  ) {
    const values: Record<string, unknown> = {};
    for (const p of object.properties) values[p.name] = asBuilt(p.value);
    for (const [name, value] of Object.entries(updates)) values[name] = asBuilt(value);
    return declaration.make(values);
  }
  // An object that holds all of some line's Queueable properties was serialized whole (no SerializesModels,
  // or before 9.4): it keeps every property, in that line's places.
  const whole = ([8, 12, 13] as const).find((l) => queueableLayout(l).order.every((name) => names.includes(name)));
  const { order, defaults } = queueableLayout(whole ?? line);
  const omitsDefaults = whole === undefined;
  let properties = [...object.properties];
  for (const [name, value] of Object.entries(updates)) {
    const index = properties.findIndex((p) => p.name === name);
    const rank = order.indexOf(name);
    if (rank !== -1 && omitsDefaults && phpIdentical(value, defaults.get(name)!)) {
      if (index !== -1) properties.splice(index, 1);
    } else if (index !== -1) {
      properties[index] = { ...properties[index], value };
    } else {
      properties = inserted(
        properties,
        { name, visibility: 'public', value },
        rank === -1 ? [] : order.slice(0, rank),
        rank === -1 ? [] : order.slice(rank + 1),
      );
    }
  }
  return new PhpObject(object.className, properties);
}

// A value already built goes back into make() unchanged: make() reads a bare JS number by the int rule,
// but in a PhpValue a number is always a float (`d:2;` is 2, `i:2;` is 2n), so it is marked as one.
function asBuilt(value: PhpValue): unknown {
  return typeof value === 'number' ? new PhpFloat(value) : value;
}

// Put `property` after the nearest of Queueable's earlier properties present, else before the nearest later
// one, else before the traits that follow Queueable, else last.
function inserted(
  properties: PhpProperty[],
  property: PhpProperty,
  before: readonly string[],
  after: readonly string[],
): PhpProperty[] {
  const at = (index: number) => [...properties.slice(0, index), property, ...properties.slice(index)];
  for (const name of [...before].reverse()) {
    const i = properties.findIndex((p) => p.name === name);
    if (i !== -1) return at(i + 1);
  }
  for (const name of after) {
    const i = properties.findIndex((p) => p.name === name);
    if (i !== -1) return at(i);
  }
  const trailing = properties.findIndex((p) => AFTER_QUEUEABLE.has(p.name));
  return trailing === -1 ? [...properties, property] : at(trailing);
}
