// The narrow interfaces the Worker runs against. The Worker never sees Redis, PHP or a database: the
// real RedisQueue/RedisJob and failed-job stores are adapted to these, any of lib/cache's stores fits
// WorkerCache as it is, and specs drive the Worker with in-memory fakes. Names and semantics follow
// Laravel's Contracts\Queue\Job (13.x).
import type { CacheStore } from '../cache/CacheStore';

/** One popped job as the worker sees it: Laravel's Contracts\Queue\Job, as implemented by RedisJob. */
export interface WorkerJob {
  /** The payload exactly as popped (not the reserved copy): what a failed-job record stores. */
  getRawBody(): string;
  /** The payload's length as popped (bytes, or UTF-16 units of a string), for the worker's memory budget; default getRawBody().length. */
  payloadLength?(): number;
  /** The reserved string the pop produced (attempts incremented): what delete and release send. */
  getReservedJob(): string;
  /** The number of this attempt, counting from 1 (the payload's `attempts` + 1). */
  attempts(): number;
  /** The payload's `uuid`, or null. */
  uuid(): string | null;
  /** The payload's `id`, or null. */
  getJobId(): string | null;
  /** The bare queue name the job was popped from (e.g. `default`). */
  getQueue(): string;
  /** The queue connection name (e.g. `redis`). */
  getConnectionName(): string;
  /** The payload's `job` (`Illuminate\Queue\CallQueuedHandler@call` or `Class@method`). */
  getName(): string;
  /** `displayName` when non-empty, else `job`: the name in messages and logs. */
  resolveName(): string;
  /**
   * The decoded payload, for listeners and runners (the worker itself reads only the accessors here).
   * Typed `object` so RedisJob, whose payload() is the typed JobPayload, implements this contract as is.
   */
  payload(): object;
  /** The payload's `maxTries`, or null (the worker's `maxTries` option applies). */
  maxTries(): number | null;
  /** The payload's `maxExceptions`, or null. */
  maxExceptions(): number | null;
  /** The payload's `timeout` in seconds, or null (the worker's `timeout` option applies). */
  timeout(): number | null;
  /** The payload's `retryUntil` in UNIX seconds, or null. */
  retryUntil(): number | null;
  /** The payload's `backoff`, else its `delay` (12.11+ payloads), as a string like "1,5,10"; or null. */
  backoff(): string | null;
  /** The payload's `failOnTimeout`. */
  shouldFailOnTimeout(): boolean;
  /** Mark deleted, then remove the reservation. */
  delete(): Promise<void>;
  /** Mark released, then move the reserved string to the delayed set, due in `delaySeconds`. */
  release(delaySeconds: number): Promise<void>;
  /** Whether delete() was called. */
  isDeleted(): boolean;
  /** Whether release() was called. */
  isReleased(): boolean;
  /** Whether delete() or release() was called. */
  isDeletedOrReleased(): boolean;
  /** Set the failed flag only; failing a job (delete, hook, events, record) is the worker's job. */
  markAsFailed(): void;
  /** Whether markAsFailed() was called. */
  hasFailed(): boolean;
  /** The payload exactly as popped, bytes when the pop read bytes (invalid UTF-8 survives): what a failure record keeps. */
  getRawBytes?(): string | Buffer;
  /** Remove the reservation and keep the job, as `entry` (its failure and payload), in larq's failed list in Redis. */
  moveToFailedList?(entry: Buffer): Promise<void>;
}

/** Where the worker gets jobs: one queue connection (Laravel's `Queue` contract, reduced to what the worker calls). */
export interface WorkerQueue<J extends WorkerJob = WorkerJob> {
  /** The connection name events and failed-job records carry (e.g. `redis`). */
  readonly connectionName: string;
  /** Pop one job; `index` is the queue's position in this pass (11.27+: only index 0 may block). */
  pop(queue: string, index: number): Promise<J | null>;
  /**
   * Pop up to `count` jobs in one round trip (fewer means the queue ran dry); the worker uses it whenever
   * the queue has it, even for one job.
   * A problem with one pop (a quarantined payload) goes to `onError` so the jobs reserved with it still run.
   */
  popMany?(queue: string, index: number, count: number, onError: (error: Error) => void): Promise<J[]>;
  /** Push the job's reservation to `untilUnixSeconds`; false when it is no longer reserved. For the heartbeat. */
  extendReservation?(job: J, untilUnixSeconds: number): Promise<boolean>;
}

/**
 * The slice of Laravel's cache store the worker calls (Worker::queueShouldRestart, QueueManager::isPaused,
 * Worker::markJobAsFailedIfWillExceedMaxExceptions, 13.x): the restart and pause
 * reads and the maxExceptions counter, through lib/cache/signals. Any CacheStore (Redis, database,
 * array) is one; values come back decoded (numbers, booleans, strings, null).
 */
export type WorkerCache = Pick<CacheStore, 'get' | 'put' | 'increment' | 'forget'> & Partial<Pick<CacheStore, 'many'>>;

/** The failed-job store (Laravel's FailedJobProviderInterface::log, 13.x). */
export interface FailedJobLogger {
  /** Record a failed job: connection name, bare queue name, original payload (its exact bytes when a Buffer), the exception. */
  log(connection: string, queue: string, payload: string | Buffer, exception: Error): Promise<unknown>;
}

/** A side effect that belongs to one attempt: the job's own delete, release and fail, and the runner's hooks. */
export type AttemptAction = 'delete' | 'release' | 'fail' | 'beforeHandle' | 'afterHandle';

/** One attempt at a job, as the runner sees it. */
export interface JobAttempt {
  /** Aborts on the job's timeout or a forced shutdown. Made on first read: most jobs never look at it. */
  readonly signal: AbortSignal;
  /**
   * Whether `action` may still happen. False once the attempt is over (it timed out, or its outcome is
   * settled): the worker has then reported the refusal, and the runner must skip the action. Absent when
   * the runner is called outside a worker.
   */
  allows?(action: AttemptAction): boolean;
  /**
   * Hand over the final delete when only its acknowledgement from Redis is left: the worker may then give
   * the slot to the next job while it waits, and still counts the attempt as processed (JobProcessed, or
   * the exception path if `deleting` rejects) only once it settles. Present for every attempt of the
   * daemon, at any concurrency; absent for runNextJob (`--once`) and outside a worker, where the runner
   * awaits the delete itself.
   */
  deferFinalDelete?(deleting: Promise<void>): void;
}

/**
 * What runs a job's code: the registry that decodes commands and calls user handlers (Laravel's
 * `fire()` and CallQueuedHandler). Object jobs are deleted by the runner on success, as CallQueuedHandler
 * does; string jobs are not (Laravel's Jobs\Job::fire calls `Class@method` and deletes nothing).
 */
export interface JobRunner<J extends WorkerJob = WorkerJob> {
  /** Run the job; reject to report an exception. `attempt.signal` aborts on timeout or a forced shutdown. */
  run(job: J, attempt: JobAttempt): Promise<void>;
  /**
   * The job's `failed` hook (Laravel calls `failed(data, e, uuid)`); its errors never stop the failure.
   * `error` is null when the job was failed without an exception (`fail()`), as PHP passes it.
   */
  failed?(job: J, error: Error | null): Promise<void> | void;
}
