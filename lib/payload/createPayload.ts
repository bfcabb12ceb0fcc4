// Building payload strings the way Laravel's Queue::createPayload and RedisQueue::createPayloadArray do,
// field for field and in the same order, so a PHP worker cannot tell them from its own.
import { randomUUID } from 'crypto';
import { systemClock, unixSeconds, type Clock } from '../clock';
import { InvalidOptionError } from '../errors';
import { formatPhpFloat } from '../php/float';
import { PayloadFields, PlainText } from './PayloadFields';
import { randomByte } from './randomBytePool';
import {
  CALL_QUEUED_HANDLER,
  type BackoffSpec,
  type LaravelLine,
  type ObjectJobSpec,
  type PayloadOptions,
  type StringJobSpec,
} from './types';

/** The payload of an object job (`dispatch(new Job)`), as the given Laravel line writes it. */
export function createObjectPayload(job: ObjectJobSpec, opts: PayloadOptions = {}): string {
  const line = checkLine(opts.line);
  const clock = opts.clock ?? systemClock;
  const p = new PayloadFields();
  p.add('uuid', opts.uuid ?? new PlainText(randomUUID()));
  p.add('displayName', job.displayName ?? job.commandName);
  p.add('job', CALL_QUEUED_HANDLER);
  p.add('maxTries', integerOrNull('maxTries', job.maxTries));
  p.add('maxExceptions', integerOrNull('maxExceptions', job.maxExceptions));
  p.add('failOnTimeout', job.failOnTimeout ?? false);
  p.add('backoff', backoffString(job.backoff, clock));
  p.add('timeout', integerOrNull('timeout', job.timeout));
  p.add('retryUntil', retryUntilSeconds(job.retryUntil));
  if (line >= 13) p.add('deleteWhenMissingModels', job.deleteWhenMissingModels ?? false);
  const data: Record<string, unknown> = { commandName: job.commandName, command: job.command };
  if (line >= 12) data.batchId = job.batchId ?? null;
  p.add('data', data);
  return finish(p, line, opts, clock);
}

/** The payload of a string job (`Queue::push('Class@method', $data)`): no tuning, no retryUntil. */
export function createStringPayload(job: StringJobSpec, opts: PayloadOptions = {}): string {
  const line = checkLine(opts.line);
  const p = new PayloadFields();
  p.add('uuid', opts.uuid ?? new PlainText(randomUUID()));
  p.add('displayName', job.job.split('@')[0]);
  p.add('job', job.job);
  p.add('maxTries', null);
  p.add('maxExceptions', null);
  p.add('failOnTimeout', false);
  p.add('backoff', null);
  p.add('timeout', null);
  p.add('data', job.data === undefined ? '' : job.data);
  return finish(p, line, opts, opts.clock ?? systemClock);
}

const ALPHABET = Buffer.from('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789', 'latin1');
// Letters gathered as bytes and read as one flat string: joining 32 one-letter strings builds a rope
// that every later read of the id has to flatten.
const ID_BYTES = Buffer.allocUnsafe(64);

/** Laravel's `Str::random(32)` alphabet: what RedisQueue uses as the job id. */
export function randomJobId(length: number = 32): string {
  const chars = length > ID_BYTES.length ? Buffer.allocUnsafe(Math.ceil(length)) : ID_BYTES;
  let n = 0;
  while (n < length) {
    const byte = randomByte();
    // 248 = 4 * 62: dropping the bytes above keeps every character equally likely
    if (byte < 248) chars[n++] = ALPHABET[byte % 62];
  }
  return chars.toString('latin1', 0, n);
}

/** The tail every payload shares: createdAt, hook keys, then the Redis additions. */
function finish(p: PayloadFields, line: LaravelLine, opts: PayloadOptions, clock: Clock): string {
  if (line >= 12) p.add('createdAt', integerOrNull('createdAt', opts.createdAt) ?? unixSeconds(clock));
  // set() keeps an existing key where it is, as PHP's array merge does; a hook may also have added
  // id, attempts or delay, so those are set, not added
  if (opts.extra) for (const [key, value] of Object.entries(opts.extra)) p.set(key, value);
  p.set('id', opts.id ?? new PlainText(randomJobId()));
  p.set('attempts', 0);
  if (line >= 12) p.set('delay', integerOrNull('delay', opts.delay));
  return p.toJson();
}

function checkLine(line: LaravelLine | undefined): LaravelLine {
  if (line === undefined) return 13;
  if (line !== 8 && line !== 12 && line !== 13) throw new InvalidOptionError('line', `must be 8, 12 or 13, got ${String(line)}`);
  return line;
}

function integerOrNull(option: string, value: number | null | undefined): number | null {
  if (value === undefined || value === null) return null;
  if (!Number.isSafeInteger(value)) throw new InvalidOptionError(option, `must be an integer or null, got ${String(value)}`);
  return value;
}

/** Laravel's getJobBackoff: every value (a DateTime as seconds until it) joined with commas. */
function backoffString(backoff: BackoffSpec | null | undefined, clock: Clock): string | null {
  if (backoff === undefined || backoff === null) return null;
  const values = Array.isArray(backoff) ? backoff : [backoff];
  return values
    .map((v) => {
      if (v instanceof Date) return String(Math.max(0, dateSeconds('backoff', v) - unixSeconds(clock)));
      if (typeof v === 'number') {
        if (!Number.isFinite(v)) throw new InvalidOptionError('backoff', `must be finite, got ${v}`);
        return formatPhpFloat(v, 'E'); // PHP's string conversion, as implode() does it
      }
      return v;
    })
    .join(',');
}

function retryUntilSeconds(value: number | Date | null | undefined): number | null {
  return value instanceof Date ? dateSeconds('retryUntil', value) : integerOrNull('retryUntil', value);
}

/** DateTime::getTimestamp(): whole seconds, rounded down. */
function dateSeconds(option: string, d: Date): number {
  const ms = d.getTime();
  if (Number.isNaN(ms)) throw new InvalidOptionError(option, 'is an invalid Date');
  return Math.floor(ms / 1000);
}
