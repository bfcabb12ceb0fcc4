// The signals Laravel passes through its cache (spec §2.5): `queue:restart` (§10.6) and, since 12.40,
// `queue:pause` per queue. Values are read raw and compared the way PHP would.
import type { WorkerCache } from '../jobs/contracts';
import { cacheValueIsTruthy, phpLooseEquals } from './php';

/** The cache key `queue:restart` writes (UNIX seconds, no expiry). */
export const RESTART_CACHE_KEY = 'illuminate:queue:restart';

/** The cache key `queue:pause connection:queue` writes (12.40+). */
export function pausedCacheKey(connection: string, queue: string): string {
  return `illuminate:queue:paused:${connection}:${queue}`;
}

/** Reads the restart and pause signals; without a cache there are none. */
export class CacheSignals {
  // undefined: not read successfully yet; the first good read becomes the baseline.
  private lastRestart: string | null | undefined;

  constructor(
    private readonly cache: WorkerCache | undefined,
    private readonly report: (error: unknown) => void,
  ) {}

  /** Remember the restart timestamp as the worker starts (Laravel's getTimestampOfLastQueueRestart). */
  async start(): Promise<void> {
    this.lastRestart = undefined;
    if (this.cache === undefined) return;
    try {
      this.lastRestart = await this.cache.get(RESTART_CACHE_KEY);
    } catch (e) {
      this.report(e);
    }
  }

  /**
   * Whether `queue:restart` ran since start: any loose inequality with the start value (a new timestamp,
   * the key appearing or vanishing). A failed read is reported and never taken for a restart.
   */
  async shouldRestart(): Promise<boolean> {
    if (this.cache === undefined) return false;
    try {
      const current = await this.cache.get(RESTART_CACHE_KEY);
      if (this.lastRestart === undefined) this.lastRestart = current;
      return !phpLooseEquals(current, this.lastRestart);
    } catch (e) {
      this.report(e);
      return false;
    }
  }

  /** Whether `queue:pause` holds the queue (12.40+). Errors propagate: getNextJob reports them. */
  async isPaused(connection: string, queue: string): Promise<boolean> {
    if (this.cache === undefined) return false;
    return cacheValueIsTruthy(await this.cache.get(pausedCacheKey(connection, queue)));
  }
}
