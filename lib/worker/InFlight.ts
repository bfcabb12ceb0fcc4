// One job in a worker slot. A timed-out job keeps its slot until its handler settles (larq's promise
// never to run one job twice at once), but its attempt is over: the handler's own delete/release calls
// are fenced off so a late handler cannot release a job that was failed or must stay reserved.
import type { JobAttempt, WorkerJob } from '../jobs/contracts';

/** running -> finished (the handler settled first) or timedOut (the timeout fired first). */
export type InFlightState = 'running' | 'finished' | 'timedOut';

/** One job in a slot, with the abort signal its handler gets. */
export class InFlight<J extends WorkerJob> implements JobAttempt {
  /** The job handed to the runner: delete/release become no-ops once the attempt timed out. */
  readonly guarded: J;
  private current: InFlightState = 'running';
  // The AbortController is made when the handler first reads `signal`: creating one per job was about 5%
  // of a no-op job's cost, and most handlers never look. An abort before that is kept and replayed.
  private controller: AbortController | undefined;
  private abortedWith: { reason: unknown } | undefined;
  /** Present when the worker lets the runner hand over its last step (see JobAttempt.settleLater). */
  readonly settleLater?: (tail: Promise<void>) => void;
  /** What the runner handed over, once it has. */
  tail: Promise<void> | undefined;

  /**
   * @param canTimeOut whether a timeout may end this attempt; without one nothing is ever fenced, so the
   *   runner gets the job itself (a proxy costs on every property read of a job that cannot time out)
   * @param deferTail whether the runner may hand over its last step (settleLater)
   */
  constructor(
    readonly job: J,
    canTimeOut = true,
    deferTail = false,
  ) {
    this.guarded = canTimeOut ? fence(job, () => this.current === 'timedOut') : job;
    if (deferTail) this.settleLater = keepTail;
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

  /** Where the attempt stands. */
  get state(): InFlightState {
    return this.current;
  }

  /** The handler settled: true if it did so before the timeout (the worker carries on), false if after. */
  finish(): boolean {
    if (this.current === 'timedOut') return false;
    this.current = 'finished';
    return true;
  }

  /**
   * Resolve when the attempt is over: `handled` settled, or `limitSeconds` (0: never) passed and `onExpire`
   * (the worker's timeout handling) finished. Never rejects when `handled` and `onExpire` never reject.
   */
  overWithin(
    handled: Promise<void>,
    limitSeconds: number,
    sleep: (ms: number, signal?: AbortSignal) => Promise<void>,
    onExpire: () => Promise<void>,
  ): Promise<void> {
    // No limit: the attempt is over when the handler is, and no promise of our own is needed for that.
    return limitSeconds <= 0 ? handled : this.watch(handled, limitSeconds, sleep, onExpire);
  }

  private async watch(
    handled: Promise<void>,
    limitSeconds: number,
    sleep: (ms: number, signal?: AbortSignal) => Promise<void>,
    onExpire: () => Promise<void>,
  ): Promise<void> {
    const watchdog = new AbortController();
    const expired = sleep(limitSeconds * 1000, watchdog.signal).then(
      () => (watchdog.signal.aborted ? undefined : onExpire()),
      () => undefined,
    );
    try {
      await Promise.race([handled, expired]);
    } finally {
      watchdog.abort();
    }
    // The timer may have fired while a finished attempt was still releasing or failing: wait for that.
    // A timed-out attempt is over when the timeout handling is (the job failed and recorded), even when
    // the handler gave up at once on the abort and settled first.
    if (this.current === 'timedOut') await expired;
    else await handled;
  }

  /** The timeout fired: true if the handler was still running (the worker handles the timeout). */
  timeOut(): boolean {
    if (this.current !== 'running') return false;
    this.current = 'timedOut';
    return true;
  }
}

// One function for every InFlight that accepts a tail, rather than a closure per job. The tail is marked
// handled at once: a runner that goes on after handing it over must not turn its failure into an
// unhandled rejection before the worker awaits it. A second tail joins the first.
function keepTail(this: InFlight<WorkerJob>, tail: Promise<void>): void {
  tail.catch(ignore);
  this.tail = this.tail === undefined ? tail : Promise.all([this.tail, tail]).then(() => undefined);
}

function ignore(): void {}

// A proxy, not a wrapper object, so the runner still sees the real class (instanceof, extra methods).
// Only delete and release are replaced (one closure each, made on first use); every other method is
// handed out as it is and runs with the proxy as `this`, whose reads and writes reach the job itself.
// Binding each method read instead allocated a function per call: a measurable share of a no-op job.
function fence<J extends WorkerJob>(job: J, fenced: () => boolean): J {
  let remove: ((...args: unknown[]) => unknown) | undefined;
  let release: ((...args: unknown[]) => unknown) | undefined;
  const guard = (method: (...a: unknown[]) => unknown) => (...args: unknown[]) => (fenced() ? Promise.resolve() : method.apply(job, args));
  return new Proxy(job, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (property === 'delete' && typeof value === 'function') return (remove ??= guard(value as (...a: unknown[]) => unknown));
      if (property === 'release' && typeof value === 'function') return (release ??= guard(value as (...a: unknown[]) => unknown));
      return value;
    },
  });
}
