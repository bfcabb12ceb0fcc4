// The runtime of a module `larq types` writes: one declaration per PHP class, made from what PHP's
// reflection said about it. make() converts each property's JS value by its declared PHP type before the
// builder (phpClass) writes it, so a `float` property is a PHP float even for a whole number, an enum
// property takes its case name, a model its key (Laravel `SerializesModels::getSerializedPropertyValue`,
// 13.x), a date a JS Date, and a value-object property its own plain object.
import { PhpBuildError } from '../errors';
import { php, phpClass, PhpFloat, type PhpClass, type PropertySpec } from '../php/builder';
import { PhpArray, PhpBytes, PhpEnum, PhpObject, PhpReference } from '../php/values';

/** How a property's PHP type converts a JS value; see TypedPhpClass.make. */
export type PhpTypeKind =
  | 'int'
  | 'float'
  | 'string'
  | 'bool'
  | 'array'
  | 'null'
  | 'mixed'
  | { readonly enum: string }
  | { readonly model: string }
  | { readonly models: string }
  | { readonly date: string }
  | { readonly object: () => TypedPhpClass<object, object> }
  | { readonly union: readonly PhpTypeKind[] };

/** A default as PHP's reflection reported it (the reflector's value description). */
export type ReflectedValue =
  | { readonly t: 'null' }
  | { readonly t: 'bool'; readonly v: boolean }
  | { readonly t: 'int'; readonly v: string }
  | { readonly t: 'float'; readonly v: string }
  | { readonly t: 'string'; readonly v: string }
  | { readonly t: 'enum'; readonly class: string; readonly case: string }
  | { readonly t: 'array'; readonly entries: readonly { readonly k: ReflectedValue; readonly v: ReflectedValue }[] };

/** One property of a typed declaration, in serialized order. */
export interface TypedProperty {
  readonly name: string;
  readonly visibility: 'public' | 'protected' | 'private';
  /** For a private property: the class its mangled name carries. */
  readonly mangledClass?: string;
  readonly kind: PhpTypeKind;
  /** The declared default: a property still holding it is left out with SerializesModels. */
  readonly default?: ReflectedValue;
  /** A promoted property's constructor default: filled in when not given, and always written. */
  readonly constructorDefault?: ReflectedValue;
}

/** What PHP's reflection gave for one class, as a generated module declares it. */
export interface TypedPhpClassSpec {
  /** The Laravel line of the app: 8 writes a ModelIdentifier without collectionClass (before 9.26). */
  readonly modelLine: 8 | 12;
  readonly serializesModels: boolean;
  readonly properties: readonly TypedProperty[];
  /** The hash of the reflected PHP declaration (its used classes' folded in), for `larq types --check`. */
  readonly hash: string;
  /**
   * The class writes its own serialized form (`__serialize()` or `__sleep()`): its properties say nothing
   * of the bytes, so make() refuses instead of guessing (build it with php.serialized()).
   */
  readonly customSerialization?: string;
  /** Laravel's tuning the class states as property defaults: tries, timeout, backoff, unique... */
  readonly tuning?: Readonly<Record<string, unknown>>;
}

/** The input of a model property: its key, or the key with the connection and relations PHP would write. */
export type ModelInput =
  | number
  | bigint
  | string
  | { readonly id: number | bigint | string; readonly connection?: string | null; readonly relations?: string[] };

/** The input of an Eloquent collection property: the model class, its keys in order, and the connection. */
export interface ModelsInput {
  readonly class: string;
  readonly ids: readonly (number | bigint | string)[];
  readonly connection?: string | null;
  readonly relations?: string[];
}

/** A PHP enum case of `C`, as a handler receives it (toPlain keeps enum cases as PhpEnum). */
export type PhpEnumCase<C extends string, K extends string> = PhpEnum & {
  readonly className: C;
  readonly caseName: K;
};

/** A model as a handler receives it: the ModelIdentifier SerializesModels wrote. */
export interface ModelIdentifierView<C extends string = string> {
  class: C;
  id: number | string;
  relations: string[];
  connection: string | null;
  /** 9.26+ only. */
  collectionClass?: string | null;
}

/** An Eloquent collection as a handler receives it: the ModelIdentifier of its models' keys. */
export interface ModelsIdentifierView {
  class: string | null;
  id: (number | string)[];
  relations: string[];
  connection: string | null;
  collectionClass?: string | null;
}

/** A DateTime, DateTimeImmutable or Carbon as a handler receives it (PHP's serialized fields). */
export interface PhpDateView {
  date: string;
  timezone_type: number;
  timezone: string;
}

/** A PHP array as a handler receives it: a list, or an object for string or sparse keys. */
export type PhpArrayView = unknown[] | { [key: string]: unknown };

/** A PHP array as make() takes it (see toPhp). */
export type PhpArrayInput =
  readonly unknown[] | Readonly<Record<string, unknown>> | ReadonlyMap<string | number | bigint, unknown> | PhpArray;

/** A date as make() takes it: a JS Date (written in UTC) or an object made with php.dateTime(). */
export type PhpDateInput = Date | PhpObject;

/**
 * A PHP class declared by `larq types`: `View` is what a handler receives for it, `Input` what make()
 * takes. Its `php` is the builder's declaration (phpClass) with every property's visibility and default.
 */
export class TypedPhpClass<View extends object, Input extends object> {
  /** The builder's declaration. */
  readonly php: PhpClass;
  /** Phantom: the view a handler of this class receives (never set at run time). */
  declare readonly view: View;
  /** Phantom: what make() takes (never set at run time). */
  declare readonly input: Input;

  constructor(
    readonly className: string,
    readonly spec: TypedPhpClassSpec,
  ) {
    const properties: Record<string, PropertySpec> = {};
    for (const p of spec.properties) {
      properties[p.name] = {
        visibility: p.visibility,
        ...(p.mangledClass !== undefined ? { declaringClass: p.mangledClass } : {}),
        ...(p.default !== undefined ? { default: fromReflected(p.default) } : {}),
      };
    }
    this.php = phpClass(className, properties, {
      serializesModels: spec.serializesModels ? spec.modelLine : false,
    });
  }

  /** The hash of the PHP declaration this was generated from. */
  get hash(): string {
    return this.spec.hash;
  }

  /** An object of this class as PHP's serialize() writes it, from the values `Input` describes. */
  make(values: Input): PhpObject {
    if (this.spec.customSerialization !== undefined) {
      throw new PhpBuildError(
        `${this.className} writes its own serialized form (${this.spec.customSerialization}); build it with php.serialized()`,
      );
    }
    const given = values as Readonly<Record<string, unknown>>;
    const converted: Record<string, unknown> = {};
    for (const p of this.spec.properties) {
      const where = `${this.className}::$${p.name}`;
      if (Object.prototype.hasOwnProperty.call(given, p.name) && given[p.name] !== undefined) {
        converted[p.name] = convert(p.kind, given[p.name], where, this.spec.modelLine);
      } else if (p.constructorDefault !== undefined) {
        converted[p.name] = fromReflected(p.constructorDefault);
      }
    }
    for (const name of Object.keys(given)) {
      if (!this.spec.properties.some((p) => p.name === name)) converted[name] = given[name]; // the builder names it
    }
    return this.php.make(converted);
  }
}

/** Declare a class of a generated module (see TypedPhpClass). */
export function typedPhpClass<View extends object, Input extends object>(
  className: string,
  spec: TypedPhpClassSpec,
): TypedPhpClass<View, Input> {
  return new TypedPhpClass<View, Input>(className, spec);
}

/** A reflected default as the builder takes it. */
export function fromReflected(value: ReflectedValue): unknown {
  switch (value.t) {
    case 'null':
      return null;
    case 'bool':
    case 'string':
      return value.v;
    case 'int':
      return BigInt(value.v);
    case 'float':
      return php.float(Number(value.v));
    case 'enum':
      return php.enum(value.class, value.case);
    case 'array':
      return new Map(value.entries.map((e) => [fromReflected(e.k) as string | bigint, fromReflected(e.v)]));
  }
}

const isPhpValue = (v: unknown): boolean =>
  v instanceof PhpObject ||
  v instanceof PhpEnum ||
  v instanceof PhpArray ||
  v instanceof PhpBytes ||
  v instanceof PhpReference ||
  v instanceof PhpFloat;

// A JS value for a property of PHP type `kind`; values already in PHP's form pass through.
function convert(kind: PhpTypeKind, value: unknown, where: string, modelLine: 8 | 12): unknown {
  if (value === null || isPhpValue(value)) return value;
  if (kind === 'float') {
    if (typeof value === 'number') return php.float(value);
    if (typeof value === 'bigint') return php.float(Number(value));
    return value;
  }
  if (typeof kind === 'string') return value;
  if ('union' in kind) {
    const members = kind.union;
    // A number goes to int when the union has int and the number is whole, else to float.
    if (typeof value === 'number') {
      const intFirst = members.includes('int') && Number.isInteger(value);
      return !intFirst && members.includes('float') ? php.float(value) : value;
    }
    const fitting = members.find((m) => accepts(m, value));
    return fitting === undefined ? value : convert(fitting, value, where, modelLine);
  }
  if ('enum' in kind) {
    if (typeof value !== 'string') throw new PhpBuildError(`${where}: give a case name of ${kind.enum}`);
    return php.enum(kind.enum, value);
  }
  if ('model' in kind) {
    const input = value as ModelInput;
    if (typeof input === 'object')
      return php.model(kind.model, input.id, { connection: input.connection, relations: input.relations }, modelLine);
    return php.model(kind.model, input, {}, modelLine);
  }
  if ('models' in kind) {
    const input = value as ModelsInput;
    const collectionClass = kind.models === 'Illuminate\\Database\\Eloquent\\Collection' ? null : kind.models;
    const options = { connection: input.connection, relations: input.relations };
    return php.model(
      input.class,
      [...input.ids],
      modelLine >= 12 ? { ...options, collectionClass } : options,
      modelLine,
    );
  }
  if ('date' in kind) {
    if (!(value instanceof Date)) throw new PhpBuildError(`${where}: give a Date or php.dateTime(...)`);
    if (kind.date === 'DateTimeInterface')
      throw new PhpBuildError(`${where}: DateTimeInterface names no class; give php.dateTime(date, { className })`);
    return php.dateTime(value, { className: kind.date });
  }
  if (typeof value !== 'object') return value;
  return kind.object().make(value as object);
}

function accepts(kind: PhpTypeKind, value: unknown): boolean {
  if (typeof kind === 'string') {
    if (kind === 'string') return typeof value === 'string';
    if (kind === 'bool') return typeof value === 'boolean';
    if (kind === 'int') return typeof value === 'bigint';
    if (kind === 'array') return typeof value === 'object';
    return kind === 'mixed';
  }
  if ('enum' in kind) return typeof value === 'string';
  if ('date' in kind) return value instanceof Date;
  if ('model' in kind) return typeof value === 'number' || typeof value === 'bigint' || typeof value === 'string';
  return typeof value === 'object';
}
