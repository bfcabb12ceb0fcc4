// One attempt at a job, as one state machine a reader can check against Laravel's Worker::process and
// CallQueuedHandler::call:
//
//   reserved --start()--> running --conclude()--> processed | released | failed
//                            \
//                             `--timeOut()--> timedOut
//
// reserved: popped, not started. running: from JobProcessing until the worker has settled the outcome
// (the handler returned or threw, and the worker's own exception handling, fail or release, is done).
// The outcome is read from the job as Laravel reads it: failed if it was marked failed, released if it
// was released, otherwise processed (deleted, or a string job that left itself reserved).
// timedOut: the timeout fired while the handler was still running. From then on the worker alone
// decides what happens to the job (Laravel's SIGALRM handler does), and the handler, which Node cannot
// stop, may go on running.
//
// Each terminal state is entered once. Once the attempt is over, every side effect that belongs to it
// (delete, release, fail, the runner's hooks) is refused and reported instead of run: the job may
// already be in its next attempt, here or in another worker. The worker's own steps after the end (the
// timeout's fail decisions) do not go through allows(). After a timeout the attempt also tracks whether
// the worker has handled the timeout and whether the handler was given up as hung (isFinished).
import type { AttemptAction, JobAttempt, WorkerJob } from '../jobs/contracts';

/** Where an attempt stands; the last four are terminal. */
export type AttemptState = 'reserved' | 'running' | 'processed' | 'released' | 'failed' | 'timedOut';

/** A side effect that belongs to one attempt. */
export type { AttemptAction } from '../jobs/contracts';

/** Told about every side effect an attempt refused because it was over. */
export type RefusalListener<J extends WorkerJob> = (attempt: Attempt<J>, action: AttemptAction) => void;

// The guarded job answers this with its attempt, so Worker.failJob can tell which attempt a job belongs to.
const ATTEMPT = Symbol('larq.attempt');

/** The attempt a guarded job (one the runner was given) belongs to, if any. */
export function attemptOf<J extends WorkerJob>(job: J): Attempt<J> | undefined {
  return (job as unknown as { [ATTEMPT]?: Attempt<J> })[ATTEMPT];
}

/** One attempt at a job: its state, the abort signal its handler gets, and the fence around its side effects. */
export class Attempt<J extends WorkerJob> implements JobAttempt {
  /** The job handed to the runner: its delete and release ask allows() first. */
  readonly guarded: J;
  /** Present when the worker lets the runner hand over its final delete (see JobAttempt.deferFinalDelete). */
  readonly deferFinalDelete?: (this: Attempt<J>, deleting: Promise<void>) => void;

  private current: AttemptState = 'reserved';
  private settled = false;
  // After a timeout: whether the worker is done with it (fail decisions, JobTimeout), and whether the
  // handler was given up as hung.
  private timeoutDone = false;
  private givenUp = false;
  private finalDelete: Promise<void> | undefined;
  // The AbortController is made when the handler first reads `signal`: most handlers never look. An
  // abort before that is kept and replayed.
  private controller: AbortController | undefined;
  private abortedWith: { reason: unknown } | undefined;

  /**
   * @param onRefused told about each refused side effect (the worker reports it)
   * @param options.mayDeferFinalDelete whether the runner may hand over its final delete
   */
  constructor(
    readonly job: J,
    private readonly onRefused?: RefusalListener<J>,
    options: { mayDeferFinalDelete?: boolean } = {},
  ) {
    // Fenced whatever the timeout: an attempt also ends when its handler returns, and a stray callback
    // that releases the job after that must not put a finished job back.
    this.guarded = guard(job, this);
    // The class's own method, called as attempt.deferFinalDelete(...), not a closure over this attempt: an
    // attempt holding a function that holds the attempt was kept, job and all, through every minor
    // collection (spec/integration/worker-garbage.spec.ts).
    if (options.mayDeferFinalDelete) this.deferFinalDelete = this.keepFinalDelete;
  }

  /** Where the attempt stands. */
  get state(): AttemptState {
    return this.current;
  }

  /** Whether a terminal state was reached. */
  get isOver(): boolean {
    return this.current !== 'reserved' && this.current !== 'running';
  }

  /** Whether the handler (the runner's promise) has settled, in time or not. */
  get handlerHasSettled(): boolean {
    return this.settled;
  }

  /** Whether the job is still this attempt's to run: running, and neither deleted, released nor failed. What the heartbeat extends. */
  get holdsReservation(): boolean {
    return this.current === 'running' && !this.job.isDeletedOrReleased() && !this.job.hasFailed();
  }

  /** reserved -> running. */
  start(): void {
    if (this.current === 'reserved') this.current = 'running';
  }

  /**
   * The handler settled. True when it did so in time (the worker settles the outcome, and the timeout can
   * no longer fire); false when the attempt had already timed out.
   */
  handlerSettled(): boolean {
    this.settled = true;
    return this.current !== 'timedOut';
  }

  /** running -> timedOut, when the handler has not settled: true if this call made the transition. */
  timeOut(): boolean {
    if (this.current !== 'running' || this.settled) return false;
    this.current = 'timedOut';
    return true;
  }

  /** timedOut: the worker is done with the timeout (its fail decisions and JobTimedOut). */
  timeoutHandled(): void {
    if (this.current === 'timedOut') this.timeoutDone = true;
  }

  /** timedOut: the handler outlived the grace and is given up as hung; true if this call gave it up. */
  giveUpAsHung(): boolean {
    if (this.current !== 'timedOut' || this.settled || this.givenUp) return false;
    this.givenUp = true;
    return true;
  }

  /**
   * Whether the worker is done with the attempt: its handler settled (and the outcome with it); once it
   * timed out, its timeout handled and its handler settled or given up as hung. A stop waits for this.
   */
  get isFinished(): boolean {
    return this.current !== 'timedOut' ? this.settled : this.timeoutDone && (this.settled || this.givenUp);
  }

  /** The final delete the runner handed over, if it did (see deferFinalDelete). */
  get pendingFinalDelete(): Promise<void> | undefined {
    return this.finalDelete;
  }

  /** running -> processed, released or failed, read from the job; returns the state reached (or kept). */
  conclude(): AttemptState {
    if (this.current === 'running')
      this.current = this.job.hasFailed() ? 'failed' : this.job.isReleased() ? 'released' : 'processed';
    return this.current;
  }

  /** Whether `action` may still happen; once the attempt is over it is refused, and the refusal reported. */
  allows(action: AttemptAction): boolean {
    if (!this.isOver) return true;
    this.onRefused?.(this, action);
    return false;
  }

  // The promise is marked handled at once: a runner that goes on after handing it over must not turn its
  // failure into an unhandled rejection before the worker awaits it. A second one joins the first.
  private keepFinalDelete(deleting: Promise<void>): void {
    deleting.catch(ignore);
    this.finalDelete =
      this.finalDelete === undefined ? deleting : Promise.all([this.finalDelete, deleting]).then(() => undefined);
  }

  /** Aborted on timeout or forced stop (with the reason given to abort()). */
  get signal(): AbortSignal {
    if (this.controller === undefined) {
      this.controller = new AbortController();
      if (this.abortedWith) this.controller.abort(this.abortedWith.reason);
    }
    return this.controller.signal;
  }

  /** Abort the handler's signal; later aborts are ignored, as AbortController ignores them. */
  abort(reason: unknown): void {
    if (this.abortedWith) return;
    this.abortedWith = { reason };
    this.controller?.abort(reason);
  }

  /** What abort() was given, or undefined when it was not called. */
  get abortReason(): unknown {
    return this.abortedWith?.reason;
  }
}

function ignore(): void {}

// A proxy, not a wrapper object, so the runner still sees the real class (instanceof, extra methods).
// delete and release ask the attempt first (one closure each, made on first use); every other method is
// handed out as it is and runs with the proxy as `this`, whose reads and writes reach the job itself.
function guard<J extends WorkerJob>(job: J, attempt: Attempt<J>): J {
  let remove: ((...args: unknown[]) => unknown) | undefined;
  let release: ((...args: unknown[]) => unknown) | undefined;
  const fenced =
    (action: 'delete' | 'release', method: (...a: unknown[]) => unknown) =>
    (...args: unknown[]) =>
      attempt.allows(action) ? method.apply(job, args) : Promise.resolve();
  return new Proxy(job, {
    get(target, property) {
      if (property === ATTEMPT) return attempt;
      const value: unknown = Reflect.get(target, property, target);
      if (property === 'delete' && typeof value === 'function')
        return (remove ??= fenced('delete', value as (...a: unknown[]) => unknown));
      if (property === 'release' && typeof value === 'function')
        return (release ??= fenced('release', value as (...a: unknown[]) => unknown));
      return value;
    },
  });
}
