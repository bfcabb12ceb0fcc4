// Follows each attempt a worker runs, from JobProcessing to its end, through the worker's public events
// only, and says once per attempt how it ended. Tracing and metrics both read attempts this way, so they
// agree on what "processed", "released", "failed" and "timed out" mean.
import type { Worker } from '../Worker';
import type { WorkerJob } from '../jobs/contracts';
import { ArrayMap } from '../support/ArrayMap';

/** How an attempt ended, in the words of Laravel's worker events. */
export type AttemptOutcome = 'processed' | 'released' | 'failed' | 'timed_out';

/** One attempt's end: its outcome, the exception it threw or failed with, and a release's delay in seconds. */
export interface AttemptEnd {
  /** timed_out when the attempt ran past its timeout (whether or not that failed the job), else failed, released or processed. */
  outcome: AttemptOutcome;
  /** Whether the attempt failed the job (JobFailed: a failure record), a timed-out one included. */
  failed: boolean;
  error: Error | null;
  /** The backoff of a release after an exception; null for a handler's own release or another outcome. */
  releaseDelay: number | null;
}

/** What an observer is told: an attempt started (JobProcessing) and, once, how it ended. */
export interface AttemptObserver<J extends WorkerJob> {
  started(job: J): void;
  ended(job: J, end: AttemptEnd): void;
}

interface Open {
  failed: boolean;
  timedOut: boolean;
  released: boolean;
  error: Error | null;
  releaseDelay: number | null;
}

/**
 * Listen to `worker` and report every attempt's start and end to `observer`. An attempt ends at
 * JobAttempted, or at JobTimedOut (Laravel's worker is killed there, and larq emits no JobAttempted for
 * a timed-out attempt). Attempts are told apart by their reserved string (the payload with this
 * attempt's count), since a job's events and its handler may see it through different wrappers.
 */
export function observeAttempts<J extends WorkerJob>(worker: Worker<J>, observer: AttemptObserver<J>): void {
  // An array, not a Map: see support/ArrayMap.
  const open = new ArrayMap<string, Open>();
  const stateOf = (job: J) => open.get(job.getReservedJob());
  const end = (job: J, error: Error | null): void => {
    const key = job.getReservedJob();
    const state = open.get(key);
    if (!state) return;
    open.delete(key);
    const released = state.released || (job.isReleased() && !job.isDeleted());
    const failed = state.failed || job.hasFailed();
    const outcome: AttemptOutcome = state.timedOut
      ? 'timed_out'
      : failed
        ? 'failed'
        : released
          ? 'released'
          : 'processed';
    observer.ended(job, { outcome, failed, error: state.error ?? error, releaseDelay: state.releaseDelay });
  };
  worker
    .on('JobProcessing', ({ job }) => {
      open.set(job.getReservedJob(), {
        failed: false,
        timedOut: false,
        released: false,
        error: null,
        releaseDelay: null,
      });
      observer.started(job);
    })
    .on('JobFailed', ({ job, exception }) => {
      const state = stateOf(job);
      if (state) Object.assign(state, { failed: true, error: state.error ?? exception });
    })
    .on('JobReleasedAfterException', ({ job, backoff, exception }) => {
      const state = stateOf(job);
      if (state) Object.assign(state, { released: true, releaseDelay: backoff, error: state.error ?? exception });
    })
    .on('JobExceptionOccurred', ({ job, exception }) => {
      const state = stateOf(job);
      if (state && state.error === null) state.error = exception;
    })
    .on('JobTimedOut', ({ job }) => {
      const state = stateOf(job);
      if (state) state.timedOut = true;
      end(job, null);
    })
    .on('JobAttempted', ({ job, exception }) => end(job, exception));
}

/**
 * The payload's top-level keys as decoded JSON (RedisJob's payload() keeps them as `decoded`), or an empty
 * record when the payload cannot be read: the worker fails such a job, and its telemetry reads nothing.
 */
export function payloadKeys(job: WorkerJob): Record<string, unknown> {
  try {
    const payload = job.payload() as { decoded?: unknown };
    const decoded = payload.decoded ?? payload;
    return typeof decoded === 'object' && decoded !== null ? (decoded as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
