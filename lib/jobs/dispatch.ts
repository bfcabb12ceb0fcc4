// What Laravel's Queue::createPayload does with a job object, for jobs built in Node: read the tuning
// (`tries`, `backoff`, `timeout`...) from the object as PHP reads it from the live job, serialize (and,
// for ShouldBeEncrypted jobs, encrypt) the command, and write the envelope of the peers' Laravel line.
import type { Clock } from '../clock';
import { InvalidOptionError } from '../errors';
import type { LaravelLine } from '../LaravelLine';
import { createObjectPayload, createStringPayload } from '../payload/createPayload';
import type { BackoffSpec, ObjectJobSpec, StringJobSpec } from '../payload/types';
import { declarationOf } from '../php/builder';
import type { Encrypter } from '../php/Encrypter';
import { serialize } from '../php/serialize';
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
  line: LaravelLine;
  clock: Clock;
  encrypter?: Encrypter | null;
  /** Seconds for `later` (the payload's `delay` field on lines 12 and 13). */
  delay?: number | null;
}

/** Build the payload string for a job, as the peers' Laravel line writes it. */
export function payloadFor(input: JobInput, ctx: DispatchContext): string {
  const opts = { line: ctx.line, clock: ctx.clock, delay: ctx.delay ?? null };
  if (input instanceof PhpObject) return objectPayload({ command: input }, ctx, opts);
  if (isStringJob(input)) return createStringPayload(input, opts);
  if (input && input.command instanceof PhpObject) return objectPayload(input, ctx, opts);
  throw new InvalidOptionError('job', 'must be a PhpObject, { command: PhpObject, ... } or { job: "Class@method", data }');
}

/** The delay a job object asks for (Queueable's `delay` property), in seconds, for bulk() as 9.x+ honours it. */
export function delayOf(input: JobInput): number | undefined {
  const command = input instanceof PhpObject ? input : isStringJob(input) ? undefined : input.command;
  if (!command) return undefined;
  const delay = intOf(propertyOf(command, 'delay'));
  return delay === null ? undefined : delay;
}

function objectPayload(job: ObjectJob, ctx: DispatchContext, opts: { line: LaravelLine; clock: Clock; delay: number | null }): string {
  const c = job.command;
  let command = serialize(c);
  if (job.encrypt) {
    if (!ctx.encrypter) throw new InvalidOptionError('encrypt', `${c.className} is to be encrypted but the queue has no encrypter (set appKey)`);
    command = ctx.encrypter.encrypt(command);
  }
  const pick = <T>(given: T | undefined, fromCommand: T): T => (given !== undefined ? given : fromCommand);
  return createObjectPayload(
    {
      commandName: c.className,
      command,
      displayName: job.displayName ?? c.className,
      maxTries: pick(job.maxTries, intOf(propertyOf(c, 'tries'))),
      maxExceptions: pick(job.maxExceptions, intOf(propertyOf(c, 'maxExceptions'))),
      timeout: pick(job.timeout, intOf(propertyOf(c, 'timeout'))),
      failOnTimeout: pick(job.failOnTimeout, propertyOf(c, 'failOnTimeout') === true),
      backoff: pick(job.backoff, backoffOf(propertyOf(c, 'backoff'))),
      retryUntil: pick(job.retryUntil, intOf(propertyOf(c, 'retryUntil'))),
      deleteWhenMissingModels: pick(job.deleteWhenMissingModels, propertyOf(c, 'deleteWhenMissingModels') === true),
      batchId: stringOf(propertyOf(c, 'batchId')),
    },
    { ...opts, extra: job.extra },
  );
}

// The value PHP would see on the live object: the serialized property, else the declared default.
function propertyOf(command: PhpObject, name: string): PhpValue | undefined {
  const value = command.get(name);
  return value !== undefined ? value : declarationOf(command)?.defaultOf(name);
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
    return [...v.entries.values()].map((e) => (typeof e === 'bigint' ? Number(e) : typeof e === 'number' || typeof e === 'string' ? e : 0));
  }
  return null;
}

function isStringJob(input: unknown): input is StringJobSpec {
  return typeof input === 'object' && input !== null && typeof (input as StringJobSpec).job === 'string';
}
