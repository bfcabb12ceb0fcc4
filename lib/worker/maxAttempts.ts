// Laravel's max-attempts and maxExceptions rules (Worker::markJobAsFailedIfAlreadyExceedsMaxAttempts,
// markJobAsFailedIfWillExceedMaxAttempts, markJobAsFailedIfWillExceedMaxExceptions, 13.x): the decisions that fail a job
// before it runs, after it threw, or when it timed out.
import { countJobException, forgetJobExceptions } from '../cache/signals';
import { MaxAttemptsExceededError } from '../errors';
import type { WorkerCache, WorkerJob } from '../jobs/contracts';

/** What the rules need from the worker. */
export interface AttemptContext<J extends WorkerJob> {
  /** UNIX seconds. */
  now(): number;
  cache?: WorkerCache;
  /** The worker's failJob: Laravel's Job::fail. */
  fail(job: J, error: Error): Promise<void>;
}

// PHP truthiness of the number-or-null fields; retryUntil 0 is as absent as null.
const truthy = (n: number | null): n is number => n !== null && n !== 0 && !Number.isNaN(n);

/**
 * markJobAsFailedIfAlreadyExceedsMaxAttempts, its test: whether the job ran out of tries before running.
 * retryUntil, when set, replaces maxTries entirely; maxTries 0 is unlimited only as the exact number 0.
 * A plain function, so the worker awaits nothing for a job that may run.
 */
export function alreadyExceedsMaxAttempts<J extends WorkerJob>(
  ctx: AttemptContext<J>,
  job: J,
  optionMaxTries: number,
): boolean {
  const maxTries = job.maxTries() ?? optionMaxTries;
  const retryUntil = job.retryUntil();
  if (truthy(retryUntil)) return ctx.now() > retryUntil;
  return !(maxTries === 0 || job.attempts() <= maxTries);
}

/** markJobAsFailedIfAlreadyExceedsMaxAttempts, its action once the test said so: fail the job with MaxAttemptsExceededError and throw it. */
export async function failAsAlreadyExceeded<J extends WorkerJob>(ctx: AttemptContext<J>, job: J): Promise<never> {
  const error = new MaxAttemptsExceededError(job);
  await ctx.fail(job, error);
  throw error;
}

/** markJobAsFailedIfWillExceedMaxAttempts: after an exception (or a timeout), fail the job when this was its last try. */
export async function failIfWillExceedMaxAttempts<J extends WorkerJob>(
  ctx: AttemptContext<J>,
  job: J,
  optionMaxTries: number,
  error: Error,
): Promise<void> {
  const maxTries = job.maxTries() ?? optionMaxTries;
  const retryUntil = job.retryUntil();
  // Both checks run, as in Laravel; failing twice is harmless because fail stops at a job already failed.
  if (truthy(retryUntil) && retryUntil <= ctx.now()) await ctx.fail(job, error);
  if (!truthy(retryUntil) && maxTries > 0 && job.attempts() >= maxTries) await ctx.fail(job, error);
}

/**
 * markJobAsFailedIfWillExceedMaxExceptions: count this exception in the shared cache (countJobException;
 * PHP and Node workers count together) and fail the job once the count reaches maxExceptions.
 */
export async function failIfWillExceedMaxExceptions<J extends WorkerJob>(
  ctx: AttemptContext<J>,
  job: J,
  error: Error,
): Promise<void> {
  const uuid = job.uuid();
  const maxExceptions = job.maxExceptions();
  if (ctx.cache === undefined || uuid === null || maxExceptions === null) return;
  if (maxExceptions <= (await countJobException(ctx.cache, uuid))) {
    await forgetJobExceptions(ctx.cache, uuid);
    await ctx.fail(job, error);
  }
}
