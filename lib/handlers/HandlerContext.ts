// The `ctx` a handler gets (JobContext / ObjectJobContext). Its methods are arrow functions, so a handler
// may destructure them (`{ release }`). Each asks the attempt first: once the attempt is over (its timeout
// fired, or its outcome is settled), a late release, delete or fail is refused and reported, never run.
import type { JobAttempt } from '../jobs/contracts';
import type { RedisJob } from '../jobs/RedisJob';
import type { JobPayload } from '../payload/types';
import type { PhpObject } from '../php/values';

/** What a handler gets besides the job's data: the job's identity, its payload, and Laravel's job methods. */
export interface JobContext {
  /** The reserved job itself (raw and reserved strings, payload accessors). */
  readonly job: RedisJob;
  /** This attempt's number, from 1. */
  readonly attempts: number;
  readonly uuid: string | null;
  readonly id: string | null;
  /** The bare queue name. */
  readonly queue: string;
  readonly payload: JobPayload;
  /** Aborted when the job's timeout passes or the worker is forced to stop. */
  readonly signal: AbortSignal;
  /** Put the job back, due in `delaySeconds` (Laravel's `$this->release()`). */
  release(delaySeconds?: number): Promise<void>;
  /** Acknowledge the job (string jobs must, object jobs are deleted after the handler returns). */
  delete(): Promise<void>;
  /** Fail the job now: it is recorded in the failed-job store with `error` (Laravel's `$this->fail()`). */
  fail(error?: Error): Promise<void>;
}

/** An object job's context adds the exact PHP object the plain view was made from. */
export interface ObjectJobContext extends JobContext {
  readonly command: PhpObject;
}

/** Fails a job as Laravel's Job::fail does; no error means Laravel's ManuallyFailedException. */
export type FailJob = (job: RedisJob, error?: Error) => Promise<void>;

/** One attempt's context; `command` is an own property only for object jobs. */
export class HandlerContext implements Omit<ObjectJobContext, 'command'> {
  readonly attempts: number;
  readonly uuid: string | null;
  readonly id: string | null;
  readonly queue: string;
  declare readonly command?: PhpObject;
  readonly #attempt: JobAttempt;
  readonly #failJob: FailJob;

  constructor(
    readonly job: RedisJob,
    readonly payload: JobPayload,
    attempt: JobAttempt,
    failJob: FailJob,
    command?: PhpObject,
  ) {
    this.attempts = job.attempts();
    this.uuid = job.uuid();
    this.id = job.getJobId();
    this.queue = job.getQueue();
    this.#attempt = attempt;
    this.#failJob = failJob;
    // a string job's context has no `command` key at all
    if (command !== undefined) (this as { command?: PhpObject }).command = command;
  }

  /** Aborted when the job's timeout passes or the worker is forced to stop (the AbortController is made on first read). */
  get signal(): AbortSignal {
    return this.#attempt.signal;
  }

  /** Laravel's InteractsWithQueue::release: back on the queue in `delaySeconds`. */
  readonly release = async (delaySeconds = 0): Promise<void> => {
    if (this.#attempt.allows?.('release') !== false) await this.job.release(delaySeconds);
  };

  /** Laravel's InteractsWithQueue::delete. */
  readonly delete = async (): Promise<void> => {
    if (this.#attempt.allows?.('delete') !== false) await this.job.delete();
  };

  /** Laravel's InteractsWithQueue::fail: fail the job now (no error: ManuallyFailedException). */
  readonly fail = async (error?: Error): Promise<void> => {
    if (this.#attempt.allows?.('fail') !== false) await this.#failJob(this.job, error);
  };
}
