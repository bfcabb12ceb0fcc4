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

/** Convert a PHP value to plain JS: numbers, strings, Buffers, arrays and plain objects. */
export function toPlain(value: PhpValue): unknown {
  return convert(value, new Map());
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

// `seen` maps each array and object to its view, so `r:` and `R:` give the same JS object and a
// cycle ends instead of recursing forever.
function convert(value: PhpValue, seen: Map<PhpArray | PhpObject, unknown>): unknown {
  if (value === null || typeof value === 'boolean' || typeof value === 'number' || typeof value === 'string') return value;
  if (typeof value === 'bigint') return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value;
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

function convertArray(array: PhpArray, seen: Map<PhpArray | PhpObject, unknown>): unknown {
  if (array.isList()) {
    const list: unknown[] = [];
    seen.set(array, list);
    for (const item of array.entries.values()) list.push(convert(item, seen));
    return list;
  }
  const map: Record<string, unknown> = {};
  seen.set(array, map);
  for (const [key, item] of array.entries) define(map, String(key), convert(item, seen));
  return map;
}

function convertObject(object: PhpObject, seen: Map<PhpArray | PhpObject, unknown>): unknown {
  const plain: Record<string, unknown> = {};
  Object.defineProperty(plain, PHP_CLASS, { value: object.className, enumerable: false });
  seen.set(object, plain);
  const winners = new Map<string, number>();
  object.properties.forEach((p, i) => {
    const current = winners.get(p.name);
    if (current === undefined || (p.visibility === 'public' && object.properties[current].visibility !== 'public')) winners.set(p.name, i);
  });
  const shadowed: ShadowedProperty[] = [];
  object.properties.forEach((p, i) => {
    const value = convert(p.value, seen);
    if (winners.get(p.name) === i) define(plain, p.name, value);
    else shadowed.push({ name: p.name, visibility: p.visibility, ...(p.declaringClass ? { declaringClass: p.declaringClass } : {}), value });
  });
  if (shadowed.length > 0) Object.defineProperty(plain, PHP_SHADOWED, { value: shadowed, enumerable: false });
  return plain;
}

// defineProperty keeps a key such as "__proto__" an ordinary own property.
function define(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}
