// Reader for PHP's serialize() format, byte by byte, into the value model of values.ts.
// The php-serialize package is not used: it reads `d:2;` and `i:2;` into the same JS number, drops
// property visibility, and writes 2.0 back as `i:2;`, so a job would not survive the round trip.
//
// Slot numbering follows PHP's unserializer: every value takes the next slot (arrays and objects before
// their contents, `r:` included) except `R:`; array keys and property names take none.
//
// Speed (this runs once per popped job): the reader walks a JS string holding one char per input byte,
// so byte offsets are string indexes. An ASCII input string is that string already; anything else is
// first turned into UTF-8 bytes and read back as latin1. A token is cut out with slice() and decoded as
// UTF-8 only when it holds a byte above 0x7F. Error messages are built only when reading fails.
import { UnserializeError } from '../errors';
import { isAscii } from './ascii';
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
/** A byte above 0x7F (in latin1 text), searched from lastIndex. */
const HIGH_BYTE = /[\x80-\xff]/g;
/** Up to this many digits a decimal fits a double exactly, so it can be summed digit by digit. */
const EXACT_DIGITS = 15;
/** Up to this many properties a duplicate name is looked for by a linear scan rather than a Set. */
const SCAN_PROPERTIES = 16;
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

// Char codes of the format's punctuation and type letters.
const NUL = 0x00;
const QUOTE = 0x22;
const PLUS = 0x2b;
const MINUS = 0x2d;
const DIGIT_0 = 0x30;
const DIGIT_1 = 0x31;
const DIGIT_9 = 0x39;
const COLON = 0x3a;
const SEMICOLON = 0x3b;
const OPEN = 0x7b;
const CLOSE = 0x7d;
const LETTER_C = 0x43;
const LETTER_E = 0x45;
const LETTER_N = 0x4e;
const LETTER_O = 0x4f;
const LETTER_R = 0x52;
const LETTER_a = 0x61;
const LETTER_b = 0x62;
const LETTER_d = 0x64;
const LETTER_i = 0x69;
const LETTER_r = 0x72;
const LETTER_s = 0x73;

/** Parse one complete PHP serialize() string (a JS string is read as its UTF-8 bytes). */
export function unserialize(input: string | Buffer): PhpValue {
  const reader = readerOf(input);
  let value: PhpValue;
  try {
    value = reader.value(0);
  } catch (e) {
    if (e instanceof RangeError)
      throw new UnserializeError('nesting too deep for the JS stack', reader.pos, { cause: e });
    throw e;
  }
  if (reader.pos !== reader.src.length) {
    reader.fail(
      `expected the end of the input after the value, found ${reader.src.length - reader.pos} trailing byte(s)`,
    );
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

function readerOf(input: string | Buffer): Reader {
  // An ASCII string's chars are its UTF-8 bytes: read it as it is, with no copy.
  if (typeof input === 'string' && isAscii(input)) return new Reader(input, null);
  const bytes = typeof input === 'string' ? encodeInput(input) : input;
  return new Reader(bytes.toString('latin1'), bytes);
}

/** U+FFFD in UTF-8: what Buffer.from writes for a lone surrogate. */
const REPLACEMENT = Buffer.from('\uFFFD', 'utf8');

function encodeInput(input: string): Buffer {
  const bytes = Buffer.from(input, 'utf8');
  // Buffer.from quietly turns a lone surrogate into U+FFFD. Only input whose bytes hold a U+FFFD can
  // have had one, so the costly search below runs for that input alone.
  if (bytes.includes(REPLACEMENT)) {
    const lone = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.exec(input);
    if (lone) {
      throw new UnserializeError(
        'input string holds a lone UTF-16 surrogate, which has no UTF-8 bytes',
        Buffer.byteLength(input.slice(0, lone.index)),
      );
    }
  }
  return bytes;
}

class Reader {
  pos = 0;
  private readonly slots: PhpValue[] = [];
  /**
   * Bytes highFrom..nextHigh-1 are all below 0x80, and nextHigh is the first byte above 0x7F after them
   * (or the input length; -1 before the first scan). Tokens are decoded in input order, so the input
   * is scanned once.
   */
  private highFrom = 0;
  private nextHigh: number;

  /**
   * @param src one char per input byte (char code = byte)
   * @param bytes the input bytes, for decoding UTF-8; null when `src` is an ASCII input string
   */
  constructor(
    readonly src: string,
    private readonly bytes: Buffer | null,
  ) {
    this.nextHigh = bytes === null ? src.length : -1;
  }

  fail(message: string, at: number = this.pos): never {
    throw new UnserializeError(message, at);
  }

  value(depth: number): PhpValue {
    if (depth > MAX_DEPTH) this.fail(`nesting deeper than ${MAX_DEPTH} levels`);
    const start = this.pos;
    if (start >= this.src.length)
      this.fail('expected a value (N, b, i, d, s, a, O, E, r, R or C), but the input ended');
    const type = this.src.charCodeAt(start);
    this.pos++;
    switch (type) {
      case LETTER_N:
        this.expect(SEMICOLON, 'after N');
        return this.slot(null);
      case LETTER_b:
        return this.slot(this.bool());
      case LETTER_i:
        this.expect(COLON, 'after i');
        return this.slot(this.int('an int'));
      case LETTER_d:
        return this.slot(this.float());
      case LETTER_s:
        return this.slot(this.string());
      case LETTER_a:
        return this.array(depth);
      case LETTER_O:
        return this.object(depth);
      case LETTER_E:
        return this.slot(this.enumCase());
      case LETTER_r:
      case LETTER_R:
        return this.reference(type === LETTER_r ? 'r' : 'R', start);
      case LETTER_C:
        return this.slot(this.custom());
      default:
        return this.fail(`unknown type letter ${describeByte(type)}, expected one of N b i d s a O E r R C`, start);
    }
  }

  private slot<T extends PhpValue>(value: T): T {
    this.slots.push(value);
    return value;
  }

  private bool(): boolean {
    this.expect(COLON, 'after b');
    const digit = this.src.charCodeAt(this.pos);
    if (digit !== DIGIT_0 && digit !== DIGIT_1) this.fail(`expected 0 or 1 in a bool, found ${this.found()}`);
    this.pos++;
    this.expect(SEMICOLON, 'after a bool');
    return digit === DIGIT_1;
  }

  /** The integer after `i:`, up to and including its `;`. */
  private int(what: string): bigint {
    // Fast path: a sign, 1 to 15 digits and `;`, which needs no range check and is exact as a double.
    const src = this.src;
    let at = this.pos;
    let c = src.charCodeAt(at);
    const negative = c === MINUS;
    if (negative || c === PLUS) c = src.charCodeAt(++at);
    const digitsAt = at;
    let n = 0;
    while (c >= DIGIT_0 && c <= DIGIT_9) {
      n = n * 10 + (c - DIGIT_0);
      c = src.charCodeAt(++at);
    }
    if (c === SEMICOLON && at > digitsAt && at - digitsAt <= EXACT_DIGITS) {
      this.pos = at + 1;
      return BigInt(negative ? -n : n);
    }
    return this.intText(this.until(';', what));
  }

  private intText(text: string, at: number = this.pos - text.length - 1): bigint {
    if (!INT_TEXT.test(text)) this.fail(`expected an integer, found "${text}"`, at);
    const n = BigInt(text);
    if (n < INT_MIN || n > INT_MAX) this.fail(`integer ${text} is outside PHP's 64-bit range`, at);
    return n;
  }

  private float(): number {
    this.expect(COLON, 'after d');
    const text = this.until(';', 'a float');
    if (!FLOAT_TEXT.test(text)) this.fail(`expected a float, found "${text}"`, this.pos - text.length - 1);
    if (text === 'NAN') return NaN;
    if (text === 'INF') return Infinity;
    if (text === '-INF') return -Infinity;
    return Number(text);
  }

  private string(): string | PhpBytes {
    const start = this.quoted(0, 'a string');
    const end = this.pos - 1;
    this.expect(SEMICOLON, 'after a string');
    if (!this.hasHighByte(start, end)) return this.src.slice(start, end);
    const bytes = this.bytes!.subarray(start, end);
    const text = decodeUtf8(bytes);
    return text === undefined ? new PhpBytes(Buffer.from(bytes)) : text;
  }

  private array(depth: number): PhpArray {
    this.expect(COLON, 'after a');
    const count = this.length('an array count');
    this.expect(COLON, 'after the array count');
    this.expect(OPEN, 'to open the array');
    const array = this.slot(new PhpArray());
    const entries = array.entries;
    for (let i = 0; i < count; i++) {
      const at = this.pos;
      const key = this.key();
      if (entries.has(key)) this.fail(`duplicate array key ${typeof key === 'bigint' ? key : JSON.stringify(key)}`, at);
      entries.set(key, this.value(depth + 1));
    }
    if (this.src.charCodeAt(this.pos) !== CLOSE) this.failExpected(CLOSE, `to close an array of ${count} element(s)`);
    this.pos++;
    return array;
  }

  private key(): PhpArrayKey {
    const at = this.pos;
    const type = this.src.charCodeAt(at);
    if (type === LETTER_i) {
      this.pos++;
      this.expect(COLON, 'after i');
      return this.int('an int key');
    }
    if (type === LETTER_s) {
      const start = this.quoted(LETTER_s, 'a string key');
      const end = this.pos - 1;
      this.expect(SEMICOLON, 'after a string key');
      return this.text(start, end, 'array key', at);
    }
    return this.fail(`expected an array key (i or s), found ${this.found()}`);
  }

  private object(depth: number): PhpObject {
    const nameAt = this.quoted(0, 'a class name');
    const className = this.text(nameAt, this.pos - 1, 'class name', nameAt);
    this.expect(COLON, 'after the class name');
    const count = this.length('a property count');
    this.expect(COLON, 'after the property count');
    this.expect(OPEN, 'to open the object');
    const properties: PhpProperty[] = [];
    const object = this.slot(new PhpObject(className, properties));
    const seen = count > SCAN_PROPERTIES ? new Set<string>() : null;
    for (let i = 0; i < count; i++) {
      const at = this.pos;
      if (this.src.charCodeAt(at) === LETTER_i) {
        this.integerKey(properties, seen, className, depth);
        continue;
      }
      if (this.src.charCodeAt(at) !== LETTER_s)
        this.fail(`expected a property name (s) or an integer key (i), found ${this.found()}`);
      const start = this.quoted(LETTER_s, 'a property name');
      const end = this.pos - 1;
      this.expect(SEMICOLON, 'after a property name');
      const text = this.text(start, end, 'property name', at);
      // A public name is its own mangled form, so only `\0`-prefixed names go through demangle().
      const mangled = text;
      const parts = text.charCodeAt(0) === NUL ? demangle(text) : null;
      if (seen === null ? isDeclared(properties, mangled, parts) : seen.has(mangled)) {
        this.fail(`duplicate property ${JSON.stringify(mangled)} in ${className}`, at);
      }
      seen?.add(mangled);
      if (parts === undefined) this.fail(`malformed mangled property name ${JSON.stringify(mangled)}`, at);
      const value = this.value(depth + 1);
      if (parts === null) properties.push({ name: mangled, visibility: 'public', value });
      else if (parts.declaringClass === undefined)
        properties.push({ name: parts.name, visibility: parts.visibility, value });
      else
        properties.push({
          name: parts.name,
          visibility: parts.visibility,
          declaringClass: parts.declaringClass,
          value,
        });
    }
    if (this.src.charCodeAt(this.pos) !== CLOSE)
      this.failExpected(CLOSE, `to close an object of ${count} propert${count === 1 ? 'y' : 'ies'}`);
    this.pos++;
    return object;
  }

  /**
   * An integer key and its value (`i:0;...`), as an object whose `__serialize()` returns integer keys
   * writes it (ArrayObject, SplQueue, a class returning a list). Kept apart from a name such as
   * `s:1:"0";` so that it is written back as `i:`; the name `"0"` and the key 0 are the same key to PHP.
   */
  private integerKey(properties: PhpProperty[], seen: Set<string> | null, className: string, depth: number): void {
    const at = this.pos++;
    this.expect(COLON, 'after i');
    const name = String(this.int('an integer key'));
    // a public name is its own mangled form, so the checks for names find this key too
    if (seen === null ? isDeclared(properties, name, null) : seen.has(name))
      this.fail(`duplicate property ${JSON.stringify(name)} in ${className}`, at);
    seen?.add(name);
    properties.push({ name, visibility: 'public', integerKey: true, value: this.value(depth + 1) });
  }

  private enumCase(): PhpEnum {
    const at = this.quoted(0, 'an enum case');
    const name = this.text(at, this.pos - 1, 'enum case', at);
    this.expect(SEMICOLON, 'after an enum case');
    const colon = name.indexOf(':');
    if (colon <= 0 || colon === name.length - 1)
      this.fail(`expected "Class:Case" in an enum, found ${JSON.stringify(name)}`, at);
    return new PhpEnum(name.slice(0, colon), name.slice(colon + 1));
  }

  private reference(kind: 'r' | 'R', at: number): PhpReference {
    if (this.src.charCodeAt(this.pos) !== COLON) this.failExpected(COLON, `after ${kind}`);
    this.pos++;
    const index = this.length('a reference index');
    this.expect(SEMICOLON, 'after a reference index');
    if (index < 1 || index > this.slots.length) {
      this.fail(`${kind}:${index} refers to no earlier value (${this.slots.length} so far)`, at);
    }
    const target = this.slots[index - 1];
    if (
      kind === 'r' &&
      !(target instanceof PhpObject || target instanceof PhpEnum || target instanceof PhpCustomObject)
    ) {
      this.fail(`r:${index} must refer to an object`, at);
    }
    // r: takes a slot of its own (holding the same object); R: does not.
    if (kind === 'r') this.slots.push(target);
    return new PhpReference(kind, index, target);
  }

  private custom(): PhpCustomObject {
    const nameAt = this.quoted(0, 'a class name');
    const className = this.text(nameAt, this.pos - 1, 'class name', nameAt);
    this.expect(COLON, 'after the class name');
    const size = this.length('a data length');
    this.expect(COLON, 'after the data length');
    this.expect(OPEN, 'to open custom data');
    const start = this.pos;
    if (start + size > this.src.length) {
      this.fail(`custom data of ${size} byte(s) runs past the end of the input (${this.src.length - start} left)`);
    }
    this.pos += size;
    if (this.src.charCodeAt(this.pos) !== CLOSE)
      this.failExpected(CLOSE, `after ${size} byte(s) of custom data (wrong length?)`);
    this.pos++;
    return new PhpCustomObject(className, this.copyBytes(start, start + size));
  }

  /**
   * `<letter>:<len>:"<bytes>"`, where the letter has already been read when `letter` is 0. Returns
   * where the bytes begin; they end one before `pos`, at the closing quote.
   */
  private quoted(letter: number, what: string): number {
    const src = this.src;
    if (letter !== 0) {
      if (src.charCodeAt(this.pos) !== letter) this.failExpected(letter, `to start ${what}`);
      this.pos++;
    }
    if (src.charCodeAt(this.pos) !== COLON) this.failExpected(COLON, `before the length of ${what}`);
    this.pos++;
    const size = this.length(what, true);
    if (src.charCodeAt(this.pos) !== COLON) this.failExpected(COLON, `after the length of ${what}`);
    this.pos++;
    if (src.charCodeAt(this.pos) !== QUOTE) this.failExpected(QUOTE, `to open ${what}`);
    const start = ++this.pos;
    if (start + size > src.length) {
      this.fail(`${what} of ${size} byte(s) runs past the end of the input (${src.length - start} left)`);
    }
    this.pos = start + size;
    if (src.charCodeAt(this.pos) !== QUOTE)
      this.failExpected(QUOTE, `after ${size} byte(s) of ${what} (wrong length?)`);
    this.pos++;
    return start;
  }

  /**
   * An unsigned decimal (PHP's `uiv`) used for lengths, counts and reference indexes. `lengthOf` makes
   * errors name "the length of <what>".
   */
  private length(what: string, lengthOf = false): number {
    const src = this.src;
    const start = this.pos;
    let end = start;
    let n = 0;
    let c = src.charCodeAt(end);
    while (c >= DIGIT_0 && c <= DIGIT_9) {
      n = n * 10 + (c - DIGIT_0);
      c = src.charCodeAt(++end);
    }
    this.pos = end;
    if (end === start)
      this.fail(`expected ${lengthOf ? `the length of ${what}` : what} (digits), found ${this.found()}`);
    if (end - start > EXACT_DIGITS) {
      // Rounded as Number() rounds the whole text, which a digit-by-digit sum would not match.
      n = Number(src.slice(start, end));
      if (!Number.isSafeInteger(n)) this.fail(`${lengthOf ? `the length of ${what}` : what} ${n} is too large`, start);
    }
    return n;
  }

  /** The text up to (not including) `terminator`, which is consumed. */
  private until(terminator: string, what: string): string {
    const end = this.src.indexOf(terminator, this.pos);
    if (end < 0) this.fail(`expected '${terminator}' to end ${what}, but the input ended`, this.src.length);
    const text = this.src.slice(this.pos, end);
    this.pos = end + 1;
    return text;
  }

  /** Bytes start..end as UTF-8 text; fails at `at` naming `what` when they are not valid UTF-8. */
  private text(start: number, end: number, what: string, at: number): string {
    if (!this.hasHighByte(start, end)) return this.src.slice(start, end);
    const text = decodeUtf8(this.bytes!.subarray(start, end));
    if (text === undefined) this.fail(`${what} is not valid UTF-8`, at);
    return text;
  }

  /** Whether a byte of start..end is above 0x7F, so the bytes need decoding as UTF-8. */
  private hasHighByte(start: number, end: number): boolean {
    if (start < this.highFrom || start > this.nextHigh) {
      HIGH_BYTE.lastIndex = start;
      this.highFrom = start;
      this.nextHigh = HIGH_BYTE.test(this.src) ? HIGH_BYTE.lastIndex - 1 : this.src.length;
    }
    return this.nextHigh < end;
  }

  /** A copy of bytes start..end. */
  private copyBytes(start: number, end: number): Buffer {
    return this.bytes === null
      ? Buffer.from(this.src.slice(start, end), 'latin1')
      : Buffer.from(this.bytes.subarray(start, end));
  }

  private expect(char: number, context: string): void {
    if (this.src.charCodeAt(this.pos) !== char) this.failExpected(char, context);
    this.pos++;
  }

  private failExpected(char: number, context: string): never {
    return this.fail(`expected '${String.fromCharCode(char)}' ${context}, found ${this.found()}`);
  }

  private found(): string {
    return this.pos >= this.src.length ? 'the end of the input' : describeByte(this.src.charCodeAt(this.pos));
  }
}

/**
 * Whether `properties` already holds the property named `mangled` (`parts` is its demangle(), null for a
 * public name). Distinct valid mangled names demangle to distinct (name, visibility, class), so this finds
 * the duplicates a Set of mangled names would; a malformed name (`parts` undefined) matches nothing.
 */
function isDeclared(
  properties: readonly PhpProperty[],
  mangled: string,
  parts: Omit<PhpProperty, 'value'> | null | undefined,
): boolean {
  if (parts === undefined) return false;
  const name = parts === null ? mangled : parts.name;
  const visibility = parts === null ? 'public' : parts.visibility;
  const declaringClass = parts?.declaringClass;
  for (const p of properties)
    if (p.name === name && p.visibility === visibility && p.declaringClass === declaringClass) return true;
  return false;
}

function describeByte(byte: number): string {
  return byte >= 0x20 && byte < 0x7f
    ? `'${String.fromCharCode(byte)}'`
    : `byte 0x${byte.toString(16).padStart(2, '0')}`;
}

/** Split a serialized property name into name, visibility and declaring class (PHP's property-name mangling). */
export function demangle(mangled: string): Omit<PhpProperty, 'value'> | undefined {
  if (!mangled.startsWith('\0')) return { name: mangled, visibility: 'public' };
  const end = mangled.indexOf('\0', 1);
  if (end <= 1) return undefined;
  const scope = mangled.slice(1, end);
  const name = mangled.slice(end + 1);
  const visibility: Visibility = scope === '*' ? 'protected' : 'private';
  return visibility === 'protected' ? { name, visibility } : { name, visibility, declaringClass: scope };
}
