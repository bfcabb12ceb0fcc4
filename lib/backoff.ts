// Laravel's `Worker::calculateBackoff` (8.x-13.x): the delay before a failed attempt is retried.

// PHP's numeric prefix: optional leading whitespace, a sign, digits with an optional fraction, an exponent.
const PHP_NUMERIC_PREFIX = /^[ \t\n\r\v\f]*([+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?)/;

/** PHP's `(int) $string` (7.1+/8.x): leading whitespace ok, trailing garbage ignored, non-numeric gives 0. */
export function phpIntval(text: string): number {
  const match = PHP_NUMERIC_PREFIX.exec(text);
  if (match === null) return 0;
  const value = Math.trunc(Number(match[1]));
  // `+ 0` turns -0 into 0; PHP has no negative zero integer.
  return Number.isFinite(value) ? value + 0 : 0;
}

/**
 * Seconds to wait before retrying attempt `attempts` (1-based): the job's backoff list (payload `backoff`,
 * else `delay`), else the worker's option; entry `attempts - 1`, else the last one.
 */
export function calculateBackoff(jobBackoff: string | null, optionBackoff: number | string, attempts: number): number {
  const list = String(jobBackoff ?? optionBackoff).split(',');
  const entry = list[attempts - 1] ?? list[list.length - 1];
  return phpIntval(entry);
}
