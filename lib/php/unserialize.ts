// Reader for PHP's serialize() format, byte by byte, into the value model of values.ts.
// The php-serialize package is not used: it reads `d:2;` and `i:2;` into the same JS number, drops
// property visibility, and writes 2.0 back as `i:2;`, so a job would not survive the round trip.
//
// Slot numbering follows PHP's unserializer: every value takes the next slot (arrays and objects before
// their contents, `r:` included) except `R:`; array keys and property names take none.
import { UnserializeError } from '../errors';
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
  Visibility,
} from './values';

/** Stricter than PHP's unserialize_max_depth (4096), which a recursive JS reader cannot always reach. */
const MAX_DEPTH = 1024;
const INT_MIN = -(2n ** 63n);
const INT_MAX = 2n ** 63n - 1n;
const INT_TEXT = /^[+-]?[0-9]+$/;
const FLOAT_TEXT = /^(?:[+-]?(?:[0-9]+|[0-9]*\.[0-9]+|[0-9]+\.[0-9]*)(?:[eE][+-]?[0-9]+)?|NAN|INF|-INF)$/;
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Parse one complete PHP serialize() string (a JS string is read as its UTF-8 bytes). */
export function unserialize(input: string | Buffer): PhpValue {
  const reader = new Reader(typeof input === 'string' ? encodeInput(input) : input);
  let value: PhpValue;
  try {
    value = reader.value(0);
  } catch (e) {
    if (e instanceof RangeError) throw new UnserializeError('nesting too deep for the JS stack', reader.pos, { cause: e });
    throw e;
  }
  if (reader.pos !== reader.buf.length) {
    reader.fail(`expected the end of the input after the value, found ${reader.buf.length - reader.pos} trailing byte(s)`);
  }
  return value;
}

/** Decode bytes as UTF-8, or return undefined when they are not valid UTF-8. */
export function decodeUtf8(bytes: Uint8Array): string | undefined {
  try {
    return utf8.decode(bytes);
  } catch {
    return undefined;
  }
}

function encodeInput(input: string): Buffer {
  // Buffer.from would quietly turn a lone surrogate into U+FFFD and change the byte lengths.
  const lone = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.exec(input);
  if (lone) {
    throw new UnserializeError('input string holds a lone UTF-16 surrogate, which has no UTF-8 bytes', Buffer.byteLength(input.slice(0, lone.index)));
  }
  return Buffer.from(input, 'utf8');
}

class Reader {
  pos = 0;
  /** Where the bytes of the last quoted text began, for errors about its content. */
  private quotedAt = 0;
  private readonly slots: PhpValue[] = [];

  constructor(readonly buf: Buffer) {}

  fail(message: string, at: number = this.pos): never {
    throw new UnserializeError(message, at);
  }

  value(depth: number): PhpValue {
    if (depth > MAX_DEPTH) this.fail(`nesting deeper than ${MAX_DEPTH} levels`);
    const start = this.pos;
    if (start >= this.buf.length) this.fail('expected a value (N, b, i, d, s, a, O, E, r, R or C), but the input ended');
    const type = String.fromCharCode(this.buf[start]);
    this.pos++;
    switch (type) {
      case 'N':
        this.expect(';', 'after N');
        return this.slot(null);
      case 'b':
        return this.slot(this.bool());
      case 'i':
        this.expect(':', 'after i');
        return this.slot(this.int(this.until(';', 'an int')));
      case 'd':
        return this.slot(this.float());
      case 's':
        return this.slot(this.string());
      case 'a':
        return this.array(depth);
      case 'O':
        return this.object(depth);
      case 'E':
        return this.slot(this.enumCase());
      case 'r':
      case 'R':
        return this.reference(type, start);
      case 'C':
        return this.slot(this.custom());
      default:
        return this.fail(`unknown type letter ${describeByte(this.buf[start])}, expected one of N b i d s a O E r R C`, start);
    }
  }

  private slot<T extends PhpValue>(value: T): T {
    this.slots.push(value);
    return value;
  }

  private bool(): boolean {
    this.expect(':', 'after b');
    const digit = this.buf[this.pos];
    if (digit !== 0x30 && digit !== 0x31) this.fail(`expected 0 or 1 in a bool, found ${this.found()}`);
    this.pos++;
    this.expect(';', 'after a bool');
    return digit === 0x31;
  }

  private int(text: string, at: number = this.pos - text.length - 1): bigint {
    if (!INT_TEXT.test(text)) this.fail(`expected an integer, found "${text}"`, at);
    const n = BigInt(text);
    if (n < INT_MIN || n > INT_MAX) this.fail(`integer ${text} is outside PHP's 64-bit range`, at);
    return n;
  }

  private float(): number {
    this.expect(':', 'after d');
    const text = this.until(';', 'a float');
    if (!FLOAT_TEXT.test(text)) this.fail(`expected a float, found "${text}"`, this.pos - text.length - 1);
    if (text === 'NAN') return NaN;
    if (text === 'INF') return Infinity;
    if (text === '-INF') return -Infinity;
    return Number(text);
  }

  private string(): string | PhpBytes {
    const bytes = this.quoted(null, 'a string');
    this.expect(';', 'after a string');
    const text = decodeUtf8(bytes);
    return text === undefined ? new PhpBytes(Buffer.from(bytes)) : text;
  }

  private array(depth: number): PhpArray {
    this.expect(':', 'after a');
    const count = this.length('an array count');
    this.expect(':', 'after the array count');
    this.expect('{', 'to open the array');
    const array = this.slot(new PhpArray());
    for (let i = 0; i < count; i++) {
      const at = this.pos;
      const key = this.key();
      if (array.entries.has(key)) this.fail(`duplicate array key ${typeof key === 'bigint' ? key : JSON.stringify(key)}`, at);
      array.entries.set(key, this.value(depth + 1));
    }
    this.expect('}', `to close an array of ${count} element(s)`);
    return array;
  }

  private key(): PhpArrayKey {
    const at = this.pos;
    const type = this.buf[at];
    if (type === 0x69 /* i */) {
      this.pos++;
      this.expect(':', 'after i');
      return this.int(this.until(';', 'an int key'));
    }
    if (type === 0x73 /* s */) {
      const bytes = this.quoted('s', 'a string key');
      this.expect(';', 'after a string key');
      return this.text(bytes, 'array key', at);
    }
    return this.fail(`expected an array key (i or s), found ${this.found()}`);
  }

  private object(depth: number): PhpObject {
    const className = this.text(this.quoted(null, 'a class name'), 'class name', this.quotedAt);
    this.expect(':', 'after the class name');
    const count = this.length('a property count');
    this.expect(':', 'after the property count');
    this.expect('{', 'to open the object');
    const object = this.slot(new PhpObject(className, []));
    const seen = new Set<string>();
    for (let i = 0; i < count; i++) {
      const at = this.pos;
      if (this.buf[at] !== 0x73 /* s */) this.fail(`expected a property name (s), found ${this.found()}`);
      const mangled = this.text(this.quoted('s', 'a property name'), 'property name', at);
      this.expect(';', 'after a property name');
      if (seen.has(mangled)) this.fail(`duplicate property ${JSON.stringify(mangled)} in ${className}`, at);
      seen.add(mangled);
      const property = demangle(mangled);
      if (!property) this.fail(`malformed mangled property name ${JSON.stringify(mangled)}`, at);
      object.properties.push({ ...property, value: this.value(depth + 1) });
    }
    this.expect('}', `to close an object of ${count} propert${count === 1 ? 'y' : 'ies'}`);
    return object;
  }

  private enumCase(): PhpEnum {
    const bytes = this.quoted(null, 'an enum case');
    const at = this.quotedAt;
    const name = this.text(bytes, 'enum case', at);
    this.expect(';', 'after an enum case');
    const colon = name.indexOf(':');
    if (colon <= 0 || colon === name.length - 1) this.fail(`expected "Class:Case" in an enum, found ${JSON.stringify(name)}`, at);
    return new PhpEnum(name.slice(0, colon), name.slice(colon + 1));
  }

  private reference(kind: 'r' | 'R', at: number): PhpReference {
    this.expect(':', `after ${kind}`);
    const index = this.length('a reference index');
    this.expect(';', 'after a reference index');
    if (index < 1 || index > this.slots.length) {
      this.fail(`${kind}:${index} refers to no earlier value (${this.slots.length} so far)`, at);
    }
    const target = this.slots[index - 1];
    if (kind === 'r' && !(target instanceof PhpObject || target instanceof PhpEnum || target instanceof PhpCustomObject)) {
      this.fail(`r:${index} must refer to an object`, at);
    }
    // r: takes a slot of its own (holding the same object); R: does not.
    if (kind === 'r') this.slots.push(target);
    return new PhpReference(kind, index, target);
  }

  private custom(): PhpCustomObject {
    const className = this.text(this.quoted(null, 'a class name'), 'class name', this.quotedAt);
    this.expect(':', 'after the class name');
    const size = this.length('a data length');
    this.expect(':', 'after the data length');
    this.expect('{', 'to open custom data');
    const data = this.take(size, 'custom data');
    this.expect('}', `after ${size} byte(s) of custom data (wrong length?)`);
    return new PhpCustomObject(className, Buffer.from(data));
  }

  /** `<letter>:<len>:"<bytes>"`, where the letter has already been read when `letter` is null. */
  private quoted(letter: string | null, what: string): Buffer {
    if (letter !== null) this.expect(letter, `to start ${what}`);
    this.expect(':', `before the length of ${what}`);
    const size = this.length(`the length of ${what}`);
    this.expect(':', `after the length of ${what}`);
    this.expect('"', `to open ${what}`);
    this.quotedAt = this.pos;
    const bytes = this.take(size, what);
    this.expect('"', `after ${size} byte(s) of ${what} (wrong length?)`);
    return bytes;
  }

  private take(size: number, what: string): Buffer {
    if (this.pos + size > this.buf.length) {
      this.fail(`${what} of ${size} byte(s) runs past the end of the input (${this.buf.length - this.pos} left)`);
    }
    const bytes = this.buf.subarray(this.pos, this.pos + size);
    this.pos += size;
    return bytes;
  }

  /** An unsigned decimal (PHP's `uiv`) used for lengths, counts and reference indexes. */
  private length(what: string): number {
    const start = this.pos;
    while (this.pos < this.buf.length && this.buf[this.pos] >= 0x30 && this.buf[this.pos] <= 0x39) this.pos++;
    if (this.pos === start) this.fail(`expected ${what} (digits), found ${this.found()}`);
    const n = Number(this.buf.toString('latin1', start, this.pos));
    if (!Number.isSafeInteger(n)) this.fail(`${what} ${n} is too large`, start);
    return n;
  }

  /** The text up to (not including) `terminator`, which is consumed. */
  private until(terminator: string, what: string): string {
    const end = this.buf.indexOf(terminator.charCodeAt(0), this.pos);
    if (end < 0) this.fail(`expected '${terminator}' to end ${what}, but the input ended`, this.buf.length);
    const text = this.buf.toString('latin1', this.pos, end);
    this.pos = end + 1;
    return text;
  }

  private text(bytes: Buffer, what: string, at: number): string {
    const text = decodeUtf8(bytes);
    if (text === undefined) this.fail(`${what} is not valid UTF-8`, at);
    return text;
  }

  private expect(char: string, context: string): void {
    if (this.buf[this.pos] !== char.charCodeAt(0)) this.fail(`expected '${char}' ${context}, found ${this.found()}`);
    this.pos++;
  }

  private found(): string {
    return this.pos >= this.buf.length ? 'the end of the input' : describeByte(this.buf[this.pos]);
  }
}

function describeByte(byte: number): string {
  return byte >= 0x20 && byte < 0x7f ? `'${String.fromCharCode(byte)}'` : `byte 0x${byte.toString(16).padStart(2, '0')}`;
}

/** Split a serialized property name into name, visibility and declaring class (§7.2 mangling). */
export function demangle(mangled: string): Omit<PhpProperty, 'value'> | undefined {
  if (!mangled.startsWith('\0')) return { name: mangled, visibility: 'public' };
  const end = mangled.indexOf('\0', 1);
  if (end <= 1) return undefined;
  const scope = mangled.slice(1, end);
  const name = mangled.slice(end + 1);
  const visibility: Visibility = scope === '*' ? 'protected' : 'private';
  return visibility === 'protected' ? { name, visibility } : { name, visibility, declaringClass: scope };
}
