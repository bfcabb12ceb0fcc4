// The two PHP comparisons the worker makes on values read raw from Laravel's cache store.

// PHP-serialized values that unserialize to something falsy: false, null, 0, 0.0, '', '0', [].
const FALSY_SERIALIZED = new Set(['b:0;', 'N;', 'i:0;', 'd:0;', 'd:-0;', 's:0:"";', 's:1:"0";', 'a:0:{}']);

// PHP's is_numeric for the plain numbers a Redis cache store keeps unserialized.
const NUMERIC = /^[ \t\n\r\v\f]*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?[ \t\n\r\v\f]*$/;

// The shape of a PHP-serialized value: a type letter and a colon, or `N;`.
const SERIALIZED = /^(N;|[bidsaOCE]:)/;

/**
 * Whether a raw cache value is truthy in PHP once the store has read it: a numeric string comes back
 * as that string (only "0" is falsy), anything else is unserialized (garbage unserializes to false).
 */
export function cacheValueIsTruthy(raw: string | null): boolean {
  if (raw === null || raw === '' || raw === '0') return false;
  if (NUMERIC.test(raw)) return true;
  return SERIALIZED.test(raw) && !FALSY_SERIALIZED.has(raw);
}

/** PHP 8's loose `==` between two cache values (strings or null), as the restart check compares them. */
export function phpLooseEquals(a: string | null, b: string | null): boolean {
  // null against anything compares as booleans.
  if (a === null || b === null) return cacheValueIsTruthy(a) === cacheValueIsTruthy(b);
  // Two numeric strings compare as numbers ("1767225600" == "1767225600.0").
  if (NUMERIC.test(a) && NUMERIC.test(b)) return Number(a) === Number(b);
  return a === b;
}
