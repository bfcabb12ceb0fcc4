// Building payload strings the way Laravel's Queue::createPayload and RedisQueue::createPayloadArray do,
// field for field and in the same order, so a PHP worker cannot tell them from its own.
import { randomBytes } from 'crypto';
import { v4 as uuidv4 } from 'uuid';
import { systemClock, unixSeconds, type Clock } from '../clock';
import { InvalidOptionError } from '../errors';
import { formatPhpFloat } from '../php/float';
import { phpJsonEncode } from './json';
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
  const p = new Map<string, unknown>();
  p.set('uuid', opts.uuid ?? uuidv4());
  p.set('displayName', job.displayName ?? job.commandName);
  p.set('job', CALL_QUEUED_HANDLER);
  p.set('maxTries', integerOrNull('maxTries', job.maxTries));
  p.set('maxExceptions', integerOrNull('maxExceptions', job.maxExceptions));
  p.set('failOnTimeout', job.failOnTimeout ?? false);
  p.set('backoff', backoffString(job.backoff, clock));
  p.set('timeout', integerOrNull('timeout', job.timeout));
  p.set('retryUntil', retryUntilSeconds(job.retryUntil));
  if (line >= 13) p.set('deleteWhenMissingModels', job.deleteWhenMissingModels ?? false);
  const data: Record<string, unknown> = { commandName: job.commandName, command: job.command };
  if (line >= 12) data.batchId = job.batchId ?? null;
  p.set('data', data);
  return finish(p, line, opts, clock);
}

/** The payload of a string job (`Queue::push('Class@method', $data)`): no tuning, no retryUntil. */
export function createStringPayload(job: StringJobSpec, opts: PayloadOptions = {}): string {
  const line = checkLine(opts.line);
  const p = new Map<string, unknown>();
  p.set('uuid', opts.uuid ?? uuidv4());
  p.set('displayName', job.job.split('@')[0]);
  p.set('job', job.job);
  p.set('maxTries', null);
  p.set('maxExceptions', null);
  p.set('failOnTimeout', false);
  p.set('backoff', null);
  p.set('timeout', null);
  p.set('data', job.data === undefined ? '' : job.data);
  return finish(p, line, opts, opts.clock ?? systemClock);
}

/** Laravel's `Str::random(32)` alphabet: what RedisQueue uses as the job id. */
export function randomJobId(length: number = 32): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      // 248 = 4 * 62: dropping the bytes above keeps every character equally likely
      if (byte < 248 && out.length < length) out += alphabet[byte % 62];
    }
  }
  return out;
}

/** The tail every payload shares: createdAt, hook keys, then the Redis additions. */
function finish(p: Map<string, unknown>, line: LaravelLine, opts: PayloadOptions, clock: Clock): string {
  if (line >= 12) p.set('createdAt', integerOrNull('createdAt', opts.createdAt) ?? unixSeconds(clock));
  // Map.set keeps an existing key where it is, as PHP's array merge does
  for (const [key, value] of Object.entries(opts.extra ?? {})) p.set(key, value);
  p.set('id', opts.id ?? randomJobId());
  p.set('attempts', 0);
  if (line >= 12) p.set('delay', integerOrNull('delay', opts.delay));
  return phpJsonEncode(p);
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
