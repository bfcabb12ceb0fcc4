// The worker's slots, a counting semaphore of `concurrency` (asynq's processor `sema` is the model): an
// attempt occupies a slot from its start until its handler has settled (and `rest` passed), not until
// its outcome is acknowledged: a timed-out handler still holds its slot, so one process never runs more
// handlers than it was allowed, nor one job twice at once. Apart from the slots, the attempts the worker
// is not finished with (Attempt.isFinished) are kept for a stop to wait for: that may be after the slot
// freed (a final delete still waiting for Redis) or before (a handler given up as hung).
import { LarqError } from '../errors';
import type { WorkerJob } from '../jobs/contracts';
import { ArraySet } from '../support/ArrayMap';
import type { Attempt } from './Attempt';

/** The occupied slots and unfinished attempts of one worker. */
export class Slots<J extends WorkerJob> {
  // Arrays, not Sets: see support/ArrayMap.
  private readonly occupied = new ArraySet<Attempt<J>>();
  private readonly unfinished = new ArraySet<Attempt<J>>();
  // The next vacate, shared by whoever waits for it (made on demand); who waits for the attempts to finish.
  private vacancy: { promise: Promise<void>; resolve: () => void } | null = null;
  private finishWaiters: (() => void)[] = [];

  constructor(readonly size: number) {}

  /** How many slots are free. */
  get free(): number {
    return this.size - this.occupied.size;
  }

  /** How many attempts the worker is not finished with yet. */
  get unfinishedCount(): number {
    return this.unfinished.size;
  }

  /** Occupy a slot with `attempt` until vacate(attempt); it is unfinished until finish(attempt). */
  occupy(attempt: Attempt<J>): void {
    this.occupied.add(attempt);
    this.unfinished.add(attempt);
  }

  /** The attempt's handler settled (and `rest` passed): its slot is free. Again does nothing. */
  vacate(attempt: Attempt<J>): void {
    if (this.occupied.delete(attempt)) this.wake();
  }

  /** Settle the wait for the next vacancy now, vacancy or not (a stop check is due, or a stop). */
  wake(): void {
    if (this.vacancy === null) return;
    this.vacancy.resolve();
    this.vacancy = null;
  }

  /** The worker is finished with the attempt. Again does nothing. */
  finish(attempt: Attempt<J>): void {
    if (this.unfinished.delete(attempt)) this.finishWaiters = notify(this.finishWaiters);
  }

  /** The attempts occupying a slot, in no particular order. */
  attempts(): Iterable<Attempt<J>> {
    return this.occupied;
  }

  /** Resolves at the next vacate() or wake(); every caller until then shares one promise. */
  nextVacancy(): Promise<void> {
    if (this.vacancy === null) {
      let resolve!: () => void;
      const promise = new Promise<void>((r) => (resolve = r));
      this.vacancy = { promise, resolve };
    }
    return this.vacancy.promise;
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
    const graceExpired = await Promise.race([
      allFinished.then(() => false),
      sleep(graceSeconds * 1000, timer.signal).then(() => true),
    ]);
    timer.abort();
    if (!graceExpired) return;
    for (const attempt of this.occupied) {
      if (attempt.state === 'running')
        attempt.abort(new LarqError(`the worker stopped before ${attempt.job.resolveName()} finished`));
    }
  }
}

function notify(waiters: (() => void)[]): (() => void)[] {
  for (const resolve of waiters) resolve();
  return [];
}
