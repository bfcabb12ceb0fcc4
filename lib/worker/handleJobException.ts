// Laravel's Worker::handleJobException (13.x), for a job whose run threw: fail it if this was its last try
// or exception, fire JobExceptionOccurred, and release it with backoff (Worker::calculateBackoff) when it
// was neither failed nor settled by the job; then the exception goes on to the caller.
import { calculateBackoff } from '../backoff';
import type { WorkerJob } from '../jobs/contracts';
import type { WorkerOptions } from '../WorkerOptions';
import type { DaemonEvents } from './DaemonEvents';
import { type AttemptContext, failIfWillExceedMaxAttempts, failIfWillExceedMaxExceptions } from './maxAttempts';

/** What the worker's exception rules read: its options, the fail rules' context, its events. */
export interface JobExceptionDeps<J extends WorkerJob> {
  options: Readonly<WorkerOptions>;
  rules: AttemptContext<J>;
  events: DaemonEvents<J>;
}

/** Laravel's Worker::handleJobException: settle what the job left unsettled after `error`, then throw it. */
export async function handleJobException<J extends WorkerJob>(
  job: J,
  error: Error,
  { options, rules, events }: JobExceptionDeps<J>,
): Promise<never> {
  try {
    if (!job.hasFailed()) {
      await failIfWillExceedMaxAttempts(rules, job, options.maxTries, error);
      await failIfWillExceedMaxExceptions(rules, job, error);
    }
    events.emit('JobExceptionOccurred', { ...events.jobEvent(job), exception: error });
  } finally {
    if (!job.isDeleted() && !job.isReleased() && !job.hasFailed()) {
      const backoff = calculateBackoff(job.backoff(), options.backoff, job.attempts());
      await job.release(backoff);
      events.emit('JobReleasedAfterException', { ...events.jobEvent(job), backoff, exception: error });
    }
  }
  throw error;
}
