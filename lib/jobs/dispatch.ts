// What Laravel's Queue::createPayload does with a job object, for jobs built in Node: read the tuning
// (`tries`, `backoff`, `timeout`...) from the object as PHP reads it from the live job, serialize (and,
// for ShouldBeEncrypted jobs, encrypt) the command, and write the envelope of the peers' Laravel line.
import type { Clock } from '../clock';
import { InvalidOptionError } from '../errors';
import type { LaravelRelease, LaravelVersion } from '../LaravelLine';
import { createObjectPayloadOf, createStringPayload } from '../payload/createPayload';
import { JsonText } from '../payload/PayloadFields';
import type { BackoffSpec, ObjectJobSpec, StringJobSpec } from '../payload/types';
import { declarationOf, type PhpClass } from '../php/builder';
import type { Encrypter } from '../php/Encrypter';
import { serializeToBuffer, serializeToJsonString } from '../php/serialize';
import { PhpArray, PhpObject, type PhpValue } from '../php/values';

/**
 * An object job with what PHP would compute from methods: `displayName()`, `tries()`, `backoff()`,
 * `retryUntil()`... Each tuning value given here wins over the command's property of the same meaning
 * (`tries`, `maxExceptions`, `timeout`, `failOnTimeout`, `backoff`, `retryUntil` (an integer),
 * `deleteWhenMissingModels`); without either, Laravel's defaults apply.
 */
export interface ObjectJob extends Omit<ObjectJobSpec, 'commandName' | 'command' | 'batchId'> {
  /** The job object, e.g. from `phpClass(...).make(...)`. */
  command: PhpObject;
  /** Encrypt `data.command` with the queue's encrypter, as for a `ShouldBeEncrypted` job. Default false. */
  encrypt?: boolean;
  /** Hook keys (`createPayloadUsing`, Laravel's Context...), added to the envelope as Laravel merges them. */
  extra?: Record<string, unknown>;
}

/** What push(), later() and bulk() accept: a job object, an object job with overrides, or a string job. */
export type JobInput = PhpObject | ObjectJob | StringJobSpec;

/** Everything a payload needs besides the job. */
export interface DispatchContext {
  line: LaravelVersion | LaravelRelease;
  clock: Clock;
  encrypter?: Encrypter | null;
  /** Seconds for `later` (the payload's `delay` field on lines 12 and 13). */
  delay?: number | null;
  /** The Redis job id to write (the queue draws it, so it knows the id without reading the payload back). */
  id?: string;
  /** Keys the queue adds to every payload (a trace context), before the job's own `extra`. */
  extra?: Record<string, unknown>;
}

/** Build the payload string for a job, as the peers' Laravel line writes it. */
export function payloadFor(input: JobInput, ctx: DispatchContext): string {
  return payloadWith(input, ctx);
}

// `live`: the command's live values when the caller has read them already (bulk reads `delay` first).
function payloadWith(input: JobInput, ctx: DispatchContext, live?: LiveValues): string {
  if (input instanceof PhpObject) return objectPayload({ command: input }, ctx, live);
  if (isStringJob(input))
    return createStringPayload(input, {
      line: ctx.line,
      clock: ctx.clock,
      delay: ctx.delay ?? null,
      id: ctx.id,
      extra: ctx.extra,
    });
  if (input && input.command instanceof PhpObject) return objectPayload(input, ctx, live);
  throw new InvalidOptionError(
    'job',
    'must be a PhpObject, { command: PhpObject, ... } or { job: "Class@method", data }',
  );
}

/** The delay a job object asks for (Queueable's `delay` property), in seconds, for bulk() as 9.x+ honours it. */
export function delayOf(input: JobInput): number | undefined {
  const command = commandOf(input);
  return command ? delayIn(liveValuesOf(command)) : undefined;
}

/**
 * What bulk() needs of a job: the delay it asks for (as delayOf) and its payload, built with the context
 * for that delay; the command's live values are read once for both. With `honoursDelay` false (Laravel 8,
 * whose bulk pushes every job as it is) the delay is undefined and the payload is a plain push's.
 */
export function delayAndPayloadFor(
  input: JobInput,
  ctxFor: (delay: number | undefined) => DispatchContext,
  honoursDelay = true,
): { delay: number | undefined; payload: string } {
  const command = commandOf(input);
  const live = command ? liveValuesOf(command) : undefined;
  const delay = live && honoursDelay ? delayIn(live) : undefined;
  return { delay, payload: payloadWith(input, ctxFor(delay), live) };
}

function commandOf(input: JobInput): PhpObject | undefined {
  return input instanceof PhpObject ? input : isStringJob(input) ? undefined : input.command;
}

function delayIn(live: LiveValues): number | undefined {
  const delay = intOf(live.delay);
  return delay === null ? undefined : delay;
}

function objectPayload(job: ObjectJob, ctx: DispatchContext, known?: LiveValues): string {
  const c = job.command;
  let command: string | JsonText;
  if (job.encrypt) {
    // the encrypter takes the serialized bytes, which PhpBytes may make other than UTF-8; the result is escaped with the payload
    const serialized = serializeToBuffer(c);
    if (!ctx.encrypter)
      throw new InvalidOptionError(
        'encrypt',
        `${c.className} is to be encrypted but the queue has no encrypter (set appKey)`,
      );
    command = ctx.encrypter.encrypt(serialized);
  } else {
    command = new JsonText(serializeToJsonString(c));
  }
  const live = known ?? liveValuesOf(c);
  return createObjectPayloadOf(
    {
      commandName: c.className,
      displayName: job.displayName ?? c.className,
      maxTries: pick(job.maxTries, intOf(live.tries)),
      maxExceptions: pick(job.maxExceptions, intOf(live.maxExceptions)),
      timeout: pick(job.timeout, intOf(live.timeout)),
      failOnTimeout: pick(job.failOnTimeout, live.failOnTimeout === true),
      backoff: pick(job.backoff, backoffOf(live.backoff)),
      retryUntil: pick(job.retryUntil, intOf(live.retryUntil)),
      deleteWhenMissingModels: pick(job.deleteWhenMissingModels, live.deleteWhenMissingModels === true),
      batchId: stringOf(live.batchId),
    },
    command,
    {
      line: ctx.line,
      clock: ctx.clock,
      delay: ctx.delay ?? null,
      extra: mergedExtra(ctx.extra, job.extra),
      id: ctx.id,
    },
  );
}

// The queue's keys first, then the job's, as a createPayloadArray hook's keys come before those that
// Laravel's createPayloadUsing callbacks merge (Laravel `Queue::createPayload`, 11.x-13.x).
function mergedExtra(
  queue: Record<string, unknown> | undefined,
  job: Record<string, unknown> | undefined,
): Record<string, unknown> | undefined {
  return queue === undefined ? job : job === undefined ? queue : { ...queue, ...job };
}

function pick<T>(given: T | undefined, fromCommand: T): T {
  return given !== undefined ? given : fromCommand;
}

/** The properties Laravel reads from the live job object when it builds the payload (and `delay` for bulk). */
const LIVE_NAMES = [
  'tries',
  'maxExceptions',
  'timeout',
  'failOnTimeout',
  'backoff',
  'retryUntil',
  'deleteWhenMissingModels',
  'batchId',
  'delay',
] as const;
type LiveValues = Record<(typeof LIVE_NAMES)[number], PhpValue | undefined>;
const NONE_DECLARED = Object.fromEntries(LIVE_NAMES.map((name) => [name, undefined])) as LiveValues;

/** The same names, to tell a live property from the others while walking an object's properties. */
const LIVE_NAME_SET: ReadonlySet<string> = new Set(LIVE_NAMES);

// The value PHP would see on the live object: the serialized property (the first of that name), else the
// declared default. The properties are walked from the last, so the first of a name is the one left (its
// default when it holds no value); the defaults are read once per class (a class's declaration never
// changes, an object's properties may).
function liveValuesOf(command: PhpObject): LiveValues {
  const declaration = declarationOf(command);
  const defaults = declaration ? declaredDefaults(declaration) : NONE_DECLARED;
  const values: LiveValues = { ...defaults };
  const properties = command.properties;
  for (let i = properties.length - 1; i >= 0; i--) {
    const name = properties[i].name as keyof LiveValues;
    if (!LIVE_NAME_SET.has(name)) continue;
    const value = properties[i].value;
    values[name] = value !== undefined ? value : defaults[name];
  }
  return values;
}

// Not frozen: these are only ever copied, never handed out.
const defaultsByClass = new WeakMap<PhpClass, LiveValues>();

function declaredDefaults(declaration: PhpClass): LiveValues {
  let defaults = defaultsByClass.get(declaration);
  if (!defaults) {
    defaults = Object.fromEntries(LIVE_NAMES.map((name) => [name, declaration.defaultOf(name)])) as LiveValues;
    defaultsByClass.set(declaration, defaults);
  }
  return defaults;
}

function intOf(v: PhpValue | undefined): number | null {
  return typeof v === 'bigint' ? Number(v) : null;
}

function stringOf(v: PhpValue | undefined): string | null {
  return typeof v === 'string' ? v : null;
}

// A `backoff` property holds seconds or a list of seconds; Laravel joins them with commas.
function backoffOf(v: PhpValue | undefined): BackoffSpec | null {
  if (typeof v === 'bigint') return Number(v);
  if (typeof v === 'string') return v;
  if (v instanceof PhpArray) {
    return [...v.entries.values()].map((e) =>
      typeof e === 'bigint' ? Number(e) : typeof e === 'number' || typeof e === 'string' ? e : 0,
    );
  }
  return null;
}

function isStringJob(input: unknown): input is StringJobSpec {
  return typeof input === 'object' && input !== null && typeof (input as StringJobSpec).job === 'string';
}
