// The plain-JS view of a PHP value, for handler authors who want `job.to` rather than the exact model.
// The view is lossy on purpose (an int 2 and a float 2 both become 2); code that must write the value
// back to PHP keeps the PhpValue instead.
//
// Name clashes: PHP lets an object hold several properties of one name (a parent's private `$x` next to
// a public `$x`). The plain name goes to the public one when there is one (what `$obj->x` reads from
// outside the class), else to the first in serialized order; every other one is kept, with its
// visibility and declaring class, in the list returned by shadowedPropertiesOf().
import { PhpArray, PhpBytes, PhpCustomObject, PhpEnum, PhpObject, PhpReference, PhpValue, Visibility } from './values';

/** Non-enumerable key under which a converted object carries its PHP class name. */
export const PHP_CLASS: unique symbol = Symbol('larq.phpClass');

/** Non-enumerable key under which a converted object carries the properties that lost a name clash. */
export const PHP_SHADOWED: unique symbol = Symbol('larq.phpShadowed');

/** A property left out of the plain names because another property of the same name took it. */
export interface ShadowedProperty {
  name: string;
  visibility: Visibility;
  declaringClass?: string;
  value: unknown;
}

/**
 * Convert a PHP value to plain JS: numbers, strings, Buffers, arrays and plain objects (enum cases stay
 * PhpEnum: read them with enumCase). `T` is the shape you expect, e.g. `toPlain<InvoiceJob>(command)`;
 * it is not checked at run time. Default `unknown`.
 */
export function toPlain<T = unknown>(value: PhpValue): T {
  return convert(value, new ConvertedValues()) as T;
}

/** The PHP class of an object made by toPlain, or undefined for anything else. */
export function phpClassOf(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const name = (value as { [PHP_CLASS]?: unknown })[PHP_CLASS];
  return typeof name === 'string' ? name : undefined;
}

/** The properties of an object made by toPlain that a same-named property displaced (usually none). */
export function shadowedPropertiesOf(value: unknown): readonly ShadowedProperty[] {
  if (typeof value !== 'object' || value === null) return [];
  const list = (value as { [PHP_SHADOWED]?: unknown })[PHP_SHADOWED];
  return Array.isArray(list) ? (list as ShadowedProperty[]) : [];
}

const MIN_SAFE = BigInt(Number.MIN_SAFE_INTEGER);
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * The views made so far, by the array or object they were made from. A job's command holds a handful of
 * arrays and objects, so the first few are kept in two lists searched in order, which is cheaper than
 * creating a Map for every job; a Map takes over past SCANNED_VIEWS.
 */
class ConvertedValues {
  private readonly sources: (PhpArray | PhpObject)[] = [];
  private readonly views: unknown[] = [];
  private map: Map<PhpArray | PhpObject, unknown> | undefined;

  get(source: PhpArray | PhpObject): unknown {
    if (this.map !== undefined) return this.map.get(source);
    const i = this.sources.indexOf(source);
    return i < 0 ? undefined : this.views[i];
  }

  set(source: PhpArray | PhpObject, view: unknown): void {
    if (this.map !== undefined) {
      this.map.set(source, view);
      return;
    }
    this.sources.push(source);
    this.views.push(view);
    if (this.sources.length > SCANNED_VIEWS) this.map = new Map(this.sources.map((s, i) => [s, this.views[i]]));
  }
}

const SCANNED_VIEWS = 16;

// `seen` maps each array and object to its view, so `r:` and `R:` give the same JS object and a
// cycle ends instead of recursing forever.
function convert(value: PhpValue, seen: ConvertedValues): unknown {
  if (value === null || typeof value === 'boolean' || typeof value === 'number' || typeof value === 'string')
    return value;
  if (typeof value === 'bigint') return value >= MIN_SAFE && value <= MAX_SAFE ? Number(value) : value;
  if (value instanceof PhpBytes) return Buffer.from(value.bytes);
  if (value instanceof PhpEnum || value instanceof PhpCustomObject) return value;
  if (value instanceof PhpReference) {
    if (value.target === undefined) throw new TypeError(`unresolved PHP reference ${value.kind}:${value.index}`);
    return convert(value.target, seen);
  }
  const known = seen.get(value);
  if (known !== undefined) return known;
  return value instanceof PhpArray ? convertArray(value, seen) : convertObject(value, seen);
}

function convertArray(array: PhpArray, seen: ConvertedValues): unknown {
  if (array.isList()) {
    const list: unknown[] = [];
    seen.set(array, list);
    for (const item of array.entries.values()) list.push(convert(item, seen));
    return list;
  }
  const map: Record<string, unknown> = {};
  seen.set(array, map);
  for (const [key, item] of array.entries) set(map, String(key), convert(item, seen));
  return map;
}

function convertObject(object: PhpObject, seen: ConvertedValues): unknown {
  const plain: Record<string, unknown> = {};
  Object.defineProperty(plain, PHP_CLASS, { value: object.className, enumerable: false });
  seen.set(object, plain);
  const properties = object.properties;
  for (let i = 0; i < properties.length; i++) {
    const name = properties[i].name;
    const value = convert(properties[i].value, seen);
    // A name already there is a clash (or an inherited one such as "__proto__"): settle them all by the rules.
    if (isPresent(plain, name)) return settleClashes(object, plain, i, value, seen);
    plain[name] = value;
  }
  return plain;
}

// The rules of the header comment, for an object whose first `done` properties were assigned in order
// and whose property `done` (converted to `value`) clashed: every value is converted once, in order.
function settleClashes(
  object: PhpObject,
  plain: Record<string, unknown>,
  done: number,
  value: unknown,
  seen: ConvertedValues,
): unknown {
  const properties = object.properties;
  const values: unknown[] = [];
  for (let i = 0; i < done; i++) values.push(plain[properties[i].name]);
  values.push(value);
  // Newest first, so each delete undoes the last addition; the winners are then added in order again.
  for (let i = done - 1; i >= 0; i--) delete plain[properties[i].name];
  for (let i = done + 1; i < properties.length; i++) values.push(convert(properties[i].value, seen));
  const winners = new Map<string, number>();
  properties.forEach((p, i) => {
    const current = winners.get(p.name);
    if (current === undefined || (p.visibility === 'public' && properties[current].visibility !== 'public'))
      winners.set(p.name, i);
  });
  const shadowed: ShadowedProperty[] = [];
  properties.forEach((p, i) => {
    if (winners.get(p.name) === i) define(plain, p.name, values[i]);
    else
      shadowed.push({
        name: p.name,
        visibility: p.visibility,
        ...(p.declaringClass ? { declaringClass: p.declaringClass } : {}),
        value: values[i],
      });
  });
  if (shadowed.length > 0) Object.defineProperty(plain, PHP_SHADOWED, { value: shadowed, enumerable: false });
  return plain;
}

// Plain assignment makes the same own, enumerable, writable, configurable property as define() when the
// key is nowhere on the object or its prototype, and is the cheaper of the two.
function set(target: Record<string, unknown>, key: string, value: unknown): void {
  if (isPresent(target, key)) define(target, key, value);
  else target[key] = value;
}

const hasOwn = Object.prototype.hasOwnProperty;

// `key in target`, asking hasOwnProperty first: an own key answers without walking the prototype chain.
function isPresent(target: object, key: string): boolean {
  return hasOwn.call(target, key) || key in target;
}

// defineProperty keeps a key such as "__proto__" an ordinary own property.
function define(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}
