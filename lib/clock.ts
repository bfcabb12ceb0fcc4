// Time, injectable: Laravel counts in whole UNIX seconds, and specs freeze or advance the clock instead
// of sleeping.

/** The source of "now" for queues and workers. */
export interface Clock {
  /** Milliseconds since the UNIX epoch. */
  nowMs(): number;
}

/** The host clock. */
export const systemClock: Clock = Object.freeze({ nowMs: () => Date.now() });

/** Laravel's `now`: `Carbon::now()->getTimestamp()`, whole UNIX seconds. */
export function unixSeconds(clock: Clock): number {
  return Math.floor(clock.nowMs() / 1000);
}

/** A clock that moves only when told: for specs and compatibility checks. */
export class FakeClock implements Clock {
  constructor(private ms: number = Date.now()) {}

  nowMs(): number {
    return this.ms;
  }

  /** Set the time to `seconds` since the epoch. */
  setSeconds(seconds: number): void {
    this.ms = seconds * 1000;
  }

  /** Move forward by `seconds`. */
  advance(seconds: number): void {
    this.ms += seconds * 1000;
  }
}
