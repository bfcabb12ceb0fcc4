// The worker's slots: up to `concurrency` jobs in flight. A slot frees when its handler has settled (and
// `rest` passed), not when its attempt is over: a timed-out handler still holds its slot, so one process
// never runs more handlers than it was allowed, nor one job twice at once.
import { LarqError } from '../errors';
import type { WorkerJob } from '../jobs/contracts';
import type { InFlight } from './InFlight';
import { SlotList } from './SlotList';

/** One occupied slot. */
export interface Slot<J extends WorkerJob> {
  flight: InFlight<J>;
  /** Settles when the handler settled and `rest` passed: the slot is free again. Never rejects. */
  done: Promise<void>;
  /** Settles when the attempt is over (finished, or timed out and handled): what a stop waits for. Never rejects. */
  over: Promise<void>;
}

/** The set of occupied slots of one worker. */
export class Slots<J extends WorkerJob> {
  // Lists, not Sets: see SlotList for what a Set costs the garbage collector here.
  private readonly occupied = new SlotList<Slot<J>>();
  // Who waits for a slot to free: resolved all at once by the next slot that frees.
  private waiters: (() => void)[] = [];
  // Attempts not over yet, whether or not their slot is still held: a handler that settled right at its
  // timeout frees the slot while the worker is still failing the job, and a stop must wait for that.
  private readonly unfinished = new SlotList<Promise<void>>();

  // Slots promised to pops still on their way (see hold()).
  private holding = 0;
  // The signal whose abort wakes the waiters (see waitForFree).
  private listeningTo: AbortSignal | undefined;

  constructor(readonly size: number) {}

  /** How many slots are free: neither occupied nor held for a pop in flight. */
  get free(): number {
    return this.size - this.occupied.size - this.holding;
  }

  /** How many slots are held for pops in flight. */
  get held(): number {
    return this.holding;
  }

  /** Hold `n` free slots for a pop in flight, so a second pop cannot promise them too. */
  hold(n: number): void {
    this.holding += n;
  }

  /** Give back slots held for a pop that has come back (its jobs are then added); wakes waiters. */
  unhold(n: number): void {
    this.holding -= n;
    this.wakeWaiters();
  }

  /** Occupy a slot until `slot.done` settles. */
  add(slot: Slot<J>): void {
    const occupying = this.occupied.add(slot);
    const attempt = this.unfinished.add(slot.over);
    // then(f, f) rather than finally(f): neither promise rejects, and finally costs several more objects
    // and a turn more per job.
    const over = (): void => this.unfinished.remove(attempt);
    void slot.over.then(over, over);
    const free = (): void => {
      this.occupied.remove(occupying);
      this.wakeWaiters();
    };
    void slot.done.then(free, free);
  }

  private wakeWaiters(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }

  /** The jobs whose handlers are still running within their time (what the heartbeat extends). */
  runningJobs(): J[] {
    return this.occupied
      .values()
      .map((slot) => slot.flight)
      .filter((f) => f.state === 'running' && !f.job.isDeletedOrReleased() && !f.job.hasFailed())
      .map((f) => f.job);
  }

  /** Resolve once a slot is free, or as soon as `wake` aborts. */
  async waitForFree(wake: AbortSignal): Promise<void> {
    // One waiter per call instead of a race over every slot: at concurrency 50 the worker waits once per
    // pass, and racing 50 promises each time cost more than the no-op jobs it was waiting for. The abort
    // wakes every waiter through one listener per signal: adding and removing an EventTarget listener on
    // every pass showed in the profile (node:internal/event_target, about 4 us a pass at concurrency 50).
    if (this.listeningTo !== wake) {
      this.listeningTo = wake;
      wake.addEventListener('abort', () => this.wakeWaiters(), { once: true });
    }
    while (this.free <= 0 && !wake.aborted) await new Promise<void>((resolve) => this.waiters.push(resolve));
  }

  /**
   * Wait until every attempt in flight is over, for at most `graceSeconds` (0: no limit). Past the grace the
   * running handlers' signals abort and their jobs stay reserved, as a killed worker's would.
   */
  async drain(graceSeconds: number, sleep: (ms: number, signal?: AbortSignal) => Promise<void>): Promise<void> {
    const over = Promise.all(this.unfinished.values());
    if (graceSeconds === 0) return void (await over);
    const timer = new AbortController();
    const graceExpired = await Promise.race([over.then(() => false), sleep(graceSeconds * 1000, timer.signal).then(() => true)]);
    timer.abort();
    if (!graceExpired) return;
    for (const { flight } of this.occupied.values()) {
      if (flight.state === 'running') flight.abort(new LarqError(`the worker stopped before ${flight.job.resolveName()} finished`));
    }
  }
}
