// Writer for PHP's serialize() format: the byte-exact inverse of unserialize.ts.
// References are written as the model holds them (kind and slot index); the writer counts slots the way
// PHP does so that an index pointing nowhere, or at something else than its target, is caught here
// instead of failing inside a PHP worker. As PHP does within one serialize() call, an object met again
// (the same PhpObject or PhpCustomObject, or the same enum case) is written `r:<slot of its first sight>;`,
// so PHP unserializes one object where JS held one, and an object can hold itself.
import { SerializeError } from '../errors';
import { phpJsonEncode, phpJsonStringBody } from '../payload/json';
import { isAscii } from './ascii';
import { formatPhpFloat } from './float';
import { decodeUtf8 } from './unserialize';
import {
  PhpArray,
  PhpBytes,
  PhpCustomObject,
  PhpEnum,
  PhpObject,
  PhpProperty,
  PhpReference,
  PhpValue,
  Visibility,
} from './values';

/** Nesting depth from which the writer tracks open containers in a Set. */
const DEEP = 32;
const INT_MIN = -(2n ** 63n);
const INT_MAX = 2n ** 63n - 1n;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Serialize to PHP's format as bytes; PhpBytes may make the result invalid UTF-8. */
export function serializeToBuffer(value: PhpValue): Buffer {
  const writer = new Writer(false);
  writer.value(value);
  return writer.toBuffer();
}

/** Serialize to PHP's format as a JS string; throws SerializeError when the bytes are not valid UTF-8. */
export function serialize(value: PhpValue): string {
  const writer = new Writer(false);
  writer.value(value);
  // Without raw bytes the text is the answer: every string in it passed the surrogate check.
  if (!writer.holdsRawBytes) return writer.out;
  const text = decodeUtf8(writer.toBuffer());
  if (text === undefined)
    throw new SerializeError('the serialized value is not valid UTF-8 (it holds PhpBytes); use serializeToBuffer');
  return text;
}

/**
 * `phpJsonEncode(serialize(value))`, the form a command takes in a payload, written in one pass: the
 * writer escapes each piece as it goes (names from its remembered texts), so the serialized text is
 * neither scanned for what needs escaping nor copied by JSON.stringify. Same text, same errors.
 */
export function serializeToJsonString(value: PhpValue): string {
  const writer = new Writer(true);
  try {
    writer.value(value);
  } catch (e) {
    // Raw bytes are valid UTF-8 or not only as a whole text: that question is serialize()'s.
    if (e === RAW_BYTES) return phpJsonEncode(serialize(value));
    throw e;
  }
  return `"${writer.out}"`;
}

/** Thrown by a JSON writer that meets raw bytes, to start again the long way. */
const RAW_BYTES = new Error('raw bytes in a JSON writer');

/** The serialized property name PHP uses for a visibility: `name`, `\0*\0name` or `\0Class\0name`. */
export function mangle(property: Omit<PhpProperty, 'value'>, className: string): string {
  switch (property.visibility) {
    case 'public':
      return property.name;
    case 'protected':
      return `\0*\0${property.name}`;
    case 'private':
      if (!property.declaringClass) {
        throw new SerializeError(`private property ${property.name} of ${className} has no declaringClass`);
      }
      return `\0${property.declaringClass}\0${property.name}`;
  }
}

// The output is a JS string while the value holds only text, which is what jobs hold; raw bytes (PhpBytes,
// a C: payload) switch it to a list of Buffers, the text so far encoded as UTF-8 ahead of them.
// A JSON writer writes every piece as phpJsonEncode would between a string's quotes; the pieces are
// whole strings or ASCII, so the result is the body of the JSON string of the serialized text.
class Writer {
  /** The text written since the last raw bytes (all of it when there were none). */
  out = '';
  private chunks: Buffer[] | null = null;
  private readonly slots: PhpValue[] = [];
  /** The objects (and enum cases, by name) written so far, with their slot: seen again, they are `r:`. */
  private readonly objects = new ObjectSlots();
  /** The containers being written, outermost first: a few, where a scan beats hashing each into a Set. */
  private readonly open: (PhpArray | PhpObject)[] = [];
  /** The same containers as a Set, once nesting is deep enough for scans to add up. */
  private deep: Set<PhpArray | PhpObject> | null = null;

  constructor(private readonly json: boolean) {}

  get holdsRawBytes(): boolean {
    return this.chunks !== null;
  }

  toBuffer(): Buffer {
    const tail = Buffer.from(this.out, 'utf8');
    return this.chunks === null ? tail : Buffer.concat([...this.chunks, tail]);
  }

  value(value: PhpValue): void {
    if (value instanceof PhpReference) return this.reference(value);
    this.slots.push(value);
    if (value === null) {
      this.out += 'N;';
      return;
    }
    switch (typeof value) {
      case 'boolean':
        this.out += value ? 'b:1;' : 'b:0;';
        return;
      case 'bigint':
        this.out += `i:${checkInt(value)};`;
        return;
      case 'number':
        this.out += `d:${formatPhpFloat(value, 'E')};`;
        return;
      case 'string':
        return this.string(value, 'a string');
    }
    if (value instanceof PhpBytes) return this.bytes(value.bytes);
    if (value instanceof PhpArray) return this.array(value);
    if (value instanceof PhpObject) return this.again(value) ? undefined : this.object(value);
    if (value instanceof PhpEnum)
      return this.again(`${value.className}:${value.caseName}`) ? undefined : this.enumCase(value);
    if (value instanceof PhpCustomObject) return this.again(value) ? undefined : this.custom(value);
    throw new SerializeError(`not a PHP value: ${describe(value)}`);
  }

  /**
   * For an object (or an enum case's name) that has just taken the last slot: true when it was written
   * before, after writing `r:` to its first slot; else remembers that slot and returns false.
   */
  private again(object: PhpObject | PhpCustomObject | string): boolean {
    const first = this.objects.get(object);
    if (first === undefined) {
      this.objects.set(object, this.slots.length);
      return false;
    }
    this.out += `r:${first};`;
    return true;
  }

  private array(array: PhpArray): void {
    // An empty array cannot be open, as that takes an entry to be inside of (Laravel's defaults are empty).
    if (array.size === 0) {
      this.out += 'a:0:{}';
      return;
    }
    this.enter(array, 'array');
    this.out += `a:${array.size}:{`;
    for (const [key, item] of array.entries) {
      if (typeof key === 'bigint') this.out += `i:${checkInt(key)};`;
      else this.string(key, 'an array key');
      this.value(item);
    }
    this.out += '}';
    this.leave();
  }

  private object(object: PhpObject): void {
    const { className, properties } = object;
    this.enter(object, className);
    const prefix = classPrefix(className);
    this.out += `${this.json ? prefix.json : prefix.plain}${properties.length}:{`;
    const layout = layouts.get(className);
    if (layout !== undefined && layout.fits(properties)) {
      // names already checked when the layout was remembered; only the values are new
      const keys = layout.keys;
      for (let i = 0; i < keys.length; i++) {
        const value = properties[i].value;
        // a null (most of Queueable's properties) is written together with its key, from text made once per layout
        if (value === null) {
          this.slots.push(null);
          this.out += this.json ? keys[i].jsonNull : keys[i].plainNull;
          continue;
        }
        this.out += this.json ? keys[i].json : keys[i].plain;
        this.value(value);
      }
    } else {
      const seen = new NameSet();
      const keys: NameText[] = [];
      for (const property of properties) {
        const name = property.integerKey ? integerKeyName(property, className) : mangle(property, className);
        // the name "0" and the integer key 0 are one key to PHP, so they share the check
        if (!seen.add(name))
          throw new SerializeError(`property ${property.name} of ${className} appears twice with the same visibility`);
        const key = property.integerKey ? integerKey(name) : propertyKey(name);
        keys.push(key);
        this.out += this.json ? key.json : key.plain;
        this.value(property.value);
      }
      if (keys.length <= Layout.MAX_PROPERTIES)
        remember(layouts, className, new Layout(properties, keys), Layout.REMEMBERED);
    }
    this.out += '}';
    this.leave();
  }

  private enumCase(value: PhpEnum): void {
    if (!value.className || !value.caseName || value.className.includes(':') || value.caseName.includes(':')) {
      throw new SerializeError(`invalid enum case ${value.className}:${value.caseName}`);
    }
    const text = `${value.className}:${value.caseName}`;
    const n = utf8Length(text, 'an enum case');
    this.out += this.json ? `E:${n}:\\"${phpJsonStringBody(text)}\\";` : `E:${n}:"${text}";`;
  }

  private custom(value: PhpCustomObject): void {
    this.out += `C:${utf8Length(value.className, 'a class name')}:"${value.className}":${value.data.length}:{`;
    this.raw(value.data);
    this.out += '}';
  }

  private reference(ref: PhpReference): void {
    const label = `${ref.kind}:${ref.index}`;
    if (!Number.isSafeInteger(ref.index) || ref.index < 1 || ref.index > this.slots.length) {
      throw new SerializeError(`${label} refers to no earlier value (${this.slots.length} written so far)`);
    }
    const slot = this.slots[ref.index - 1];
    if (ref.target !== undefined && !Object.is(ref.target, slot)) {
      throw new SerializeError(`${label} points at a different value than its target`);
    }
    if (ref.kind === 'r') {
      if (!(slot instanceof PhpObject || slot instanceof PhpEnum || slot instanceof PhpCustomObject)) {
        throw new SerializeError(`${label} must point at an object`);
      }
      this.slots.push(slot);
    }
    this.out += `${label};`;
  }

  private enter(container: PhpArray | PhpObject, what: string): void {
    // A container inside itself can only be written through a PhpReference, as PHP does.
    const open = this.open;
    if (this.deep === null && open.length >= DEEP) this.deep = new Set(open);
    if (this.deep === null ? open.includes(container) : this.deep.has(container)) {
      throw new SerializeError(`${what} contains itself; use a PhpReference for the cycle`);
    }
    open.push(container);
    this.deep?.add(container);
  }

  private leave(): void {
    const container = this.open.pop()!;
    this.deep?.delete(container);
  }

  private string(text: string, what: string): void {
    const n = utf8Length(text, what);
    this.out += this.json ? `s:${n}:\\"${phpJsonStringBody(text)}\\";` : `s:${n}:"${text}";`;
  }

  private bytes(bytes: Buffer): void {
    this.out += `s:${bytes.length}:"`;
    this.raw(bytes);
    this.out += '";';
  }

  private raw(bytes: Buffer): void {
    if (this.json) throw RAW_BYTES;
    (this.chunks ??= []).push(Buffer.from(this.out, 'utf8'), bytes);
    this.out = '';
  }
}

// Class and property names come back in every object of a class: their text (`O:N:"Class":`,
// `s:N:"name";`), plain and JSON-escaped, is remembered in bounded maps, emptied when full, which spares
// the length count, the escaping and the string joins per name. Only names that passed utf8Length's
// checks are remembered.
const REMEMBERED = 4096;
const classPrefixes = new Map<string, NameText>();
const propertyKeys = new Map<string, NameText>();

/** The serialized text of a name (or of an integer key), plain and as it reads inside a JSON string. */
class NameText {
  /** The text followed by a null's, `N;`. */
  readonly plainNull: string;
  readonly jsonNull: string;

  constructor(
    readonly plain: string,
    readonly json: string,
  ) {
    this.plainNull = `${plain}N;`;
    this.jsonNull = `${json}N;`;
  }

  /** `<head>"<name>"<tail>`. */
  static quoted(head: string, name: string, tail: string): NameText {
    return new NameText(`${head}"${name}"${tail}`, `${head}\\"${phpJsonStringBody(name)}\\"${tail}`);
  }
}

function classPrefix(className: string): NameText {
  return (
    classPrefixes.get(className) ??
    remember(classPrefixes, className, NameText.quoted(`O:${utf8Length(className, 'a class name')}:`, className, ':'))
  );
}

function propertyKey(name: string): NameText {
  return (
    propertyKeys.get(name) ??
    remember(propertyKeys, name, NameText.quoted(`s:${utf8Length(name, 'a property name')}:`, name, ';'))
  );
}

/** `i:<name>;`: digits and a minus sign read the same inside a JSON string. */
function integerKey(name: string): NameText {
  const text = `i:${name};`;
  return new NameText(text, text);
}

const INTEGER_TEXT = /^(?:0|-?[1-9][0-9]*)$/;

/** The name of an integer-keyed property, checked: a public property named by an int in PHP's range. */
function integerKeyName(property: PhpProperty, className: string): string {
  const { name } = property;
  if (property.visibility !== 'public')
    throw new SerializeError(`integer key ${name} of ${className} is ${property.visibility}; integer keys are public`);
  if (!INTEGER_TEXT.test(name))
    throw new SerializeError(`integer key ${JSON.stringify(name)} of ${className} is not an integer's decimal text`);
  checkInt(BigInt(name));
  return name;
}

/**
 * The properties of the object last written for a class: names, visibilities and their keys' texts. The
 * objects of a job class mostly share them, so the next one is only compared, name by name, instead of
 * mangled, checked for twice-written names and looked up again.
 */
class Layout {
  // Bounds on what layouts hold: jobs have a few dozen properties at most, and a process pushes a few
  // hundred job classes at most; others are written the long way, as fast as before layouts.
  static readonly MAX_PROPERTIES = 64;
  static readonly REMEMBERED = 1024;

  private readonly names: string[];
  private readonly visibilities: Visibility[];
  private readonly declaringClasses: (string | undefined)[];
  private readonly integerKeys: boolean[];

  constructor(
    properties: readonly PhpProperty[],
    readonly keys: readonly NameText[],
  ) {
    this.names = properties.map((p) => p.name);
    this.visibilities = properties.map((p) => p.visibility);
    this.declaringClasses = properties.map((p) => p.declaringClass);
    this.integerKeys = properties.map((p) => p.integerKey === true);
  }

  /** True when these properties have the same names, visibilities, declaring classes and kinds of key, in order. */
  fits(properties: readonly PhpProperty[]): boolean {
    const n = this.names.length;
    if (properties.length !== n) return false;
    for (let i = 0; i < n; i++) {
      const p = properties[i];
      // `?.`: a hole or null where a property should be fails here as it fails the long way
      if (
        p?.name !== this.names[i] ||
        p.visibility !== this.visibilities[i] ||
        p.declaringClass !== this.declaringClasses[i]
      )
        return false;
      if ((p.integerKey === true) !== this.integerKeys[i]) return false;
    }
    return true;
  }
}

const layouts = new Map<string, Layout>();

function remember<T>(texts: Map<string, T>, name: string, text: T, bound = REMEMBERED): T {
  if (texts.size >= bound) texts.clear();
  texts.set(name, text);
  return text;
}

/** The mangled names of one object's properties so far, to refuse the same one twice. */
class NameSet {
  // A job has a dozen properties, where a scan of the earlier names costs a fraction of filling (and
  // growing) a Set; objects with many properties switch to one.
  private static readonly SCAN_UP_TO = 32;
  private readonly names: string[] = [];
  private set: Set<string> | null = null;

  /** Add a name; false when it was already there. */
  add(name: string): boolean {
    if (this.set === null) {
      if (this.names.includes(name)) return false;
      this.names.push(name);
      if (this.names.length > NameSet.SCAN_UP_TO) this.set = new Set(this.names);
      return true;
    }
    if (this.set.has(name)) return false;
    this.set.add(name);
    return true;
  }
}

/**
 * The objects of one serialize() call with the slot each was first written at. A job holds a handful of
 * objects, where a scan of a short list costs less than creating a Map; past that, a Map.
 */
class ObjectSlots {
  private static readonly SCAN_UP_TO = 16;
  private readonly objects: unknown[] = [];
  private readonly slots: number[] = [];
  private map: Map<unknown, number> | null = null;

  get(object: unknown): number | undefined {
    if (this.map !== null) return this.map.get(object);
    const i = this.objects.indexOf(object);
    return i < 0 ? undefined : this.slots[i];
  }

  set(object: unknown, slot: number): void {
    if (this.map !== null) {
      this.map.set(object, slot);
      return;
    }
    this.objects.push(object);
    this.slots.push(slot);
    if (this.objects.length > ObjectSlots.SCAN_UP_TO)
      this.map = new Map(this.objects.map((o, i) => [o, this.slots[i]]));
  }
}

function checkInt(n: bigint): bigint {
  if (n < INT_MIN || n > INT_MAX) throw new SerializeError(`integer ${n} is outside PHP's 64-bit range`);
  return n;
}

// `s:N:` counts UTF-8 bytes. Most strings are ASCII, where N is the length and no surrogate can hide;
// only the others pay for the surrogate search and Buffer.byteLength.
function utf8Length(text: string, what: string): number {
  if (isAscii(text)) return text.length;
  if (LONE_SURROGATE.test(text))
    throw new SerializeError(`${what} holds a lone UTF-16 surrogate, which has no UTF-8 bytes`);
  return Buffer.byteLength(text, 'utf8');
}

function describe(value: unknown): string {
  if (typeof value === 'object' && value !== null) return `an instance of ${value.constructor?.name ?? 'Object'}`;
  return typeof value;
}
