// Laravel's Job::fail plus queue:work's JobFailed listener that writes the failed-job record (Jobs\Job::fail
// and WorkCommand's listener through FailedJobProviderInterface::log, 13.x): in Laravel these live on the
// job and in the command; here the worker owns them.
//
// One deliberate difference: Laravel deletes the job first and then writes the record, so a store that
// cannot be written loses the job. Here the record is written first and the job deleted only after. When
// the store refuses, the job moves to larq's failed list in Redis with the reason (the entry is appended
// first, then the reservation removed, so a refused append never loses the job); when even that is impossible, it stays reserved and comes back after
// retry_after, where the attempts check fails it again. Either way the worker reports it by uuid and name.
// The failed hook and JobFailed run in every case: the attempt did fail (a job left reserved that fails
// again runs them again, as it would under Laravel after a crash).
//
// A store that stays down does not stop the worker: jobs that succeed are unaffected, as under Laravel,
// and failures keep going to Redis (reported one by one), where `larq failed` lists them and `larq retry`
// pushes them back. The store is tried again after a pause that doubles up to LONGEST_PAUSE_MS.
import { formatException } from '../failed/formatException';
import { encodeFailedEntry, generatedUuid } from '../failed/FailedList';
import { formatDateTime } from '../failed/timestamp';
import { FailedJobNotRecordedError, InvalidPayloadError, ManuallyFailedError } from '../errors';
import type { FailedJobLogger, JobRunner, WorkerJob } from '../jobs/contracts';

/** Where a failure is announced. */
export interface FailureReporting<J extends WorkerJob> {
  jobFailed(job: J, exception: Error): void;
  report(error: unknown): void;
}

/** Where a failure ended up: the store, larq's failed list, still reserved, or nowhere (no store configured). */
export type FailureKept = 'store' | 'redis' | 'reserved' | 'none';

// While the store is failing, failures go straight to Redis and the store is tried again after this
// pause, doubled after each failed try up to the cap, so a store that is down does not cost every failing
// job a connection attempt (or a connect timeout).
const FIRST_PAUSE_MS = 1000;
const LONGEST_PAUSE_MS = 30_000;
// A store write that has not answered by then counts as refused: a database that stopped answering (a
// dropped route, a lock) must not hold the job's slot for good. Should the write still land later, the
// job is in the store and in the failed list: twice, never lost.
const STORE_WRITE_LIMIT_MS = 15_000;

/**
 * Writes failure records for one worker: the store first, larq's failed list in Redis when the store
 * cannot take the record, the job left reserved when neither can. Never throws.
 */
export class FailureRecorder {
  private pauseMs = 0;
  private retryStoreAt = 0;
  private lastStoreError: unknown = null;

  constructor(
    private readonly failer: FailedJobLogger | undefined,
    private readonly nowMs: () => number = Date.now,
  ) {}

  /** Record the failure of `job`; says where it is kept. Problems go to `report`, naming the job. */
  async record(job: WorkerJob, exception: Error, report: (error: unknown) => void): Promise<FailureKept> {
    if (this.failer === undefined) return 'none';
    const payload = job.getRawBytes?.() ?? job.getRawBody();
    let refusal = this.lastStoreError;
    if (this.nowMs() >= this.retryStoreAt) {
      try {
        await withinLimit(
          this.failer.log(job.getConnectionName(), job.getQueue(), payload, exception),
          STORE_WRITE_LIMIT_MS,
        );
        this.pauseMs = 0;
        this.lastStoreError = null;
        return 'store';
      } catch (e) {
        refusal = e;
        // A payload the store cannot hold says nothing about the store's health.
        if (!(e instanceof InvalidPayloadError)) this.storeFailed(e, report);
      }
    }
    return this.keepInRedis(job, exception, payload, refusal, report);
  }

  private storeFailed(error: unknown, report: (error: unknown) => void): void {
    if (this.lastStoreError === null) report(error); // the store's own error, once per outage
    this.lastStoreError = error;
    this.pauseMs = Math.min(Math.max(this.pauseMs * 2, FIRST_PAUSE_MS), LONGEST_PAUSE_MS);
    this.retryStoreAt = this.nowMs() + this.pauseMs;
  }

  private async keepInRedis(
    job: WorkerJob,
    exception: Error,
    payload: string | Buffer,
    refusal: unknown,
    report: (error: unknown) => void,
  ): Promise<FailureKept> {
    const uuid = job.uuid() ?? generatedUuid();
    // One line: `larq work` prints the first line of each error; the full error stays the cause.
    const why = (refusal instanceof Error ? refusal.message : String(refusal)).split('\n')[0];
    const what = `job ${uuid} (${job.resolveName()}) on queue "${job.getQueue()}" failed and the failed-job store could not record it (${why})`;
    if (job.moveToFailedList !== undefined) {
      try {
        const failedAt = formatDateTime(this.nowMs(), 'UTC');
        const entry = {
          uuid,
          connection: job.getConnectionName(),
          queue: job.getQueue(),
          exception: formatException(exception),
          failed_at: failedAt,
          reason: why,
        };
        await job.moveToFailedList(encodeFailedEntry(entry, payload));
        report(
          new FailedJobNotRecordedError(
            `${what}: kept in larq's failed list in Redis (see larq failed, larq retry)`,
            uuid,
            'redis',
            { cause: refusal },
          ),
        );
        return 'redis';
      } catch (e) {
        refusal = e;
      }
    }
    const more =
      refusal instanceof Error && refusal.message !== why ? `; nor could Redis keep it (${refusal.message})` : '';
    report(
      new FailedJobNotRecordedError(
        `${what}${more}: it stays reserved and comes back after retry_after`,
        uuid,
        'reserved',
        { cause: refusal },
      ),
    );
    return 'reserved';
  }
}

function withinLimit<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the failed-job store did not answer within ${ms / 1000} s`)), ms);
    timer.unref();
  });
  return Promise.race([work, limit]).finally(() => clearTimeout(timer));
}

/**
 * Mark the job failed; unless it is already deleted: record the failure (connection, bare queue, original
 * payload bytes, exception), delete the reservation only once the record is written, call the runner's
 * failed hook (an error there is reported, not fatal), and fire JobFailed even if the delete threw.
 * A job already marked failed is not failed again: one attempt (one popped job) fails once, however many
 * rules fire in it and wherever its first failure ended up (Laravel's Job::fail reaches the same through
 * isDeleted, as it deletes before anything else).
 */
export async function failJob<J extends WorkerJob>(
  job: J,
  error: Error | undefined,
  runner: JobRunner<J>,
  recorder: FailureRecorder,
  out: FailureReporting<J>,
): Promise<void> {
  if (job.hasFailed()) return;
  const exception = error ?? new ManuallyFailedError(job);
  job.markAsFailed();
  if (job.isDeleted()) return;
  const kept = await recorder.record(job, exception, out.report);
  try {
    // 'redis' took the reservation away with the move; 'reserved' must keep it.
    if (kept === 'store' || kept === 'none') await job.delete();
    try {
      // Laravel's failed() hook gets the exception as given: null for fail() without one
      await runner.failed?.(job, error ?? null);
    } catch (e) {
      out.report(e);
    }
  } finally {
    out.jobFailed(job, exception);
  }
}
