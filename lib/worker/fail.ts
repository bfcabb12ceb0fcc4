// Laravel's Job::fail (spec §9.2) plus queue:work's JobFailed listener that writes the failed-job record
// (§10.15): in Laravel these live on the job and in the command; here the worker owns them.
import { ManuallyFailedError } from '../errors';
import type { FailedJobLogger, JobRunner, WorkerJob } from '../jobs/contracts';

/** Where a failure is announced. */
export interface FailureReporting<J extends WorkerJob> {
  jobFailed(job: J, exception: Error): void;
  report(error: unknown): void;
}

/**
 * Mark the job failed; unless it is already deleted: delete its reservation, call the runner's failed hook
 * (an error there is reported, not fatal), fire JobFailed even if the delete threw, then write the record
 * (connection, bare queue, original raw body, exception).
 */
export async function failJob<J extends WorkerJob>(
  job: J,
  error: Error | undefined,
  runner: JobRunner<J>,
  failer: FailedJobLogger | undefined,
  out: FailureReporting<J>,
): Promise<void> {
  const exception = error ?? new ManuallyFailedError(job);
  job.markAsFailed();
  if (job.isDeleted()) return;
  try {
    await job.delete();
    try {
      // Laravel's failed() hook gets the exception as given: null for fail() without one
      await runner.failed?.(job, error ?? null);
    } catch (e) {
      out.report(e);
    }
  } finally {
    out.jobFailed(job, exception);
    try {
      await failer?.log(job.getConnectionName(), job.getQueue(), job.getRawBody(), exception);
    } catch (e) {
      out.report(e);
    }
  }
}
