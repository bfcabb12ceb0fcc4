// Building payload strings the way Laravel's Queue::createPayload and RedisQueue::createPayloadArray do,
// field for field and in the same order, so a PHP worker cannot tell them from its own.
import { systemClock, unixSeconds, type Clock } from '../clock';
import { InvalidOptionError } from '../errors';
import { LaravelRelease } from '../LaravelLine';
import { formatPhpFloat } from '../php/float';
import { phpJsonEncodeMember } from './json';
import { JsonText, KEYS, KnownJson, PayloadFields, PayloadWriter, PlainText } from './PayloadFields';
import { randomUuid } from '../uuid';
import { randomJobId } from './randomJobId';
import {
  CALL_QUEUED_HANDLER,
  type BackoffSpec,
  type ObjectJobSpec,
  type PayloadOptions,
  type StringJobSpec,
} from './types';

/** The payload of an object job (`dispatch(new Job)`), as the given Laravel line writes it. */
export function createObjectPayload(job: ObjectJobSpec, opts: PayloadOptions = {}): string {
  return createObjectPayloadOf(job, job.command, opts);
}

/**
 * createObjectPayload with the command given apart: as a string, or as its JSON text (what
 * serializeToJsonString writes), which spares escaping the longest field of the payload.
 */
export function createObjectPayloadOf(
  job: Omit<ObjectJobSpec, 'command'>,
  command: string | JsonText,
  opts: PayloadOptions,
): string {
  const line = checkLine(opts.line);
  const clock = opts.clock ?? systemClock;
  // every option is checked before the first field is written (see PayloadWriter.add), in this order
  const maxTries = integerOrNull('maxTries', job.maxTries);
  const maxExceptions = integerOrNull('maxExceptions', job.maxExceptions);
  const backoff = backoffString(job.backoff, clock);
  const timeout = integerOrNull('timeout', job.timeout);
  const retryUntil = retryUntilSeconds(job.retryUntil);
  const times = new TimeFields(line, opts, clock);
  const p = fieldsFor(opts);
  p.add(KEYS.uuid, opts.uuid ?? new PlainText(randomUuid()));
  p.add(KEYS.displayName, job.displayName ?? job.commandName);
  p.add(KEYS.job, CALL_QUEUED_HANDLER_JSON);
  p.add(KEYS.maxTries, maxTries);
  p.add(KEYS.maxExceptions, maxExceptions);
  p.add(KEYS.failOnTimeout, job.failOnTimeout ?? false);
  p.add(KEYS.backoff, backoff);
  p.add(KEYS.timeout, timeout);
  p.add(KEYS.retryUntil, retryUntil);
  if (line.has('deleteWhenMissingModels')) p.add(KEYS.deleteWhenMissingModels, job.deleteWhenMissingModels ?? false);
  p.add(KEYS.data, new CommandData(job.commandName, command, line.has('batchId') ? (job.batchId ?? null) : undefined));
  return finish(p, line, opts, times);
}

const CALL_QUEUED_HANDLER_JSON = new JsonText(JSON.stringify(CALL_QUEUED_HANDLER));

/**
 * An object job's `data`: `{commandName, command}`, and `batchId` from line 12, written as phpJsonEncode
 * writes that object (a member that is undefined left out), but with a command given as JSON written as is.
 */
class CommandData extends KnownJson {
  constructor(
    private readonly commandName: string,
    private readonly command: string | JsonText,
    /** undefined: the line has no batchId. */
    private readonly batchId: string | null | undefined,
  ) {
    super();
  }

  toJson(): string {
    // the members sit two containers deep, as in the object phpJsonEncode would be given
    let out = this.commandName === undefined ? '' : `"commandName":${phpJsonEncodeMember(this.commandName, 2)}`;
    const command = this.command;
    if (command !== undefined)
      out += `${out === '' ? '' : ','}"command":${command instanceof JsonText ? command.json : phpJsonEncodeMember(command, 2)}`;
    if (this.batchId !== undefined) out += `${out === '' ? '' : ','}"batchId":${phpJsonEncodeMember(this.batchId, 2)}`;
    return `{${out}}`;
  }
}

/** The payload of a string job (`Queue::push('Class@method', $data)`): no tuning, no retryUntil. */
export function createStringPayload(job: StringJobSpec, opts: PayloadOptions = {}): string {
  const line = checkLine(opts.line);
  const uuid = opts.uuid ?? new PlainText(randomUuid());
  const displayName = job.job.split('@')[0];
  const times = new TimeFields(line, opts, opts.clock ?? systemClock);
  const p = fieldsFor(opts);
  p.add(KEYS.uuid, uuid);
  p.add(KEYS.displayName, displayName);
  p.add(KEYS.job, job.job);
  p.add(KEYS.maxTries, null);
  p.add(KEYS.maxExceptions, null);
  p.add(KEYS.failOnTimeout, false);
  p.add(KEYS.backoff, null);
  p.add(KEYS.timeout, null);
  p.add(KEYS.data, job.data === undefined ? '' : job.data);
  return finish(p, line, opts, times);
}

// The job id every payload ends with; RedisQueue draws ids ahead of the payload from here too.
export { randomJobId };

/** Hooks need the fields kept, to replace one in place; without them each is written as it comes. */
function fieldsFor(opts: PayloadOptions): PayloadFields | PayloadWriter {
  return opts.extra ? new PayloadFields() : new PayloadWriter();
}

/** createdAt and delay (written from 12.11 on), checked before the first field is written. */
class TimeFields {
  readonly createdAt: number | null = null;
  readonly delay: number | null = null;

  constructor(line: LaravelRelease, opts: PayloadOptions, clock: Clock) {
    if (line.has('createdAt')) {
      this.createdAt = integerOrNull('createdAt', opts.createdAt) ?? unixSeconds(clock);
      this.delay = integerOrNull('delay', opts.delay);
    }
  }
}

/** The tail every payload shares: createdAt, hook keys, then the Redis additions. */
function finish(
  p: PayloadFields | PayloadWriter,
  line: LaravelRelease,
  opts: PayloadOptions,
  times: TimeFields,
): string {
  if (line.has('createdAt')) p.add(KEYS.createdAt, times.createdAt);
  // set() keeps an existing key where it is, as PHP's array merge does; a hook may also have added
  // id, attempts or delay, so those are set, not added
  if (opts.extra && p instanceof PayloadFields)
    for (const [key, value] of Object.entries(opts.extra)) p.set(key, value);
  p.set(KEYS.id, opts.id ?? new PlainText(randomJobId()));
  p.set(KEYS.attempts, 0);
  if (line.has('createdAt')) p.set(KEYS.delay, times.delay);
  return p.toJson();
}

const NEWEST_13 = LaravelRelease.of(13);

function checkLine(line: PayloadOptions['line']): LaravelRelease {
  return line === undefined ? NEWEST_13 : LaravelRelease.of(line, 'line');
}

function integerOrNull(option: string, value: number | null | undefined): number | null {
  if (value === undefined || value === null) return null;
  if (!Number.isSafeInteger(value))
    throw new InvalidOptionError(option, `must be an integer or null, got ${String(value)}`);
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
