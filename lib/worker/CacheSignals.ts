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
    try {
      const current = await readRestart(this.cache);
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
    if (!this.globalPause) return isPaused(this.cache, connection, queue);
    const [all, one] = await Promise.all([isPausedGlobally(this.cache), isPaused(this.cache, connection, queue)]);
    return all || one;
  }
}
