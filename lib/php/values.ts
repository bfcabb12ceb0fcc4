// The faithful model of a PHP value as serialize() writes it. Every distinction PHP's format makes is
// kept, so unserialize followed by serialize gives back the same bytes:
//   null -> null, bool -> boolean, int -> bigint (64-bit exact), float -> number,
//   string -> string (valid UTF-8) or PhpBytes (anything else), array -> PhpArray,
//   object -> PhpObject, enum case -> PhpEnum, r:/R: -> PhpReference, C: -> PhpCustomObject.
// Ints and floats never share a JS type: `i:2;` is 2n and `d:2;` is 2.

/** Property visibility as PHP mangles it into the serialized name. */
export type Visibility = 'public' | 'protected' | 'private';

/** A PHP string that is not valid UTF-8, kept as raw bytes. */
export class PhpBytes {
  constructor(readonly bytes: Buffer) {}
}

/** An array key: PHP keeps integer and string keys apart (`i:1;` versus `s:1:"1";`). */
export type PhpArrayKey = bigint | string;

/** A PHP array: an ordered map whose keys are ints or strings. */
export class PhpArray {
  readonly entries: Map<PhpArrayKey, PhpValue>;

  constructor(entries: Iterable<[PhpArrayKey, PhpValue]> = []) {
    this.entries = new Map(entries);
  }

  /** An array with keys 0..n-1 in order, as PHP's array_is_list() decides. */
  static list(values: PhpValue[]): PhpArray {
    return new PhpArray(values.map((v, i) => [BigInt(i), v]));
  }

  /** True when the keys are 0..n-1 in order (PHP's array_is_list). */
  isList(): boolean {
    let i = 0n;
    for (const key of this.entries.keys()) {
      if (key !== i) return false;
      i++;
    }
    return true;
  }

  get size(): number {
    return this.entries.size;
  }
}

// The entries of SEALED_EMPTY_ARRAY: a Map that refuses to change, so the one instance can be shared.
class SealedMap<K, V> extends Map<K, V> {
  override set(): this {
    throw sealed();
  }

  override delete(): boolean {
    throw sealed();
  }

  override clear(): void {
    throw sealed();
  }
}

function sealed(): TypeError {
  return new TypeError('this PHP array is a shared empty default and cannot change: build a new PhpArray');
}

/**
 * One empty PHP array that cannot change (its entries refuse set, delete and clear): what make() puts in
 * every object left at an empty-array default, such as Queueable's `middleware` and `chained`.
 */
export const SEALED_EMPTY_ARRAY: PhpArray = Object.freeze(
  Object.assign(Object.create(PhpArray.prototype) as PhpArray, { entries: new SealedMap() }),
);

/** One property of an object, with the visibility and declaring class its mangled name encodes. */
export interface PhpProperty {
  name: string;
  visibility: Visibility;
  /** For private properties: the class that declares it (`\0Class\0name`). */
  declaringClass?: string;
  /**
   * True for an integer key (`i:0;`), which objects whose `__serialize()` returns integer keys write
   * (ArrayObject, SplQueue, SplObjectStorage, a class returning a list). `name` is then the integer's
   * decimal text and the visibility public. Unset for a named property (`s:1:"0";` is the name "0").
   */
  integerKey?: boolean;
  value: PhpValue;
}

/** A PHP object (`O:`), properties in serialized order (integer keys included, see PhpProperty). */
export class PhpObject {
  constructor(
    readonly className: string,
    readonly properties: PhpProperty[] = [],
  ) {}

  /** The first property with this (unmangled) name, whatever its visibility. */
  get(name: string): PhpValue | undefined {
    return this.properties.find((p) => p.name === name)?.value;
  }
}

/** A PHP 8.1 enum case (`E:len:"Class:Case";`). The backing value is not serialized. */
export class PhpEnum {
  constructor(
    readonly className: string,
    readonly caseName: string,
  ) {}
}

/**
 * A back-reference: `r:n;` (the same object again) or `R:n;` (a PHP reference). `index` is PHP's
 * 1-based slot number; `target` is the value in that slot, resolved by unserialize.
 */
export class PhpReference {
  constructor(
    readonly kind: 'r' | 'R',
    readonly index: number,
    readonly target?: PhpValue,
  ) {}
}

/** A legacy `Serializable` object (`C:`): its payload is opaque and passed through untouched. */
export class PhpCustomObject {
  constructor(
    readonly className: string,
    readonly data: Buffer,
  ) {}
}

export type PhpValue =
  | null
  | boolean
  | bigint
  | number
  | string
  | PhpBytes
  | PhpArray
  | PhpObject
  | PhpEnum
  | PhpReference
  | PhpCustomObject;
