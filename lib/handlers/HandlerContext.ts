// The `ctx` a handler gets (JobContext / ObjectJobContext). A class rather than an object literal, so a
// context costs one allocation per job. Its methods are getters that bind on first use, so a handler may
// destructure them (`{ release }`), and one that never calls them costs no closures. Each asks the
// attempt first: once the attempt is over (its timeout fired), a late release, delete or fail is refused
// and reported, never run.
import type { JobAttempt } from '../jobs/contracts';
import { unguarded } from '../worker/Attempt';
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
  #release: ((delaySeconds?: number) => Promise<void>) | undefined;
  #delete: (() => Promise<void>) | undefined;
  #fail: ((error?: Error) => Promise<void>) | undefined;

  constructor(
    readonly job: RedisJob,
    readonly payload: JobPayload,
    attempt: JobAttempt,
    failJob: FailJob,
    command?: PhpObject,
  ) {
    const own = unguarded(job); // reads skip the proxy of a timed attempt's job
    this.attempts = own.attempts();
    this.uuid = own.uuid();
    this.id = own.getJobId();
    this.queue = own.getQueue();
    this.#attempt = attempt;
    this.#failJob = failJob;
    // a string job's context has no `command` key at all
    if (command !== undefined) (this as { command?: PhpObject }).command = command;
  }

  /** Aborted when the job's timeout passes or the worker is forced to stop (the AbortController is made on first read). */
  get signal(): AbortSignal {
    return this.#attempt.signal;
  }

  get release(): (delaySeconds?: number) => Promise<void> {
    return (this.#release ??= async (delay = 0) => {
      if (this.#attempt.allows?.('release') !== false) await this.job.release(delay);
    });
  }

  get delete(): () => Promise<void> {
    return (this.#delete ??= async () => {
      if (this.#attempt.allows?.('delete') !== false) await this.job.delete();
    });
  }

  get fail(): (error?: Error) => Promise<void> {
    return (this.#fail ??= async (error?: Error) => {
      if (this.#attempt.allows?.('fail') !== false) await this.#failJob(this.job, error);
    });
  }
}
