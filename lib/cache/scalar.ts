// The few PHP value rules Laravel's cache stores depend on: serialize() of scalars (`b:1;`, `i:5;`,
// `d:1.5;`, `s:3:"abc";`, `N;`), reading those shapes back, is_numeric(), truthiness and loose `!=`.
// Why a local helper: the full serialize codec lives in lib/php and is developed separately; the cache
// only ever stores scalars, so it keeps this small, self-contained subset and does not depend on it.
// Semantics mirror PHP 8.x (the runtime of every Laravel line from 8.x to 13.x).

/** What a cache store hands back: PHP scalars as JS values (see CacheStore.get). */
export type CacheValue = string | number | boolean | null;

// PHP 8 is_numeric(): optional surrounding whitespace, a sign, decimal digits with an optional fraction
// and exponent. No hex, binary, "Infinity" or empty string (JS Number() accepts all of those).
const NUMERIC = /^[ \t\n\r\v\f]*[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?[ \t\n\r\v\f]*$/;

/** PHP's is_numeric() for a string. */
export function isPhpNumeric(text: string): boolean {
  return NUMERIC.test(text);
}

/**
 * A numeric string as a JS number; an integer string outside the safe range stays a string so no digit
 * is lost (PHP would hold it as an int).
 */
export function numericValue(text: string): number | string {
  const trimmed = text.trim();
  const n = Number(trimmed);
  if (/^[+-]?\d+$/.test(trimmed) && !Number.isSafeInteger(n)) return trimmed;
  return n;
}

/** PHP's text for a double in serialize() (serialize_precision -1): shortest digits, zend_gcvt layout. */
export function phpFloatText(n: number): string {
  if (Number.isNaN(n)) return 'NAN';
  if (!Number.isFinite(n)) return n > 0 ? 'INF' : '-INF';
  if (n === 0) return Object.is(n, -0) ? '-0' : '0';
  const sign = n < 0 ? '-' : '';
  const [mant, exp] = Math.abs(n).toExponential().split('e'); // shortest round-trip digits
  const digits = mant.replace('.', '');
  const point = Number(exp) + 1; // value = 0.<digits> x 10^point
  // PHP switches to scientific notation below 1e-4 or beyond 17 integer digits.
  if (point < -3 || point > 17) {
    const e = point - 1;
    return `${sign}${digits[0]}.${digits.slice(1) || '0'}E${e < 0 ? '-' : '+'}${Math.abs(e)}`;
  }
  if (point <= 0) return `${sign}0.${'0'.repeat(-point)}${digits}`;
  if (digits.length <= point) return `${sign}${digits}${'0'.repeat(point - digits.length)}`;
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}

/**
 * PHP serialize() of a scalar. JS numbers that are safe integers become PHP ints (`i:`), every other
 * number a double (`d:`): JS cannot tell 1 from 1.0, and ints are what Laravel writes for counters and
 * timestamps.
 */
export function serializeScalar(value: CacheValue): string {
  if (value === null) return 'N;';
  if (typeof value === 'boolean') return value ? 'b:1;' : 'b:0;';
  if (typeof value === 'number') return Number.isSafeInteger(value) ? `i:${value};` : `d:${phpFloatText(value)};`;
  return `s:${Buffer.byteLength(value, 'utf8')}:"${value}";`;
}

/** The result of reading a serialized scalar: `ok` false when the bytes are not one. */
export type ScalarRead = { ok: true; value: CacheValue } | { ok: false };

const FLOAT_BODY = /^(?:-?INF|NAN|[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?)$/;

/** Reads exactly one serialized scalar filling all of `bytes`; arrays, objects and junk give `ok: false`. */
export function unserializeScalar(bytes: Buffer): ScalarRead {
  const fail: ScalarRead = { ok: false };
  if (bytes.length < 2) return fail;
  const head = bytes.toString('latin1', 0, Math.min(bytes.length, 2));
  if (head === 'N;') return bytes.length === 2 ? { ok: true, value: null } : fail;
  const last = bytes[bytes.length - 1];
  if (head === 's:') {
    const colon = bytes.indexOf(0x3a, 2);
    if (colon < 0) return fail;
    const lenText = bytes.toString('latin1', 2, colon);
    if (!/^\d+$/.test(lenText)) return fail;
    const len = Number(lenText);
    const start = colon + 2; // after `:"`
    if (bytes[colon + 1] !== 0x22 || start + len + 2 !== bytes.length) return fail;
    if (bytes[start + len] !== 0x22 || last !== 0x3b) return fail;
    return { ok: true, value: bytes.toString('utf8', start, start + len) };
  }
  if (last !== 0x3b) return fail;
  const body = bytes.toString('latin1', 2, bytes.length - 1);
  if (head === 'b:') return body === '0' || body === '1' ? { ok: true, value: body === '1' } : fail;
  if (head === 'i:') return /^[+-]?\d+$/.test(body) ? { ok: true, value: numericValue(body) } : fail;
  if (head === 'd:') {
    if (!FLOAT_BODY.test(body)) return fail;
    const n = body === 'NAN' ? NaN : body === 'INF' ? Infinity : body === '-INF' ? -Infinity : Number(body);
    return { ok: true, value: n };
  }
  return fail;
}

/** PHP's `(bool)` of a scalar: null, false, 0, 0.0, "" and "0" are false; NAN is true. */
export function phpTruthy(value: CacheValue): boolean {
  if (value === null) return false;
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number') return value !== 0;
  return value !== '' && value !== '0';
}

/** PHP 8's loose `==` between two scalars (what Laravel's restart check uses, as `!=`). */
export function phpLooseEquals(a: CacheValue, b: CacheValue): boolean {
  if (a === null && b === null) return true;
  if (typeof a === 'boolean' || typeof b === 'boolean') return phpTruthy(a) === phpTruthy(b);
  // null against a string compares with ""; against a number both sides become bools.
  if (a === null) return typeof b === 'string' ? b === '' : !phpTruthy(b);
  if (b === null) return typeof a === 'string' ? a === '' : !phpTruthy(a);
  if (typeof a === 'number' && typeof b === 'number') return a === b;
  if (typeof a === 'string' && typeof b === 'string') {
    if (isPhpNumeric(a) && isPhpNumeric(b)) return Number(a.trim()) === Number(b.trim());
    return a === b;
  }
  // number vs string: numerically when the string is numeric, else as strings (PHP 8 rule).
  const [num, str] = typeof a === 'number' ? [a, b as string] : [b as number, a as string];
  if (isPhpNumeric(str)) return num === Number(str.trim());
  return (Number.isInteger(num) ? String(num) : phpFloatText(num)) === str;
}

/** PHP's `(int)` cast of a scalar, as Laravel's array and database stores apply before incrementing. */
export function phpIntCast(value: CacheValue): number {
  if (value === null || value === false) return 0;
  if (value === true) return 1;
  if (typeof value === 'number') return Number.isFinite(value) ? Math.trunc(value) : 0;
  const lead = /^[ \t\n\r\v\f]*[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?/.exec(value);
  return lead ? Math.trunc(Number(lead[0].trim())) || 0 : 0;
}
