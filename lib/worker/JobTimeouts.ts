// The job timeouts and the hung-handler grace after them. Laravel arms a SIGALRM per job
// (Worker::registerTimeoutHandler, 13.x): a job's limit is its payload `timeout`, else the `timeout`
// option (0: none); when it expires the handler fails the job if this was its last try or exception, or
// if it has failOnTimeout, fires JobTimedOut and kills the worker. The job is neither released nor
// deleted: it stays reserved until `retry_after` and comes back with one more attempt.
//
// Node cannot pre-empt a promise, so larq times the attempt out instead (the same fail decisions and
// event, the job left reserved, the handler's AbortSignal aborted), and the slot stays occupied until the
// handler really settles. A handler still running `graceSeconds` after its timeout is hung: by default
// (onHungHandler 'stop') the worker then does what Laravel's killed worker amounts to: it takes no more
// jobs, lets the other slots finish and ends with status 1, reason `timed_out`, whatever stop came first.
// With onTimeout 'stop' it ends so at the timeout itself, as Laravel does. `runNextJob` (`--once`) has
// no timeout, as in Laravel.
//
// Like BullMQ's lock manager (trackJob/untrackJob), this duty keeps its own list of the attempts it
// watches, and one timer (Deadlines) for all of them, armed for the earliest due time.
import type { Clock } from '../clock';
import type { WorkerJob } from '../jobs/contracts';
import { ArrayMap } from '../support/ArrayMap';
import type { Attempt } from './Attempt';
import { Deadlines } from './Deadlines';

/** What the worker does when a watched attempt is due. */
export interface TimeoutHandlers<J extends WorkerJob> {
  /** The attempt's timeout passed while its handler ran; the attempt has timed out already. */
  timedOut(attempt: Attempt<J>, timeoutSeconds: number): void;
  /** A timed-out handler had not settled `graceSeconds` later; it is given up as hung already. */
  hung(attempt: Attempt<J>, timeoutSeconds: number): void;
}

interface Watched {
  readonly timeoutSeconds: number;
  // When the timeout fires, then (once timed out) when the handler counts as hung, in clock ms.
  dueAtMs: number;
  timedOut: boolean;
}

/**
 * Laravel's Worker::timeoutForJob: the payload's timeout, else the `timeout` option; 0 (or less): none. An
 * unreadable payload is reported, and gets the option (process() reports it properly).
 */
export function timeoutForJob(job: WorkerJob, optionTimeout: number, out: { report(e: unknown): void }): number {
  try {
    return Math.max(job.timeout() ?? optionTimeout, 0);
  } catch (e) {
    out.report(e);
    return optionTimeout;
  }
}

/** Watches the running attempts that have a timeout. */
export class JobTimeouts<J extends WorkerJob> {
  // An array, not a Map: see support/ArrayMap.
  private readonly watched = new ArrayMap<Attempt<J>, Watched>();
  private readonly timer: Deadlines;

  constructor(
    private readonly clock: Clock,
    sleep: (ms: number, signal: AbortSignal) => Promise<void>,
    private readonly graceSeconds: number,
    private readonly handlers: TimeoutHandlers<J>,
  ) {
    this.timer = new Deadlines(clock, sleep, (now) => this.due(now));
  }

  /** Start the timer. */
  start(): void {
    this.timer.start();
  }

  /** Stop the timer; resolves once it has. Watched attempts stay watched for the next start. */
  async stop(): Promise<void> {
    await this.timer.stop();
  }

  /** Watch a running attempt whose timeout is `timeoutSeconds` (0 or less: none, nothing to watch). */
  trackJob(attempt: Attempt<J>, timeoutSeconds: number): void {
    if (timeoutSeconds <= 0) return;
    const dueAtMs = this.clock.nowMs() + timeoutSeconds * 1000;
    this.watched.set(attempt, { timeoutSeconds, dueAtMs, timedOut: false });
    this.timer.fireBy(dueAtMs);
  }

  /** The attempt's handler settled: neither its timeout nor its grace can fire any more. */
  untrackJob(attempt: Attempt<J>): void {
    this.watched.delete(attempt);
  }

  // Time out the attempts whose timeout passed, give up the handlers whose grace passed; when next due.
  private due(now: number): number {
    let next = Infinity;
    for (const [attempt, watch] of this.watched.entries()) {
      if (watch.dueAtMs > now) {
        next = Math.min(next, watch.dueAtMs);
      } else if (!watch.timedOut) {
        if (!attempt.timeOut()) {
          this.watched.delete(attempt); // settled meanwhile: nothing left to watch
          continue;
        }
        watch.timedOut = true;
        watch.dueAtMs = now + this.graceSeconds * 1000;
        next = Math.min(next, watch.dueAtMs);
        this.handlers.timedOut(attempt, watch.timeoutSeconds);
      } else {
        this.watched.delete(attempt);
        if (attempt.giveUpAsHung()) this.handlers.hung(attempt, watch.timeoutSeconds);
      }
    }
    return next;
  }
}
