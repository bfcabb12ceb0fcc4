// The worker's slots: up to `concurrency` attempts in flight. A slot frees when its handler has settled
// (and `rest` passed), not when its attempt is over: a timed-out handler still holds its slot, so one
// process never runs more handlers than it was allowed, nor one job twice at once. An attempt stays
// unfinished until the worker is done with it: its outcome settled, or, once it timed out, its timeout
// handled and its handler settled or given up as hung. That may come after its slot frees (a final
// delete still waiting for Redis) or before (a hung handler). A stop waits for the unfinished ones.
import { LarqError } from '../errors';
import type { WorkerJob } from '../jobs/contracts';
import type { Attempt } from './Attempt';
import { SlotList } from './SlotList';

/** The set of occupied slots of one worker. */
export class Slots<J extends WorkerJob> {
  // Lists, not Sets: see SlotList for why.
  private readonly occupied = new SlotList<Attempt<J>>();
  private readonly unfinished = new SlotList<Attempt<J>>();
  // Who waits for a slot to free, or for the attempts to finish: all woken at once by the next change.
  private slotWaiters: (() => void)[] = [];
  private finishWaiters: (() => void)[] = [];
  // Bumped by interruptWaits(): a wait that began before returns even with no slot free.
  private interruptions = 0;

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

  /** How many attempts the worker is not done with yet. */
  get unfinishedCount(): number {
    return this.unfinished.size;
  }

  /** Hold `n` free slots for a pop in flight, so a second pop cannot promise them too. */
  hold(n: number): void {
    this.holding += n;
  }

  /** Give back slots held for a pop that has come back (its jobs are then added); wakes waiters. */
  unhold(n: number): void {
    this.holding -= n;
    this.wake(this.slotWaiters, (w) => (this.slotWaiters = w));
  }

  /** Occupy a slot with `attempt` until vacate(attempt); it is unfinished until finish(attempt). */
  add(attempt: Attempt<J>): void {
    attempt.slotEntry = this.occupied.add(attempt);
    attempt.unfinishedEntry = this.unfinished.add(attempt);
  }

  /** The attempt's handler settled (and `rest` passed): its slot is free. Again does nothing. */
  vacate(attempt: Attempt<J>): void {
    if (attempt.slotEntry) this.occupied.remove(attempt.slotEntry);
    this.wake(this.slotWaiters, (w) => (this.slotWaiters = w));
  }

  /** The worker is done with the attempt. Again does nothing. */
  finish(attempt: Attempt<J>): void {
    if (attempt.unfinishedEntry) this.unfinished.remove(attempt.unfinishedEntry);
    this.wake(this.finishWaiters, (w) => (this.finishWaiters = w));
  }

  /** The attempts whose handlers have not settled (or whose `rest` has not passed), in no particular order. */
  attempts(): Attempt<J>[] {
    return this.occupied.values();
  }

  /** End every wait in waitForFree() now, slot free or not (the stop checks are due). */
  interruptWaits(): void {
    this.interruptions++;
    this.wake(this.slotWaiters, (w) => (this.slotWaiters = w));
  }

  /**
   * Resolve once a slot is free, `wake` aborts, or interruptWaits() is called. `forAnyChange`: resolve at
   * the next change (a slot freed, held slots given back) even when a slot was free already.
   */
  async waitForFree(wake: AbortSignal, forAnyChange = false): Promise<void> {
    // One waiter per call instead of a race over every slot, and one abort listener per signal rather
    // than one added and removed on every pass: this runs once per pass.
    if (this.listeningTo !== wake) {
      this.listeningTo = wake;
      wake.addEventListener('abort', () => this.wake(this.slotWaiters, (w) => (this.slotWaiters = w)), { once: true });
    }
    const interruptions = this.interruptions;
    if (forAnyChange && !wake.aborted) return void (await new Promise<void>((resolve) => this.slotWaiters.push(resolve)));
    while (this.free <= 0 && !wake.aborted && this.interruptions === interruptions) await new Promise<void>((resolve) => this.slotWaiters.push(resolve));
  }

  /**
   * Wait until every attempt is finished, for at most `graceSeconds` (0: no limit). Past the grace the
   * running handlers' signals abort and their jobs stay reserved, as a killed worker's would.
   */
  async drain(graceSeconds: number, sleep: (ms: number, signal?: AbortSignal) => Promise<void>): Promise<void> {
    const allFinished = (async () => {
      while (this.unfinished.size > 0) await new Promise<void>((resolve) => this.finishWaiters.push(resolve));
    })();
    if (graceSeconds === 0) return void (await allFinished);
    const timer = new AbortController();
    const graceExpired = await Promise.race([allFinished.then(() => false), sleep(graceSeconds * 1000, timer.signal).then(() => true)]);
    timer.abort();
    if (!graceExpired) return;
    for (const attempt of this.occupied.values()) {
      if (attempt.state === 'running') attempt.abort(new LarqError(`the worker stopped before ${attempt.job.resolveName()} finished`));
    }
  }

  private wake(waiters: (() => void)[], replace: (fresh: (() => void)[]) => void): void {
    if (waiters.length === 0) return;
    replace([]);
    for (const resolve of waiters) resolve();
  }
}
