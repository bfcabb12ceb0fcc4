// Reading payloads produced by any Laravel version (8.x-13.x, Horizon, hand-made pushRaw) and rewriting
// them the way Laravel does (queue:retry), keeping every key Laravel or a hook put there.
import { InvalidPayloadError } from '../errors';
import { objectKeys, phpJsonDecode, phpJsonEncode, type PhpJsonEncodeOptions } from './json';
import { CALL_QUEUED_HANDLER, type JobPayload } from './types';

/**
 * Decode a payload string into a typed view. Missing fields read as null (false for the booleans);
 * throws InvalidPayloadError when the text is not JSON, not an object, or lacks a string `job` or an
 * `attempts` PHP can count with (a number or a numeric string, as PHP's `+ 1` takes it).
 */
export function parsePayload(raw: string): JobPayload {
  const decoded = decodeObject(raw);
  const job = decoded.job;
  if (job === undefined) throw new InvalidPayloadError('Payload has no "job" field', raw);
  if (typeof job !== 'string')
    throw new InvalidPayloadError(`Payload "job" must be a string, got ${describe(job)}`, raw);
  if (decoded.attempts === undefined) throw new InvalidPayloadError('Payload has no "attempts" field', raw);
  const attempts = attemptsOf(decoded.attempts);
  if (attempts === null) {
    throw new InvalidPayloadError(`Payload "attempts" must be a number, got ${describe(decoded.attempts)}`, raw);
  }

  const data = decoded.data ?? null;
  const dataFields = isRecord(data) ? data : {};
  const displayName = stringOrNull(decoded.displayName);
  return Object.freeze({
    raw,
    decoded,
    job,
    isObjectJob: job === CALL_QUEUED_HANDLER,
    uuid: stringOrNull(decoded.uuid),
    displayName,
    name: displayName ? displayName : job,
    maxTries: numberOrNull(decoded.maxTries),
    maxExceptions: numberOrNull(decoded.maxExceptions),
    failOnTimeout: phpTruthy(decoded.failOnTimeout),
    backoff: backoffOrNull(decoded.backoff),
    timeout: numberOrNull(decoded.timeout),
    retryUntil: numberOrNull(decoded.retryUntil),
    deleteWhenMissingModels: phpTruthy(decoded.deleteWhenMissingModels),
    data,
    commandName: stringOrNull(dataFields.commandName),
    command: stringOrNull(dataFields.command),
    batchId: stringOrNull(dataFields.batchId),
    createdAt: numberOrNull(decoded.createdAt),
    id: typeof decoded.id === 'number' ? String(decoded.id) : stringOrNull(decoded.id),
    attempts,
    delay: numberOrNull(decoded.delay),
  });
}

/**
 * Decode `raw`, set the given top-level fields (existing keys stay in place, new ones go last) and
 * encode again, keeping every other key, its order and its value. Default flags: Laravel's payload
 * encoding (JSON_UNESCAPED_UNICODE).
 */
export function rewritePayload(
  raw: string,
  changes: Readonly<Record<string, unknown>>,
  opts?: PhpJsonEncodeOptions,
): string {
  const decoded = decodeObject(raw);
  for (const [key, value] of Object.entries(changes)) {
    // defineProperty: a "__proto__" key must stay data, not replace the prototype
    Object.defineProperty(decoded, key, { value, writable: true, enumerable: true, configurable: true });
  }
  return phpJsonEncode(decoded, opts);
}

/** `raw` with `attempts` set to `attempts`, encoded as Laravel encodes payloads unless `opts` says otherwise. */
export function withAttempts(raw: string, attempts: number, opts?: PhpJsonEncodeOptions): string {
  return rewritePayload(raw, { attempts }, opts);
}

/** Options of retryPayload. */
export interface RetryPayloadOptions {
  /** A fresh deadline from the command's `retryUntil()` method, in Unix seconds. Default: keep the old one. */
  retryUntil?: number | null;
}

/**
 * What `queue:retry` pushes back for a failed job's payload: `attempts` reset to 0 (when present), an
 * optional new `retryUntil`, re-encoded with plain json_encode flags (non-ASCII as `\uXXXX`).
 */
export function retryPayload(raw: string, opts: RetryPayloadOptions = {}): string {
  const decoded = decodeObject(raw);
  if (decoded.attempts !== undefined) decoded.attempts = 0;
  if (opts.retryUntil !== undefined) decoded.retryUntil = opts.retryUntil;
  return phpJsonEncode(asPhpArrays(decoded), { unescapedUnicode: false });
}

// What json_decode(..., true) makes of JSON objects: PHP arrays, which json_encode writes back as a list
// when their keys are 0..n-1 in order (so `{}` comes back as `[]`), else as an object in the same order.
function asPhpArrays(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(asPhpArrays);
  if (!isRecord(value) || value instanceof Map) return value;
  const keys = objectKeys(value);
  if (keys.every((key, i) => key === String(i))) return keys.map((key) => asPhpArrays(value[key]));
  return new Map(keys.map((key) => [key, asPhpArrays(value[key])]));
}

function decodeObject(raw: string): Record<string, unknown> {
  let decoded: unknown;
  try {
    decoded = phpJsonDecode(raw);
  } catch (e) {
    if (e instanceof InvalidPayloadError)
      throw new InvalidPayloadError(`Payload is not valid JSON: ${e.message}`, raw, { cause: e });
    throw e;
  }
  if (!isRecord(decoded)) throw new InvalidPayloadError(`Payload must be a JSON object, got ${describe(decoded)}`, raw);
  return decoded;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  return typeof v === 'object' ? 'an object' : `${typeof v} ${JSON.stringify(typeof v === 'bigint' ? String(v) : v)}`;
}

function stringOrNull(v: unknown): string | null {
  return typeof v === 'string' ? v : null;
}

// PHP 8's numeric strings: an integer or float literal, with optional whitespace before and after.
const PHP_WHITESPACE = '[ \\t\\n\\r\\v\\f]*';
const PHP_NUMBER = '[+-]?(?:\\d+(?:\\.\\d*)?|\\.\\d+)(?:[eE][+-]?\\d+)?';
const NUMERIC_STRING = new RegExp(`^${PHP_WHITESPACE}${PHP_NUMBER}${PHP_WHITESPACE}$`);
const LEADING_NUMBER = new RegExp(`^${PHP_WHITESPACE}(${PHP_NUMBER})`);

/** Values PHP would compare as numbers: JSON numbers, 64-bit ones, and numeric strings ("3", " 1e3 "). */
function numberOrNull(v: unknown): number | null {
  if (typeof v === 'number') return v;
  if (typeof v === 'bigint') return Number(v);
  if (typeof v === 'string' && NUMERIC_STRING.test(v)) return Number(v.trim());
  return null;
}

// Laravel's RedisJob::attempts() is `$decoded['attempts'] + 1`: PHP 8 adds a numeric string ("0") as its
// number and a leading-numeric one ("2 tries") as its leading number (with a warning); any other string
// is a TypeError. The pop script's Lua arithmetic has already accepted the same strings.
function attemptsOf(v: unknown): number | null {
  const n = numberOrNull(v);
  if (n !== null || typeof v !== 'string') return n;
  const leading = LEADING_NUMBER.exec(v);
  return leading ? Number(leading[1]) : null;
}

/** Backoff is a comma-separated string; a bare number (hand-made payloads) reads as its text. */
function backoffOrNull(v: unknown): string | null {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'bigint') return String(v);
  return null;
}

/** PHP's boolean conversion: null, false, 0, 0.0, "", "0" and empty arrays are false. */
function phpTruthy(v: unknown): boolean {
  if (v === null || v === undefined || v === false || v === 0 || v === 0n || v === '' || v === '0') return false;
  if (Array.isArray(v)) return v.length > 0;
  if (isRecord(v)) return Object.keys(v).length > 0;
  return true;
}
