// A value the worker checks before every pass and that only another process changes (the restart and
// pause keys in the cache, the maintenance flag), read ahead of the checks instead of once per check: a
// check takes the newest read that answered, so it rarely waits, and never one started more than
// PREFETCH_FRESH_MS before it (the README's bound). About one read per REFRESH_AFTER_MS, however many
// checks.

/** How long a read started ahead may stand in for a check's own read (milliseconds; the README's bound). */
export const PREFETCH_FRESH_MS = 100;

/** With readAhead, how old the read checks take may grow before a check starts the next one (milliseconds). */
export const REFRESH_AFTER_MS = PREFETCH_FRESH_MS / 2;

/**
 * One value's reads. Invariant: take() hands out only a read started at most PREFETCH_FRESH_MS before
 * `now`; the newest one that answered if there is one (no wait), else the newest under way, else a new
 * one. At most one read is under way while the last is fresh, and a failed read is never handed out again.
 */
export class RecentRead<T> {
  private answered: Ahead<T> | undefined;
  private latest: Ahead<T> | undefined;

  take(now: number, read: () => Promise<T>): Promise<T> {
    this.refresh(now, read);
    const answered = this.answered;
    if (answered !== undefined && now - answered.at <= PREFETCH_FRESH_MS) return answered.value;
    return this.latest!.value;
  }

  /** Start the next read unless the newest is under way and fresh, or answered less than REFRESH_AFTER_MS ago. */
  refresh(now: number, read: () => Promise<T>): void {
    const latest = this.latest;
    if (latest !== undefined) {
      const age = now - latest.at;
      if (latest === this.answered ? age <= REFRESH_AFTER_MS : age <= PREFETCH_FRESH_MS) return;
    }
    const next = started(read(), now);
    this.latest = next;
    next.value.then(
      () => {
        if (this.answered === undefined || this.answered.at <= next.at) this.answered = next;
      },
      () => {
        if (this.latest === next) this.latest = undefined;
      },
    );
  }

  /** Forget every read: the next take() reads afresh. */
  clear(): void {
    this.answered = undefined;
    this.latest = undefined;
  }
}

/** A read and when it was started (clock milliseconds). */
export interface Ahead<T> {
  value: Promise<T>;
  at: number;
}

/**
 * A read started ahead: one nobody takes must not become an unhandled rejection; the check that takes it
 * still sees the error.
 */
export function started<T>(value: Promise<T>, at: number): Ahead<T> {
  value.catch(ignore);
  return { value, at };
}

function ignore(): void {}
