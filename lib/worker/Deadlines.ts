// One re-armable timer for many deadlines: armed for the earliest time it was given; when it fires, its
// owner handles whatever is due and says when it must fire next. JobTimeouts keeps every job's timeout and
// hung-handler grace on one such timer, so no timer is made per job.
import type { Clock } from '../clock';

/** Called when the timer fires, with the clock's time; returns the next time (ms) it must fire, or Infinity. */
export type DueHandler = (nowMs: number) => number;

/** A single re-armable timer over the worker's sleep. */
export class Deadlines {
  private wakeAtMs = Infinity;
  private rearm: AbortController | undefined;
  private idle: (() => void) | undefined;
  private stopped = false;
  private loop: Promise<void> | null = null;

  constructor(
    private readonly clock: Clock,
    private readonly sleep: (ms: number, signal: AbortSignal) => Promise<void>,
    private readonly onDue: DueHandler,
  ) {}

  /** Start the timer (it sleeps until fireBy() gives it a time). */
  start(): this {
    this.stopped = false;
    this.loop ??= this.run();
    return this;
  }

  /** Make sure the timer fires no later than `atMs` (clock milliseconds). */
  fireBy(atMs: number): void {
    if (atMs >= this.wakeAtMs) return;
    this.wakeAtMs = atMs;
    // The sleep in progress is for a later time (or none): end it so the loop sleeps for the new one.
    this.rearm?.abort();
    this.idle?.();
  }

  /** Stop the timer; resolves once its loop has ended. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.rearm?.abort();
    this.idle?.();
    await this.loop;
    this.loop = null;
    this.wakeAtMs = Infinity;
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      if (this.wakeAtMs === Infinity) {
        await new Promise<void>((resolve) => (this.idle = resolve));
        this.idle = undefined;
        continue;
      }
      const wait = this.wakeAtMs - this.clock.nowMs();
      if (wait > 0) {
        const rearm = (this.rearm = new AbortController());
        await this.sleep(wait, rearm.signal);
        this.rearm = undefined;
        continue; // re-armed, stopped, or slept the wait: look at the time again (a timer may fire early)
      }
      if (this.stopped) return;
      this.wakeAtMs = Infinity;
      const next = this.onDue(this.clock.nowMs());
      if (next < this.wakeAtMs) this.wakeAtMs = next;
    }
  }
}
