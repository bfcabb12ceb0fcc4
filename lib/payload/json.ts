// PHP's json_encode/json_decode, byte for byte. Payload strings are compared byte for byte in two places
// (the reserved copy in Redis and compatibility checks), so the escaping, number text and key order
// must match what Laravel writes, and decoding must not lose 64-bit integers or key order.
import { SerializeError } from '../errors';
import { isAscii } from '../php/ascii';
import { formatPhpFloat } from '../php/float';
import { isWellFormedText, KEY_ORDER, LONE_SURROGATE, mayNeedExactParse, parseJsonExact } from './jsonParser';

/** Flags of PHP's json_encode that larq needs. */
export interface PhpJsonEncodeOptions {
  /** JSON_UNESCAPED_UNICODE: write non-ASCII as raw UTF-8 (U+2028/U+2029 stay escaped). Default true. */
  unescapedUnicode?: boolean;
  /** JSON_UNESCAPED_SLASHES: write `/` as is instead of `\/`. Default false. */
  unescapedSlashes?: boolean;
  /** JSON_PRETTY_PRINT: each member on its own line, four spaces per level, `": "` after keys. Default false. */
  prettyPrint?: boolean;
}

/** json_encode's default depth limit: deeper nesting fails with "Maximum stack depth exceeded". */
const MAX_DEPTH = 512;

/**
 * PHP `json_encode(value, JSON_UNESCAPED_UNICODE)` (flags adjustable): arrays become lists, plain objects
 * and Maps objects in insertion order, numbers PHP's float text, bigints integers. Throws SerializeError
 * where PHP fails (NaN, INF, lone surrogates, nesting deeper than 512).
 */
export function phpJsonEncode(value: unknown, opts: PhpJsonEncodeOptions = {}): string {
  return encodeValue(
    value,
    escapePattern(opts.unescapedUnicode ?? true, opts.unescapedSlashes ?? false),
    0,
    opts.prettyPrint ?? false,
  );
}

/** phpJsonEncode of a value that sits `depth` containers deep (1: a member of the top-level array or object). */
export function phpJsonEncodeMember(value: unknown, depth = 1): string {
  return encodeValue(value, DEFAULT_ESCAPES, depth, false);
}

/**
 * The text phpJsonEncode writes between the quotes of a string (default flags). It escapes character by
 * character, so the body of a concatenation is the concatenation of the bodies, as long as no surrogate
 * pair is cut in two: what lets serialize write a command directly as the JSON string the payload holds.
 */
export function phpJsonStringBody(s: string): string {
  if (s.length <= SHORT_LENGTH && NOTHING_TO_ESCAPE.test(s)) return s;
  const json = encodeString(s, DEFAULT_ESCAPES);
  return json.slice(1, json.length - 1);
}

/**
 * PHP `json_decode(text, true)` without its losses: integers beyond 2^53 (within 64 bits) become bigint,
 * `{}` stays a plain object and `[]` an array, and object key order is kept even for numeric keys.
 * Throws InvalidPayloadError naming the position of the first error.
 */
export function phpJsonDecode(text: string): unknown {
  // JSON.parse is much faster than the exact reader and gives the same result unless the text
  // holds something it gets wrong: an integer of 16+ digits (maybe beyond 2^53), an integer `-0` (PHP
  // reads int 0), a numeric object key (JS lists those first), or a surrogate escape (PHP rejects lone
  // ones). Each leaves a trace in the parsed value, which mayNeedExactParse looks for; a false alarm only
  // costs speed. Broken text goes to the exact reader too, which reports where it is broken.
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return parseJsonExact(text);
  }
  return mayNeedExactParse(value) ? parseJsonExact(text) : value;
}

/** What JSON.stringify leaves raw but PHP escapes, for: no flags, SLASHES, UNICODE, both (JSON_UNESCAPED_*). */
const PHP_ONLY_ESCAPES = [/[/\u0080-\uffff]/g, /[\u0080-\uffff]/g, /[/\u2028\u2029]/g, /[\u2028\u2029]/g];
type Escapes = RegExp;
/** JSON_UNESCAPED_UNICODE with slashes escaped: what Laravel writes payloads with. */
const DEFAULT_ESCAPES = PHP_ONLY_ESCAPES[2];

function escapePattern(unescapedUnicode: boolean, unescapedSlashes: boolean): Escapes {
  return PHP_ONLY_ESCAPES[(unescapedUnicode ? 2 : 0) + (unescapedSlashes ? 1 : 0)];
}

// `depth`: how many containers hold `value`; `pretty`: JSON_PRETTY_PRINT.
function encodeValue(value: unknown, escapes: Escapes, depth: number, pretty: boolean): string {
  switch (typeof value) {
    case 'string':
      return encodeString(value, escapes);
    case 'number':
      // An integer's digits are the same from String() (payload counters, createdAt); only 0 and -0
      // and fractions need PHP's float text.
      if (Number.isSafeInteger(value) && value !== 0) return String(value);
      if (!Number.isFinite(value))
        throw new SerializeError(`json_encode cannot write ${value}: Inf and NaN cannot be JSON encoded`);
      return formatPhpFloat(value, 'e');
    case 'bigint':
      return value.toString();
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object':
      if (value === null) return 'null';
      return encodeContainer(value, escapes, depth + 1, pretty);
    default:
      throw new SerializeError(`json_encode cannot write a value of type ${typeof value}`);
  }
}

function encodeContainer(value: object, escapes: Escapes, depth: number, pretty: boolean): string {
  if (depth > MAX_DEPTH) throw new SerializeError('json_encode: Maximum stack depth exceeded (or a cycle)');
  const colon = pretty ? ': ' : ':';
  let out = '';
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      out += `${separator(out, depth, pretty)}${item === undefined ? 'null' : encodeValue(item, escapes, depth, pretty)}`;
    }
    return `[${close(out, depth, pretty)}]`;
  }
  if (value instanceof Map) {
    for (const [k, v] of value) {
      if (v === undefined) continue;
      out += `${separator(out, depth, pretty)}${encodeString(String(k), escapes)}${colon}${encodeValue(v, escapes, depth, pretty)}`;
    }
    return `{${close(out, depth, pretty)}}`;
  }
  const toJSON = (value as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === 'function') return encodeValue(toJSON.call(value), escapes, depth - 1, pretty);
  const record = value as Record<string, unknown>;
  for (const k of objectKeys(record)) {
    const v = record[k];
    if (v === undefined) continue;
    out += `${separator(out, depth, pretty)}${encodeString(k, escapes)}${colon}${encodeValue(v, escapes, depth, pretty)}`;
  }
  return `{${close(out, depth, pretty)}}`;
}

// Before a member: a comma after the first, and under JSON_PRETTY_PRINT a new line indented to `depth`.
function separator(membersSoFar: string, depth: number, pretty: boolean): string {
  const comma = membersSoFar === '' ? '' : ',';
  return pretty ? comma + indent(depth) : comma;
}

function indent(depth: number): string {
  return `\n${'    '.repeat(depth)}`;
}

// The members, and under JSON_PRETTY_PRINT the closing bracket on a line of its own (`[]` and `{}` stay as they are).
function close(members: string, depth: number, pretty: boolean): string {
  return pretty && members !== '' ? members + indent(depth - 1) : members;
}

/** Own enumerable keys, in the order the JSON text had them when the object came from phpJsonDecode. */
export function objectKeys(record: Record<string, unknown>): string[] {
  const keys = Object.keys(record);
  const recorded = (record as { [KEY_ORDER]?: string[] })[KEY_ORDER];
  if (!recorded) return keys;
  const present = new Set(keys);
  const ordered = recorded.filter((k) => present.delete(k));
  // keys added after decoding go last, as a PHP array appends them
  return ordered.concat(keys.filter((k) => present.has(k)));
}

function encodeString(s: string, escapes: Escapes): string {
  // Most strings (keys, ids, class names, serialized commands) are ASCII without `/`: under every flag
  // set JSON.stringify escapes those as PHP does, and no surrogate can hide in them. Short ones with
  // nothing to escape are quoted as they are.
  if (s.length <= SHORT_LENGTH && NOTHING_TO_ESCAPE.test(s)) return `"${s}"`;
  if (isAscii(s) && s.indexOf('/') < 0) return JSON.stringify(s);
  const lone = isWellFormedText(s) ? null : LONE_SURROGATE.exec(s);
  if (lone) {
    throw new SerializeError(
      `json_encode cannot write a lone UTF-16 surrogate (U+${hex4(lone[0].charCodeAt(0)).toUpperCase()} at index ${lone.index}): PHP strings must be valid UTF-8`,
    );
  }
  // JSON.stringify already escapes exactly like PHP for `"`, `\`, \b \f \n \r \t and other controls
  // (lower-case \u00XX), and leaves DEL raw; only `/` and wide characters differ.
  return JSON.stringify(s).replace(escapes, escapeChar);
}

/** Up to this length a string is checked for being plain. */
const SHORT_LENGTH = 64;
/** Printable ASCII other than `"`, `\\` and `/`: the same text inside quotes under any flags. */
const NOTHING_TO_ESCAPE = /^[\x20\x21\x23-\x2e\x30-\x5b\x5d-\x7e]*$/;
function escapeChar(c: string): string {
  return c === '/' ? '\\/' : `\\u${hex4(c.charCodeAt(0))}`;
}

function hex4(code: number): string {
  return code.toString(16).padStart(4, '0');
}
