// The producer-side builder: declare a PHP class once (each property's visibility, declaring class and
// default, plus the Laravel traits it uses), then make objects of it from plain JS values.
// The mangling has to be right: since Laravel 9.4 SerializesModels drops a protected or private property
// that arrives under a public name, so the job would run in PHP with that property silently missing.
//
// Serialized property order is PHP's: the class's own properties in declaration order, then each trait's
// in `use` order. With SerializesModels on a 9.4+ line (12, 13), a property identical (===) to its
// declared default is left out, as PHP leaves it out; a property without a default is always written.
import { PhpBuildError } from '../errors';
import { demangle } from './unserialize';
import {
  PhpArray,
  PhpArrayKey,
  PhpBytes,
  PhpCustomObject,
  PhpEnum,
  PhpObject,
  PhpProperty,
  PhpReference,
  PhpValue,
  SEALED_EMPTY_ARRAY,
  Visibility,
} from './values';

// The builder knows the queue traits of 8.83, 12.32+ and 13.24+.
import type { LaravelLine } from '../LaravelLine';
export type { LaravelLine };

/** How one property is declared in PHP. */
export interface PropertyDeclaration {
  visibility: Visibility;
  /** For private properties: the declaring class; defaults to the class itself (also for trait properties). */
  declaringClass?: string;
  /** The declared default (JS or PhpValue). Leave it out for promoted and typed properties without one. */
  default?: unknown;
}

/** A property's visibility alone (no declared default), or its full declaration. */
export type PropertySpec = Visibility | PropertyDeclaration;

/** A block of properties a PHP trait adds to the classes that use it. */
export interface PhpTrait {
  readonly name: string;
  /** The Laravel line this trait's property list belongs to, when it depends on one. */
  readonly line?: LaravelLine;
  readonly properties: Readonly<Record<string, PropertySpec>>;
}

/** Options of phpClass(). */
export interface PhpClassOptions {
  /** Traits in the order the class `use`s them; their properties follow the class's own. */
  traits?: readonly PhpTrait[];
  /** The class uses SerializesModels: `true` takes the Laravel line from the traits, or name the line. */
  serializesModels?: boolean | LaravelLine;
}

/** One property of a declared class, resolved. */
export interface DeclaredProperty {
  readonly name: string;
  readonly visibility: Visibility;
  readonly declaringClass?: string;
  readonly hasDefault: boolean;
  readonly default?: unknown;
}

/** A PHP class declared for the builder; make() turns JS values into its serialized form. */
export class PhpClass {
  constructor(
    readonly className: string,
    readonly properties: readonly DeclaredProperty[],
    /** True when properties equal to their default are left out (SerializesModels, Laravel 9.4+). */
    readonly omitsDefaults: boolean,
  ) {}

  // Per class, computed on the first make(): every push of a job class builds one of these objects.
  private declared: Set<string> | undefined;
  private labels: string[] | undefined;
  private defaults: PhpValue[] | undefined;

  /**
   * An object of this class as PHP would serialize it; values go through toPhp(), undefined means not given.
   * A property left at a scalar or empty-array default is one frozen object shared by every object made:
   * to change it, make() another object (or use a copy) instead of assigning to it in place.
   */
  make(values: Readonly<Record<string, unknown>> = {}): PhpObject {
    const declared = (this.declared ??= new Set(this.properties.map((p) => p.name)));
    const labels = (this.labels ??= this.properties.map((p) => `${this.className}::$${p.name}`));
    // Converted once, only to compare with: a non-empty array default that goes into an object is
    // converted afresh, so no two objects share a mutable PhpArray (see sharedDefault for the rest).
    // (phpClass() already converted each default once, so this cannot throw.)
    const defaults = (this.defaults ??= this.properties.map((p) => (p.hasDefault ? toPhp(p.default) : null)));
    const shared = (this.shared ??= this.properties.map((p, i) => sharedDefault(p, defaults[i])));
    for (const name in values) {
      if (Object.prototype.hasOwnProperty.call(values, name) && !declared.has(name)) {
        const unknown = Object.keys(values).filter((n) => !declared.has(n));
        throw new PhpBuildError(
          `${this.className} has no property ${unknown.join(', ')} (declared: ${[...declared].join(', ')})`,
        );
      }
    }
    const props: PhpProperty[] = [];
    for (let i = 0; i < this.properties.length; i++) {
      const p = this.properties[i];
      const given = Object.prototype.hasOwnProperty.call(values, p.name) && values[p.name] !== undefined;
      if (!given && !p.hasDefault)
        throw new PhpBuildError(`${this.className}: property ${p.name} has no default and was not given`);
      // A default that is identical to itself (not NAN, convertible) is dropped without being converted again.
      if (!given && this.omitsDefaults && phpIdentical(defaults[i], defaults[i])) continue;
      const sharedProperty = given ? undefined : shared[i];
      if (sharedProperty !== undefined) {
        props.push(sharedProperty);
        continue;
      }
      const value = toPhp(given ? values[p.name] : p.default, labels[i]);
      if (this.omitsDefaults && p.hasDefault && phpIdentical(value, defaults[i])) continue;
      props.push(propertyOf(p, value));
    }
    return new DeclaredObject(this.className, props, this);
  }

  // Per property with a scalar default (null, a bool, an int, a float, a string) or an empty array: the one
  // frozen property every object made without a value for it holds (see sharedDefault).
  private shared: (PhpProperty | undefined)[] | undefined;

  /** The declared default of a property, as a PHP value; undefined when it has none or is not declared. */
  defaultOf(name: string): PhpValue | undefined {
    const p = this.properties.find((d) => d.name === name);
    return p?.hasDefault ? toPhp(p.default) : undefined;
  }
}

// A scalar cannot be changed in place, and an empty array default becomes SEALED_EMPTY_ARRAY, so objects
// can share the property that holds them; a job object of the Laravel traits then allocates its own given
// values only. In bulk() of 1,000 jobs the objects the caller made live through the whole call, and what
// lives through a young-generation collection is copied or promoted. `converted` is the default as toPhp()
// gives it; undefined for a property with no default or another kind of value.
function sharedDefault(p: DeclaredProperty, converted: PhpValue): PhpProperty | undefined {
  if (!p.hasDefault) return undefined;
  if (converted instanceof PhpArray && converted.size === 0) return Object.freeze(propertyOf(p, SEALED_EMPTY_ARRAY));
  const scalar = converted === null || typeof converted !== 'object';
  return scalar ? Object.freeze(propertyOf(p, converted)) : undefined;
}

function propertyOf(p: DeclaredProperty, value: PhpValue): PhpProperty {
  return p.declaringClass
    ? { name: p.name, visibility: p.visibility, declaringClass: p.declaringClass, value }
    : { name: p.name, visibility: p.visibility, value };
}

// make() leaves out default-valued properties (as PHP's serialize does from 9.4 on), but Laravel reads
// tuning such as `tries` from the live object: dispatch finds those defaults through the declaration the
// object carries. A private field, not a WeakMap from object to class, so that each object made adds no
// entry to a table the garbage collector must also trace; being private, it is no enumerable property
// either, so deep comparisons see the PhpObject alone.
class DeclaredObject extends PhpObject {
  readonly #declaration: PhpClass;

  constructor(className: string, properties: PhpProperty[], declaration: PhpClass) {
    super(className, properties);
    this.#declaration = declaration;
  }

  static declarationOf(object: PhpObject): PhpClass | undefined {
    return object instanceof DeclaredObject ? object.#declaration : undefined;
  }
}

/** The class declaration an object was made from by PhpClass.make(), if any. */
export function declarationOf(object: PhpObject): PhpClass | undefined {
  return DeclaredObject.declarationOf(object);
}

/** Declare a PHP class: its own properties in declaration order, then its traits'. */
export function phpClass(
  className: string,
  properties: Readonly<Record<string, PropertySpec>>,
  options: PhpClassOptions = {},
): PhpClass {
  const traits = options.traits ?? [];
  const declared: DeclaredProperty[] = [];
  for (const [owner, props] of [
    [className, properties] as const,
    ...traits.map((t) => [`trait ${t.name}`, t.properties] as const),
  ]) {
    for (const [name, spec] of Object.entries(props)) {
      // JS lists such names first, whatever order they were written in; PHP cannot declare them anyway
      if (isArrayIndex(name)) {
        throw new PhpBuildError(
          `${className}: property name ${name} of ${owner} is an integer, which PHP cannot declare; for integer keys use php.serialized()`,
        );
      }
      if (declared.some((p) => p.name === name))
        throw new PhpBuildError(`${className}: property ${name} of ${owner} is declared twice`);
      const decl: PropertyDeclaration = typeof spec === 'string' ? { visibility: spec } : spec;
      if (!['public', 'protected', 'private'].includes(decl.visibility))
        throw new PhpBuildError(`${className}: property ${name} has visibility ${String(decl.visibility)}`);
      if (decl.declaringClass && decl.visibility !== 'private') {
        throw new PhpBuildError(
          `${className}: property ${name} is ${decl.visibility}; only private properties have a declaring class`,
        );
      }
      const hasDefault = typeof spec !== 'string' && spec.default !== undefined;
      if (hasDefault) toPhp(decl.default, `default of ${className}::$${name}`);
      declared.push({
        name,
        visibility: decl.visibility,
        ...(decl.visibility === 'private' ? { declaringClass: decl.declaringClass ?? className } : {}),
        hasDefault,
        ...(hasDefault ? { default: decl.default } : {}),
      });
    }
  }
  return new PhpClass(className, declared, omitsDefaults(className, options.serializesModels ?? false, traits));
}

function omitsDefaults(
  className: string,
  serializesModels: boolean | LaravelLine,
  traits: readonly PhpTrait[],
): boolean {
  if (serializesModels === false) return false;
  if (serializesModels !== true) return serializesModels >= 12;
  const lines = new Set(traits.map((t) => t.line).filter((l): l is LaravelLine => l !== undefined));
  if (lines.size !== 1) {
    throw new PhpBuildError(
      `${className}: serializesModels: true needs one Laravel line from the traits (found ${lines.size}); pass the line, e.g. serializesModels: 12`,
    );
  }
  return [...lines][0] >= 12;
}

const QUEUEABLE: Record<LaravelLine, string[]> = {
  8: [
    'connection',
    'queue',
    'chainConnection',
    'chainQueue',
    'chainCatchCallbacks',
    'delay',
    'afterCommit',
    'middleware',
    'chained',
  ],
  12: [
    'connection',
    'queue',
    'messageGroup',
    'deduplicator',
    'delay',
    'afterCommit',
    'middleware',
    'chained',
    'chainConnection',
    'chainQueue',
    'chainCatchCallbacks',
  ],
  13: [
    'connection',
    'queue',
    'messageGroup',
    'deduplicator',
    'debounceOwner',
    'uniqueLockOwner',
    'delay',
    'afterCommit',
    'middleware',
    'chained',
    'chainConnection',
    'chainQueue',
    'chainCatchCallbacks',
  ],
};
const QUEUEABLE_DEFAULTS: Record<string, unknown> = {
  middleware: [],
  chained: [],
  debounceOwner: '',
  uniqueLockOwner: '',
};

/** Laravel's Queueable trait (Illuminate\Bus\Queueable) on a line: all public, in declaration order. */
export function queueableTrait(line: LaravelLine): PhpTrait {
  const properties = Object.fromEntries(
    QUEUEABLE[line].map((name): [string, PropertySpec] => [
      name,
      { visibility: 'public', default: QUEUEABLE_DEFAULTS[name] ?? null },
    ]),
  );
  return { name: 'Illuminate\\Bus\\Queueable', line, properties };
}

/** Laravel's InteractsWithQueue trait: the public `job` (always null when serialized). */
export function interactsWithQueueTrait(): PhpTrait {
  return {
    name: 'Illuminate\\Queue\\InteractsWithQueue',
    properties: { job: { visibility: 'public', default: null } },
  };
}

/** Laravel's Batchable trait: public `batchId`, and from 9.x the private `fakeBatch`. */
export function batchableTrait(line: LaravelLine): PhpTrait {
  const properties: Record<string, PropertySpec> = { batchId: { visibility: 'public', default: null } };
  if (line >= 12) properties.fakeBatch = { visibility: 'private', default: null };
  return { name: 'Illuminate\\Bus\\Batchable', line, properties };
}

/** The traits of a job class as the recorded fixtures use them: Queueable, InteractsWithQueue, then Batchable if asked. */
export function laravelJobTraits(line: LaravelLine, options: { batchable?: boolean } = {}): PhpTrait[] {
  const traits = [queueableTrait(line), interactsWithQueueTrait()];
  return options.batchable ? [...traits, batchableTrait(line)] : traits;
}

/** Marks a JS number as a PHP float even when it is integral (`php.float(2)` is `d:2;`). */
export class PhpFloat {
  constructor(readonly value: number) {}
}

/** A decimal string PHP stores as an int key: no sign quirks, no leading zeros ("7", "-2"; not "07", "-0"). */
const INTEGER_LIKE = /^(0|-?[1-9][0-9]*)$/;

/** A key JS lists before all others, ascending, whatever order it was added in: "0" to "4294967294". */
function isArrayIndex(key: string): boolean {
  return /^(0|[1-9][0-9]{0,9})$/.test(key) && Number(key) < 2 ** 32 - 1;
}

/**
 * Convert a JS value to a PhpValue: integral number -> int (float via php.float), other number -> float,
 * -0 -> the float -0.0 (only floats have a negative zero), bigint -> int, string, boolean, null,
 * Buffer -> PhpBytes, JS array -> list, Map -> array in the Map's order, plain object -> array
 * (integer-like string keys become int keys, as PHP makes them). A plain object cannot hold integer-like
 * keys in the order they were written (JS lists them first, ascending), so one that mixes them with other
 * keys is refused: use a Map. Arrays, objects and the other model classes pass through untouched, but a
 * bare JS number always follows the int rule, even a float read from PHP: wrap it in php.float().
 */
export function toPhp(value: unknown, where = 'value'): PhpValue {
  if (value === null || typeof value === 'boolean' || typeof value === 'string' || typeof value === 'bigint')
    return value;
  if (typeof value === 'number') {
    if (!Number.isInteger(value) || Object.is(value, -0)) return value;
    if (!Number.isSafeInteger(value))
      throw new PhpBuildError(`${where}: ${value} is beyond 2^53; use a bigint for an int or php.float() for a float`);
    return BigInt(value);
  }
  if (value instanceof PhpFloat) return value.value;
  if (value instanceof PhpArray || value instanceof PhpObject || value instanceof PhpEnum) return value;
  if (value instanceof PhpBytes || value instanceof PhpReference || value instanceof PhpCustomObject) return value;
  if (Buffer.isBuffer(value) || value instanceof Uint8Array) return new PhpBytes(Buffer.from(value));
  if (Array.isArray(value)) return PhpArray.list(value.map((item, i) => toPhp(item, `${where}[${i}]`)));
  if (value instanceof Map) {
    return new PhpArray(
      [...value].map(([k, v]) => [arrayKey(k, where), toPhp(v, `${where}[${String(k)}]`)] as [PhpArrayKey, PhpValue]),
    );
  }
  if (value instanceof Date)
    throw new PhpBuildError(`${where}: use php.dateTime(date, { timezone, immutable }) for a Date`);
  if (typeof value === 'object' && isPlainObject(value)) {
    const entries = Object.entries(value);
    const indexes = entries.filter(([k]) => isArrayIndex(k)).length;
    if (indexes > 0 && indexes < entries.length) {
      throw new PhpBuildError(
        `${where}: a plain object mixing non-negative integer keys with other keys loses their order (JS lists those first); use a Map, e.g. new Map([['z', 1], [10, 2]])`,
      );
    }
    return new PhpArray(
      entries.map(([k, v]) => [arrayKey(k, where), toPhp(v, `${where}.${k}`)] as [PhpArrayKey, PhpValue]),
    );
  }
  const kind = typeof value === 'object' ? `an instance of ${value.constructor?.name ?? 'a class'}` : typeof value;
  throw new PhpBuildError(`${where}: ${kind} has no PHP form; build objects with phpClass(...).make()`);
}

function isPlainObject(value: object): boolean {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

// PHP stores a decimal string without sign quirks or leading zeros as an int key ("7" -> 7, "07" stays).
function arrayKey(key: unknown, where: string): PhpArrayKey {
  if (typeof key === 'bigint') return key;
  if (typeof key === 'number' && Number.isSafeInteger(key)) return BigInt(key);
  if (typeof key === 'string') {
    if (INTEGER_LIKE.test(key)) {
      const n = BigInt(key);
      if (n >= -(2n ** 63n) && n < 2n ** 63n) return n;
    }
    return key;
  }
  throw new PhpBuildError(`${where}: ${typeof key} ${String(key)} cannot be a PHP array key`);
}

/** PHP's `===` between two values, as SerializesModels uses it to leave defaults out. */
export function phpIdentical(a: PhpValue, b: PhpValue): boolean {
  if (a instanceof PhpBytes || b instanceof PhpBytes) {
    const left = bytesOf(a);
    const right = bytesOf(b);
    return left !== undefined && right !== undefined && left.equals(right);
  }
  if (a instanceof PhpArray && b instanceof PhpArray) {
    if (a.size !== b.size) return false;
    const right = [...b.entries];
    return [...a.entries].every(([k, v], i) => right[i][0] === k && phpIdentical(v, right[i][1]));
  }
  if (a instanceof PhpEnum && b instanceof PhpEnum) return a.className === b.className && a.caseName === b.caseName;
  return a === b;
}

function bytesOf(v: PhpValue): Buffer | undefined {
  if (v instanceof PhpBytes) return v.bytes;
  return typeof v === 'string' ? Buffer.from(v, 'utf8') : undefined;
}

/** Options of php.dateTime(). */
export interface DateTimeOptions {
  /** DateTimeImmutable instead of DateTime. */
  immutable?: boolean;
  /** A zone id such as `Europe/Amsterdam` or `UTC` (timezone_type 3), or an offset `+02:00` (type 1). Default `UTC`. */
  timezone?: string;
  /** Microseconds 0..999999, replacing the Date's milliseconds (a Date holds no finer time). */
  microsecond?: number;
  /** Another class with the same three properties, such as `Illuminate\Support\Carbon`. */
  className?: string;
}

/** Options of php.model(). */
export interface ModelOptions {
  /** Database connection name (null: PHP's default). */
  connection?: string | null;
  /** Names of the relations to load, dotted for nested ones. */
  relations?: string[];
  /** A custom collection class for a collection (9.26+; not on the 8.x line). */
  collectionClass?: string | null;
}

/** Helpers for PHP values that plain JS cannot express (frozen: the same for every user of the package). */
export const php = Object.freeze({
  /** A PHP float, even for an integral number. */
  float(n: number): PhpFloat {
    return new PhpFloat(n);
  },
  /**
   * An object of a class whose `__serialize()` returns `data` (a JS array, Map, plain object or PhpArray):
   * its integer keys are written `i:0;` as PHP writes them, string keys as property names. The data of
   * PHP's own classes, as PHP 8.2 writes it: `ArrayObject`/`ArrayIterator` [flags, storage, [], null]
   * (plus the iterator class for ArrayObject when set), `SplQueue`/`SplStack`/`SplDoublyLinkedList`
   * [mode, items, []], `SplObjectStorage` [[object, info, object, info...], []], `SplFixedArray` the items.
   */
  serialized(className: string, data: unknown): PhpObject {
    const where = `php.serialized(${className})`;
    const array = toPhp(data, where);
    if (!(array instanceof PhpArray))
      throw new PhpBuildError(`${where}: the data must be an array, as __serialize() returns`);
    const props: PhpProperty[] = [];
    for (const [key, value] of array.entries) {
      if (typeof key === 'bigint') {
        props.push({ name: String(key), visibility: 'public', integerKey: true, value });
        continue;
      }
      // a key such as "\0*\0x" reads back as a mangled name, so it is kept as one to be written the same
      const parts = demangle(key);
      if (parts === undefined)
        throw new PhpBuildError(`${where}: key ${JSON.stringify(key)} starts with a NUL byte but is no mangled name`);
      props.push({ ...parts, value });
    }
    return new PhpObject(className, props);
  },
  /** A PHP enum case, `E:len:"Class:Case";`. */
  enum(className: string, caseName: string): PhpEnum {
    return new PhpEnum(className, caseName);
  },
  /** A PHP DateTime (or DateTimeImmutable, or Carbon) for a JS Date, shaped as PHP 8.2 serializes it. */
  dateTime(date: Date, options: DateTimeOptions = {}): PhpObject {
    const time = date.getTime();
    if (Number.isNaN(time)) throw new PhpBuildError('php.dateTime: invalid Date');
    const timezone = options.timezone ?? 'UTC';
    const micro = options.microsecond ?? date.getUTCMilliseconds() * 1000;
    if (!Number.isInteger(micro) || micro < 0 || micro > 999999)
      throw new PhpBuildError(`php.dateTime: microsecond ${micro} is not 0..999999`);
    const offset = /^[+-]\d{2}:\d{2}$/.test(timezone) ? offsetOf(timezone) : zoneOffset(time, timezone);
    const local = new Date(time - date.getUTCMilliseconds() + offset * 60000);
    const y = local.getUTCFullYear();
    const two = (n: number) => String(n).padStart(2, '0');
    const text =
      `${y < 0 ? '-' : ''}${String(Math.abs(y)).padStart(4, '0')}-${two(local.getUTCMonth() + 1)}-${two(local.getUTCDate())} ` +
      `${two(local.getUTCHours())}:${two(local.getUTCMinutes())}:${two(local.getUTCSeconds())}.${String(micro).padStart(6, '0')}`;
    const prop = (name: string, value: PhpValue): PhpProperty => ({ name, visibility: 'public', value });
    return new PhpObject(options.className ?? (options.immutable ? 'DateTimeImmutable' : 'DateTime'), [
      prop('date', text),
      prop('timezone_type', /^[+-]/.test(timezone) ? 1n : 3n),
      prop('timezone', timezone),
    ]);
  },
  /**
   * An Eloquent model (scalar id) or collection (array of ids) as SerializesModels writes it: an
   * `Illuminate\Contracts\Database\ModelIdentifier`, 4 properties on line 8 and 5 (collectionClass) later.
   */
  model(className: string | null, id: unknown, options: ModelOptions, line: LaravelLine): PhpObject {
    const prop = (name: string, value: PhpValue): PhpProperty => ({ name, visibility: 'public', value });
    const props = [
      prop('class', className),
      prop('id', toPhp(id, 'php.model id')),
      prop('relations', PhpArray.list(options.relations ?? [])),
      prop('connection', options.connection ?? null),
    ];
    if (line >= 12) props.push(prop('collectionClass', options.collectionClass ?? null));
    else if (options.collectionClass != null) throw new PhpBuildError('php.model: Laravel 8 has no collectionClass');
    return new PhpObject('Illuminate\\Contracts\\Database\\ModelIdentifier', props);
  },
});

function offsetOf(text: string): number {
  const minutes = Number(text.slice(1, 3)) * 60 + Number(text.slice(4, 6));
  return text.startsWith('-') ? -minutes : minutes;
}

// Minutes east of UTC that the zone has at that instant, from Intl's wall clock.
function zoneOffset(time: number, zone: string): number {
  // An all-capitals name other than UTC (EST, GMT, CET) is an abbreviation to PHP (timezone_type 2).
  if (zone !== 'UTC' && /^[A-Z]+$/.test(zone))
    throw new PhpBuildError(`php.dateTime: abbreviation ${zone} is not supported; use a zone id or an offset`);
  let format: Intl.DateTimeFormat;
  try {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      era: 'short',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
  } catch {
    throw new PhpBuildError(`php.dateTime: unknown timezone ${zone}`);
  }
  const parts = Object.fromEntries(format.formatToParts(new Date(time)).map((p) => [p.type, p.value]));
  const year = parts.era === 'BC' ? 1 - Number(parts.year) : Number(parts.year);
  const wall = new Date(0);
  wall.setUTCFullYear(year, Number(parts.month) - 1, Number(parts.day));
  wall.setUTCHours(Number(parts.hour), Number(parts.minute), Number(parts.second), 0);
  return Math.round((wall.getTime() - (time - (((time % 1000) + 1000) % 1000))) / 60000);
}
