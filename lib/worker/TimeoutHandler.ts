// What the worker does when JobTimeouts finds an attempt due. When a job's timeout expires: what Laravel's
// timeout handler (Worker::registerTimeoutHandler, 13.x) does before it kills the worker: fail the job if
// this was its last try or exception, or if it has failOnTimeout, and fire JobTimedOut; the job is left
// reserved. A handler still running `timeoutGraceSeconds` later is hung, and by default (onHungHandler
// 'stop') ends the worker with status 1: Laravel's worker would have been killed by then.
import { HungHandlerError, TimeoutExceededError } from '../errors';
import type { WorkerJob } from '../jobs/contracts';
import type { Attempt } from './Attempt';
import type { JobExceptionDeps } from './handleJobException';
import type { TimeoutHandlers } from './JobTimeouts';
import { failIfWillExceedMaxAttempts, failIfWillExceedMaxExceptions } from './maxAttempts';
import type { StopChecks } from './StopChecks';

/** What the timeout rules need besides the exception rules' options, context and events. */
export interface TimeoutHandlerDeps<J extends WorkerJob> extends JobExceptionDeps<J> {
  stops: Pick<StopChecks, 'timeoutStop'>;
  /** Tell the slots the worker is finished with the attempt, if it is (Attempt.isFinished). */
  finishIfDone(attempt: Attempt<J>): void;
}

/** The worker's side of a job timeout and of a hung handler. */
export class TimeoutHandler<J extends WorkerJob> implements TimeoutHandlers<J> {
  constructor(private readonly deps: TimeoutHandlerDeps<J>) {}

  /** The attempt has timed out already (JobTimeouts): abort its handler's signal and decide its job's fate. */
  timedOut(attempt: Attempt<J>, timeoutSeconds: number): void {
    void this.jobTimedOut(attempt, timeoutSeconds);
  }

  /** A timed-out handler did not settle within the grace: Laravel's worker would have been killed by now. */
  hung(attempt: Attempt<J>, timeoutSeconds: number): void {
    const { options, events, stops } = this.deps;
    const { timeoutGraceSeconds: graceSeconds, onHungHandler: policy } = options;
    events.emit('JobHandlerHung', {
      ...events.jobEvent(attempt.job),
      timeout: timeoutSeconds,
      graceSeconds,
      policy,
    });
    events.report(new HungHandlerError(attempt.job, graceSeconds, policy));
    this.deps.finishIfDone(attempt);
    if (policy === 'stop') stops.timeoutStop();
  }

  private async jobTimedOut(attempt: Attempt<J>, timeoutSeconds: number): Promise<void> {
    const { options, rules, events, stops } = this.deps;
    const { job } = attempt;
    const error = new TimeoutExceededError(job);
    attempt.abort(error);
    try {
      // A job already failed in this attempt (before it ran, or by its handler) is not failed again.
      if (!job.hasFailed()) {
        await failIfWillExceedMaxAttempts(rules, job, options.maxTries, error);
        await failIfWillExceedMaxExceptions(rules, job, error);
        if (job.shouldFailOnTimeout()) await rules.fail(job, error);
      }
    } catch (e) {
      events.report(e);
    }
    events.emit('JobTimedOut', { ...events.jobEvent(job), timeout: timeoutSeconds });
    events.report(error);
    attempt.timeoutHandled();
    this.deps.finishIfDone(attempt);
    if (options.onTimeout === 'stop') stops.timeoutStop();
  }
}
