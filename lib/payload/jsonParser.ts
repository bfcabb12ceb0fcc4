// The exact JSON reader behind phpJsonDecode, for the texts JSON.parse would get wrong: it keeps 64-bit
// integers as bigint, reads an integer `-0` as 0 like PHP, rejects unpaired surrogate escapes like PHP,
// and remembers the key order of objects with numeric keys (JS objects list those first, ascending).
import { InvalidPayloadError } from '../errors';

/** Non-enumerable property of a decoded object holding its keys in text order, when JS would reorder them. */
export const KEY_ORDER: unique symbol = Symbol('larq.jsonKeyOrder');

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const NUMBER = /-?(?:0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/y;
const PLAIN_RUN = /[^"\\\x00-\x1f]*/y;
const ARRAY_INDEX = /^(?:0|[1-9]\d{0,9})$/;
const hasOwn = Object.prototype.hasOwnProperty;
const SHORT_ESCAPES: Record<string, string> = {
  '"': '"',
  '\\': '\\',
  '/': '/',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
};

const wellFormed = (String.prototype as { isWellFormed?: (this: string) => boolean }).isWellFormed;
/** An unpaired UTF-16 surrogate, which PHP strings (UTF-8) cannot hold. */
export const LONE_SURROGATE = /\p{Cs}/u;

/**
 * Whether a value JSON.parse made may differ from what parseJsonExact makes of the same text: a number
 * that is an integer beyond 2^53 (its text may hold a 64-bit integer JSON.parse rounded), a -0 (an
 * integer `-0` is 0 in PHP), a string or key holding a surrogate (PHP rejects an unpaired surrogate escape),
 * or an object whose first key is an array index (JS lists those first; the text may have had another
 * order). The parsed value is checked rather than the text, since it has far fewer parts to look at.
 * A true answer only means: parse again exactly. Iterative, so any depth JSON.parse
 * returns is walked.
 */
export function mayNeedExactParse(value: unknown): boolean {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === 'number') {
      if ((Number.isInteger(v) && !Number.isSafeInteger(v)) || Object.is(v, -0)) return true;
    } else if (typeof v === 'string') {
      if (!isWellFormedText(v)) return true;
    } else if (typeof v === 'object' && v !== null) {
      if (Array.isArray(v)) {
        for (let i = 0; i < v.length; i++) stack.push(v[i]);
        continue;
      }
      let first = true;
      for (const key in v) {
        // JS enumerates array-index keys first, so an object holding one shows it as its first key.
        if (first && isArrayIndex(key)) return true;
        first = false;
        if (!isWellFormedText(key)) return true;
        stack.push((v as Record<string, unknown>)[key]);
      }
    }
  }
  return false;
}

/** Whether `s` holds no unpaired surrogate (String#isWellFormed where Node has it). */
export function isWellFormedText(s: string): boolean {
  return wellFormed ? wellFormed.call(s) : !LONE_SURROGATE.test(s);
}

// A key JS objects list first, ascending: an array index (0 to 2^32 - 2, written without leading zeros).
function isArrayIndex(key: string): boolean {
  return ARRAY_INDEX.test(key) && Number(key) < 2 ** 32 - 1;
}

/** Parse `text` as PHP's json_decode(text, true) would, keeping what JS values can keep. */
export function parseJsonExact(text: string): unknown {
  const reader = new Reader(text);
  try {
    reader.skipSpace();
    const value = reader.value();
    reader.skipSpace();
    if (reader.pos < text.length) reader.fail('unexpected text after the JSON value');
    return value;
  } catch (e) {
    if (e instanceof RangeError) throw new InvalidPayloadError('Invalid JSON: nested too deeply', text, { cause: e });
    throw e;
  }
}

class Reader {
  pos = 0;

  constructor(private readonly text: string) {}

  fail(what: string, at: number = this.pos): never {
    const found = at < this.text.length ? `'${this.text[at]}'` : 'end of input';
    throw new InvalidPayloadError(`Invalid JSON at character ${at}: ${what} (found ${found})`, this.text);
  }

  skipSpace(): void {
    const t = this.text;
    let c = t.charCodeAt(this.pos);
    while (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) c = t.charCodeAt(++this.pos);
  }

  value(): unknown {
    const t = this.text;
    switch (t[this.pos]) {
      case '{':
        return this.object();
      case '[':
        return this.array();
      case '"':
        return this.string();
      case 't':
        return this.literal('true', true);
      case 'f':
        return this.literal('false', false);
      case 'n':
        return this.literal('null', null);
      default:
        return this.number();
    }
  }

  private literal<T>(word: string, value: T): T {
    if (!this.text.startsWith(word, this.pos)) this.fail('expected a JSON value');
    this.pos += word.length;
    return value;
  }

  private number(): number | bigint {
    NUMBER.lastIndex = this.pos;
    const m = NUMBER.exec(this.text);
    if (!m) this.fail('expected a JSON value');
    const token = m[0];
    this.pos += token.length;
    if (m[1] !== undefined || m[2] !== undefined) return Number(token);
    // integers: PHP keeps 64 bits exactly and turns anything larger into a float
    if (token.length < 16) return Number(token) || 0;
    const big = BigInt(token);
    if (big >= BigInt(Number.MIN_SAFE_INTEGER) && big <= BigInt(Number.MAX_SAFE_INTEGER)) return Number(big);
    return big >= INT64_MIN && big <= INT64_MAX ? big : Number(token);
  }

  string(): string {
    const t = this.text;
    this.pos++; // opening quote
    let out = '';
    for (;;) {
      // test() rather than exec(): the run's end is lastIndex, and no match array is allocated.
      PLAIN_RUN.lastIndex = this.pos;
      PLAIN_RUN.test(t);
      out += t.slice(this.pos, PLAIN_RUN.lastIndex);
      this.pos = PLAIN_RUN.lastIndex;
      const c = t[this.pos];
      if (c === '"') {
        this.pos++;
        return out;
      }
      if (c !== '\\') this.fail(c === undefined ? 'unterminated string' : 'control character in a string');
      const e = t[this.pos + 1];
      if (e === 'u') {
        out += this.unicodeEscape();
      } else if (e !== undefined && e in SHORT_ESCAPES) {
        out += SHORT_ESCAPES[e];
        this.pos += 2;
      } else {
        this.fail('invalid escape sequence', this.pos + 1);
      }
    }
  }

  private unicodeEscape(): string {
    const start = this.pos;
    const high = this.hex4();
    if (high < 0xd800 || high > 0xdfff) return String.fromCharCode(high);
    if (high <= 0xdbff && this.text.startsWith('\\u', this.pos)) {
      const low = this.hex4();
      if (low >= 0xdc00 && low <= 0xdfff) return String.fromCharCode(high, low);
    }
    return this.fail('single unpaired UTF-16 surrogate in a \\u escape', start);
  }

  /** Read `\uXXXX` at pos and return its code unit. */
  private hex4(): number {
    const digits = this.text.slice(this.pos + 2, this.pos + 6);
    if (!/^[0-9a-fA-F]{4}$/.test(digits)) this.fail('invalid \\u escape', this.pos);
    this.pos += 6;
    return parseInt(digits, 16);
  }

  private array(): unknown[] {
    const out: unknown[] = [];
    this.pos++;
    this.skipSpace();
    if (this.text[this.pos] === ']') {
      this.pos++;
      return out;
    }
    for (;;) {
      this.skipSpace();
      out.push(this.value());
      this.skipSpace();
      const c = this.text[this.pos++];
      if (c === ']') return out;
      if (c !== ',') this.fail("expected ',' or ']' in an array", this.pos - 1);
    }
  }

  private object(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    let order: string[] | null = null;
    const keys: string[] = [];
    this.pos++;
    this.skipSpace();
    if (this.text[this.pos] === '}') {
      this.pos++;
      return out;
    }
    for (;;) {
      this.skipSpace();
      if (this.text[this.pos] !== '"') this.fail('expected a string key in an object');
      const key = this.string();
      this.skipSpace();
      if (this.text[this.pos] !== ':') this.fail("expected ':' after an object key");
      this.pos++;
      this.skipSpace();
      const value = this.value();
      const own = hasOwn.call(out, key);
      if (!own) keys.push(key);
      if (order === null && isArrayIndex(key)) order = keys;
      // A key found nowhere on the object or its prototype becomes the same data property by plain
      // assignment, which is much faster; any other (a repeated key, "__proto__", "toString") needs
      // defineProperty, or "__proto__" would replace the prototype instead of becoming data.
      if (own || key in out)
        Object.defineProperty(out, key, { value, writable: true, enumerable: true, configurable: true });
      else out[key] = value;
      this.skipSpace();
      const c = this.text[this.pos++];
      if (c === '}') break;
      if (c !== ',') this.fail("expected ',' or '}' in an object", this.pos - 1);
    }
    if (order !== null) Object.defineProperty(out, KEY_ORDER, { value: order, enumerable: false });
    return out;
  }
}
