// The worker's options: Laravel's `Illuminate\Queue\WorkerOptions` (13.x) with Laravel's names, units (seconds,
// megabytes) and defaults, plus the few Node extras a concurrent worker needs. Merged and validated here
// and nowhere else.
import type { Clock } from './clock';
import { InvalidOptionError } from './errors';
import type { FailedJobLogger, WorkerCache } from './jobs/contracts';
import type { LaravelRelease, LaravelVersion } from './LaravelLine';
import { retryAfterProblem } from './RedisQueueOptions';

/** What a worker does once a job timed out (Laravel `Worker::registerTimeoutHandler`, 13.x). */
export type OnTimeout = 'continue' | 'stop';

/** What a worker does when a timed-out handler has not settled within `timeoutGraceSeconds`. */
export type OnHungHandler = 'stop' | 'continue';

/** Options of a Worker; every field has Laravel's `queue:work` default. */
export interface WorkerOptions {
  /** `--name`: the worker's name (Laravel selects a custom pop callback with it); reported in events. */
  name: string;
  /** `--backoff`: seconds before a failed attempt is retried, or a list "1,5,10" by attempt (last repeats). */
  backoff: number | string;
  /** `--tries`: attempts for jobs without `maxTries`; 0 = unlimited; negative fails every job before it runs. */
  maxTries: number;
  /** `--timeout`: seconds a job may run when its payload has no `timeout`; 0 = no limit. */
  timeout: number;
  /** `--sleep`: seconds to wait when a pass found no job (may be fractional). */
  sleep: number;
  /** `--rest`: seconds to wait after each job, per slot. */
  rest: number;
  /** `--memory`: megabytes of memory in use (V8 heap + buffers, see WorkerDeps) at which the worker stops with status 12; 0 = no limit (12.54+). */
  memory: number;
  /** `--max-jobs`: stop after starting this many jobs; 0 = unlimited. */
  maxJobs: number;
  /** `--max-time`: stop after running this many seconds; 0 = unlimited. */
  maxTime: number;
  /** `--stop-when-empty`: stop (status 0) when a pass finds no job. */
  stopWhenEmpty: boolean;
  /** `--force`: keep working while `isDownForMaintenance` says the application is down. */
  force: boolean;
  /** Jobs in flight at once. 1 is exactly Laravel's one-job-at-a-time worker. */
  concurrency: number;
  /** false: strict priority over the queue list, as Laravel. true: each pass starts one queue further on. */
  rotateQueues: boolean;
  /** Seconds between reservation extensions of in-flight jobs, or false for none (Laravel has none). */
  heartbeat: number | false;
  /** The queue connection's `retry_after` in whole seconds (0: reservations expire at once, as in Laravel): how far each heartbeat pushes a reservation. */
  retryAfter: number | null;
  /** Seconds a graceful stop waits for jobs in flight; 0 = as long as they take (each is still bounded by its timeout). */
  shutdownGraceSeconds: number;
  /** Handle SIGTERM/SIGINT/SIGQUIT (graceful stop), SIGUSR2 (pause) and SIGCONT (resume) while `daemon` runs. */
  handleSignals: boolean;
  /** 'continue': keep working after a timeout (larq). 'stop': end the daemon with status 1, reason `timed_out` (Laravel). */
  onTimeout: OnTimeout;
  /**
   * Seconds a timed-out handler has to settle after its AbortSignal fired. Node cannot kill a promise the
   * way Laravel's SIGALRM kills its worker; a handler still running after this grace is hung, and
   * `onHungHandler` says what happens then.
   */
  timeoutGraceSeconds: number;
  /**
   * 'stop' (default): what Laravel's killed worker amounts to: take no more jobs, let the other slots
   * finish, and end the daemon with status 1, reason `timed_out`, so the supervisor starts a fresh
   * process. 'continue': keep working; the hung handler keeps its slot until it settles, if ever.
   */
  onHungHandler: OnHungHandler;
}

/** Laravel's `queue:work` defaults, and larq's for the Node extras. */
export const DEFAULT_WORKER_OPTIONS: Readonly<WorkerOptions> = Object.freeze({
  name: 'default',
  backoff: 0,
  maxTries: 1,
  timeout: 60,
  sleep: 3,
  rest: 0,
  memory: 128,
  maxJobs: 0,
  maxTime: 0,
  stopWhenEmpty: false,
  force: false,
  concurrency: 1,
  rotateQueues: false,
  heartbeat: false,
  retryAfter: null,
  shutdownGraceSeconds: 0,
  handleSignals: false,
  onTimeout: 'continue',
  timeoutGraceSeconds: 5,
  onHungHandler: 'stop',
});

type Check = (value: unknown) => string | null;

const nonNegative: Check = (v) =>
  typeof v === 'number' && Number.isFinite(v) && v >= 0 ? null : 'must be a finite number >= 0';
const integer: Check = (v) => (typeof v === 'number' && Number.isSafeInteger(v) ? null : 'must be an integer');
const count: Check = (v) => integer(v) ?? ((v as number) >= 0 ? null : 'must be >= 0');
const bool: Check = (v) => (typeof v === 'boolean' ? null : 'must be true or false');

const CHECKS: { [K in keyof WorkerOptions]: Check } = {
  name: (v) => (typeof v === 'string' ? null : 'must be a string'),
  // A string is parsed with PHP's (int) at use, so any string is as valid as it is in Laravel.
  backoff: (v) => (typeof v === 'string' ? null : nonNegative(v)),
  maxTries: integer,
  timeout: nonNegative,
  sleep: nonNegative,
  rest: nonNegative,
  memory: nonNegative,
  maxJobs: count,
  maxTime: nonNegative,
  stopWhenEmpty: bool,
  force: bool,
  concurrency: (v) => integer(v) ?? ((v as number) >= 1 ? null : 'must be >= 1'),
  rotateQueues: bool,
  heartbeat: (v) =>
    v === false
      ? null
      : typeof v === 'number' && Number.isFinite(v) && v > 0
        ? null
        : 'must be false or a number of seconds > 0',
  // The connection's option, checked as RedisQueue checks it.
  retryAfter: retryAfterProblem,
  shutdownGraceSeconds: nonNegative,
  handleSignals: bool,
  onTimeout: (v) => (v === 'continue' || v === 'stop' ? null : "must be 'continue' or 'stop'"),
  timeoutGraceSeconds: nonNegative,
  onHungHandler: (v) => (v === 'stop' || v === 'continue' ? null : "must be 'stop' or 'continue'"),
};

/** Merge `partial` over the defaults and validate; throws InvalidOptionError naming the first bad option. */
export function resolveWorkerOptions(partial: Partial<WorkerOptions> = {}): Readonly<WorkerOptions> {
  for (const key of Object.keys(partial)) {
    if (!(key in CHECKS)) throw new InvalidOptionError(key, 'is not a worker option');
  }
  const options: WorkerOptions = { ...DEFAULT_WORKER_OPTIONS };
  for (const [key, value] of Object.entries(partial)) {
    if (value !== undefined) (options as unknown as Record<string, unknown>)[key] = value;
  }
  for (const key of Object.keys(CHECKS) as (keyof WorkerOptions)[]) {
    const problem = CHECKS[key](options[key]);
    if (problem !== null) throw new InvalidOptionError(key, problem);
  }
  // A heartbeat must land well inside the reservation it renews, or the job is migrated back between beats.
  if (options.heartbeat !== false) {
    if (options.retryAfter === null) throw new InvalidOptionError('retryAfter', 'is needed when heartbeat is set');
    if (options.heartbeat >= options.retryAfter)
      throw new InvalidOptionError('heartbeat', `must be shorter than retryAfter (${options.retryAfter} s)`);
  }
  return Object.freeze(options);
}

/** The daemon's `--queue` list: Laravel splits it on commas without trimming; an array is taken as given. */
export function queueList(queues: string[] | string): string[] {
  const list = typeof queues === 'string' ? queues.split(',') : [...queues];
  if (list.length === 0) throw new InvalidOptionError('queues', 'must name at least one queue');
  return list;
}

/** What a Worker may be given besides its queue and runner; everything is optional. */
export interface WorkerDeps {
  /** Laravel's default cache store, any CacheStore: restart and pause signals, maxExceptions counters. */
  cache?: WorkerCache;
  /** Where failed jobs are recorded; without it they are not (like a worker with no JobFailed listener). */
  failer?: FailedJobLogger;
  /** The time source (FakeClock in specs). */
  clock?: Clock;
  /** Memory in use, in bytes, compared with `memory` megabytes; default: heapMemoryUsage (V8 heap + buffers). */
  memoryUsage?: () => number;
  /** Resolve after `ms`, or as soon as `signal` aborts; default: a timer. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Laravel's isDownForMaintenance: while true (and `force` is off) the daemon takes no jobs. */
  isDownForMaintenance?: () => boolean | Promise<boolean>;
  /** The PHP side's Laravel version: which cache signals exist (13.25+ global pause). Default 13; createWorker: the queue's. */
  laravel?: LaravelVersion | LaravelRelease;
}
