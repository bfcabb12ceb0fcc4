// The worker's side of Laravel's cache signals (spec §2.5): `queue:restart` (§10.6), `queue:pause` per
// queue (12.40+) and for every queue (`queue:pause --all`, 13.25+) (§10.4). Keys, reads and PHP comparisons are lib/cache/signals'; what is kept
// here is the worker's own bookkeeping: the restart baseline and what a failed read means.
import type { CacheValue } from '../cache/CacheStore';
import { isPaused, isPausedGlobally, readRestart, restartRequested } from '../cache/signals';
import type { WorkerCache } from '../jobs/contracts';
import type { LaravelRelease } from '../LaravelLine';

/** Reads the restart and pause signals; without a cache there are none. */
export class CacheSignals {
  // undefined: not read successfully yet; the first good read becomes the baseline.
  private lastRestart: CacheValue | undefined;
  private readonly globalPause: boolean;
  // Reads started ahead of the check that uses them (see prefetch): each is taken by the next check for
  // it, or dropped.
  private restartAhead: Promise<CacheValue> | undefined;
  private readonly pausedAhead = new Map<string, Promise<boolean>>();

  /** `laravel`: the PHP side's release, whose signals the worker honours (default: 13.25+ ones included). */
  constructor(
    private readonly cache: WorkerCache | undefined,
    private readonly report: (error: unknown) => void,
    laravel?: LaravelRelease,
  ) {
    this.globalPause = laravel?.has('globalPause') ?? true;
  }

  /** Remember the restart timestamp as the worker starts (Laravel's getTimestampOfLastQueueRestart). */
  async start(): Promise<void> {
    this.lastRestart = undefined;
    if (this.cache === undefined) return;
    try {
      this.lastRestart = await readRestart(this.cache);
    } catch (e) {
      this.report(e);
    }
  }

  /** Whether `queue:restart` ran since start (restartRequested). A failed read is reported and never taken for a restart. */
  async shouldRestart(): Promise<boolean> {
    if (this.cache === undefined) return false;
    const ahead = this.restartAhead;
    this.restartAhead = undefined;
    try {
      const current = await (ahead ?? readRestart(this.cache));
      if (this.lastRestart === undefined) this.lastRestart = current;
      return restartRequested(this.lastRestart, current);
    } catch (e) {
      this.report(e);
      return false;
    }
  }

  /**
   * Whether `queue:pause` holds the queue (12.40+), or `queue:pause --all` holds every queue (13.25+), as
   * 13.x's QueueManager::isPaused reads them; the global flag only for a 13.25+ peer, as older workers
   * never read it. The flags are read side by side (one round trip on a pipelined connection). Errors
   * propagate: getNextJob reports them.
   */
  async isPaused(connection: string, queue: string): Promise<boolean> {
    if (this.cache === undefined) return false;
    const key = `${connection}\0${queue}`;
    const ahead = this.pausedAhead.get(key);
    if (ahead !== undefined) {
      this.pausedAhead.delete(key);
      return ahead;
    }
    return this.readPaused(this.cache, connection, queue);
  }

  /**
   * Start, in this turn, the reads the worker's next stop check and pass make: the restart signal, then
   * each queue's pause flags, in the order the checks make them. Sent together they share one write and
   * one round trip, and overlap whatever else is in flight (at concurrency 1, the job's acknowledgement).
   * Each read is taken by the next check for it; {@link dropPrefetched} discards the ones left over, so
   * that a check after a sleep reads afresh. What the reads find is what the checks, made a moment later,
   * would find: nothing but a PHP command writes these keys, and one written in between counts at the
   * next check, as it would in Laravel's loop had it come a moment later.
   */
  prefetch(connection: string, queues: readonly string[]): void {
    const cache = this.cache;
    if (cache === undefined) return;
    this.dropPrefetched();
    this.restartAhead = readRestart(cache);
    this.restartAhead.catch(ignore);
    for (const queue of queues) {
      const paused = this.readPaused(cache, connection, queue);
      paused.catch(ignore);
      this.pausedAhead.set(`${connection}\0${queue}`, paused);
    }
  }

  /** Forget the reads prefetch() started that no check took. */
  dropPrefetched(): void {
    this.restartAhead = undefined;
    this.pausedAhead.clear();
  }

  private async readPaused(cache: WorkerCache, connection: string, queue: string): Promise<boolean> {
    if (!this.globalPause) return isPaused(cache, connection, queue);
    const [all, one] = await Promise.all([isPausedGlobally(cache), isPaused(cache, connection, queue)]);
    return all || one;
  }
}

// A prefetched read nobody takes must not become an unhandled rejection; the check that takes it still
// sees the error.
function ignore(): void {}
