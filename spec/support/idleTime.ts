// Virtual time for a worker that talks to a real Redis (or PHP): the clock moves only while the worker
// sits in its idle sleep (the sleep that follows WorkerIdle), never while a pop, a handler or a Redis
// write is on its way, however long that takes in real time on a loaded machine. Every other sleep the
// worker asks for (its one deadline timer: stop checks while busy, timeouts, heartbeats) waits on this
// clock without moving it, as a timer does on a real clock. spec/support/fakeQueue's VirtualTime cannot
// serve here: it takes "no promise pending" for idle, and a reply from Redis is not a pending promise.
import { FakeClock } from '../../lib/clock';

interface Sleeper {
  at: number;
  seq: number;
  resolve: () => void;
}

/** The worker events IdleTime listens to. */
interface IdleWorker {
  on(name: 'WorkerIdle', listener: () => unknown): unknown;
}

/** A FakeClock moved by the worker's idle sleeps only; `sleep` is the Worker's `sleep` dependency. */
export class IdleTime {
  readonly clock: FakeClock;
  private sleepers: Sleeper[] = [];
  private seq = 0;
  // Set by WorkerIdle: the worker's next sleep is its idle one (it follows the event in the same turn).
  private idleNext = false;
  private settle: () => Promise<unknown> = () => Promise.resolve();

  constructor(startMs: number = Date.now()) {
    this.clock = new FakeClock(startMs);
  }

  /**
   * Let `worker`'s idle sleeps move the clock. `settle`: what must be over before the clock moves (a
   * spec's own reads of Redis, begun in an event listener, that the next due job would overtake).
   */
  drive(worker: IdleWorker, settle?: () => Promise<unknown>): void {
    if (settle !== undefined) this.settle = settle;
    worker.on('WorkerIdle', () => {
      this.idleNext = true;
    });
  }

  /** Resolve once the clock reaches now + `ms`, or as soon as `signal` aborts. */
  readonly sleep = (ms: number, signal?: AbortSignal): Promise<void> => {
    const idle = this.idleNext;
    this.idleNext = false;
    if (signal?.aborted) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const aborted = (): void => {
        this.sleepers = this.sleepers.filter((s) => s !== sleeper);
        resolve();
      };
      const sleeper: Sleeper = {
        at: this.clock.nowMs() + ms,
        seq: this.seq++,
        resolve: () => {
          signal?.removeEventListener('abort', aborted);
          resolve();
        },
      };
      this.sleepers.push(sleeper);
      signal?.addEventListener('abort', aborted, { once: true });
      if (idle) void this.passIdleTime(sleeper);
    });
  };

  // The worker is idle until `idle` ends: move the clock from one due sleep to the next, in order, and let
  // each woken sleeper react (re-arm its timer) before looking for the next.
  private async passIdleTime(idle: Sleeper): Promise<void> {
    await this.settle();
    while (this.sleepers.includes(idle)) {
      this.sleepers.sort((a, b) => a.at - b.at || a.seq - b.seq);
      const next = this.sleepers.shift()!;
      if (next.at > this.clock.nowMs()) this.clock.advance((next.at - this.clock.nowMs()) / 1000);
      next.resolve();
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }
}
