// One job in a worker slot. A timed-out job keeps its slot until its handler settles (larq's promise
// never to run one job twice at once), but its attempt is over: the handler's own delete/release calls
// are fenced off so a late handler cannot release a job that was failed or must stay reserved.
import type { WorkerJob } from '../jobs/contracts';

/** running -> finished (the handler settled first) or timedOut (the timeout fired first). */
export type InFlightState = 'running' | 'finished' | 'timedOut';

/** One job in a slot, with the abort signal its handler gets. */
export class InFlight<J extends WorkerJob> {
  readonly controller = new AbortController();
  /** The job handed to the runner: delete/release become no-ops once the attempt timed out. */
  readonly guarded: J;
  private current: InFlightState = 'running';

  constructor(readonly job: J) {
    this.guarded = fence(job, () => this.current === 'timedOut');
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
  async overWithin(
    handled: Promise<void>,
    limitSeconds: number,
    sleep: (ms: number, signal?: AbortSignal) => Promise<void>,
    onExpire: () => Promise<void>,
  ): Promise<void> {
    if (limitSeconds <= 0) return handled;
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
    if (this.current !== 'timedOut') await handled;
  }

  /** The timeout fired: true if the handler was still running (the worker handles the timeout). */
  timeOut(): boolean {
    if (this.current !== 'running') return false;
    this.current = 'timedOut';
    return true;
  }
}

// A proxy, not a wrapper object, so the runner still sees the real class (instanceof, extra methods).
// Methods are bound once per job and kept: a handler calls several per run, and a fresh bound function
// on every property read was a measurable share of a no-op job's cost.
function fence<J extends WorkerJob>(job: J, fenced: () => boolean): J {
  const methods = new Map<PropertyKey, unknown>();
  return new Proxy(job, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      const known = methods.get(property);
      if (known !== undefined && (known as { original?: unknown }).original === value) return known;
      const method =
        property === 'delete' || property === 'release'
          ? (...args: unknown[]) => (fenced() ? Promise.resolve() : (value as (...a: unknown[]) => unknown).apply(target, args))
          : (value as (...a: unknown[]) => unknown).bind(target);
      (method as { original?: unknown }).original = value;
      methods.set(property, method);
      return method;
    },
  });
}
