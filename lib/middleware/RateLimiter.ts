// Laravel's `Illuminate\Cache\RateLimiter` (8.x-13.x) over larq's cache store: hits counted under the
// key and its `:timer` (the UNIX second the window ends), so PHP's RateLimiter and larq share one count.
import type { CacheStore, CacheValue } from '../cache/CacheStore';
import { unixSeconds, type Clock } from '../clock';

/** A cache store with Repository::add (RedisCacheStore has it). */
export type RateLimiterStore = Pick<CacheStore, 'get' | 'put' | 'increment' | 'forget'> & {
  add(key: string, value: CacheValue, ttlSeconds: number): Promise<boolean>;
};

/** Whether `cache` can count hits atomically (Repository::add). */
export function canLimit(cache: CacheStore | undefined): cache is CacheStore & RateLimiterStore {
  return cache !== undefined && typeof (cache as Partial<RateLimiterStore>).add === 'function';
}

/** The cache RateLimiter: each method as Laravel's of the same name. */
export class RateLimiter {
  constructor(
    private readonly cache: RateLimiterStore,
    private readonly clock: Clock,
  ) {}

  /** Whether `key` has used its `maxAttempts` in a window still open. */
  async tooManyAttempts(key: string, maxAttempts: number): Promise<boolean> {
    if ((await this.attempts(key)) >= maxAttempts) {
      if ((await this.cache.get(`${cleanRateLimiterKey(key)}:timer`)) !== null) return true;
      await this.resetAttempts(key);
    }
    return false;
  }

  /** Count one hit; the window (and its `:timer`) opens with the first. */
  async hit(key: string, decaySeconds = 60): Promise<number> {
    const clean = cleanRateLimiterKey(key);
    await this.cache.add(`${clean}:timer`, unixSeconds(this.clock) + decaySeconds, decaySeconds);
    const added = await this.cache.add(clean, 0, decaySeconds);
    const hits = await this.cache.increment(clean, 1);
    // the counter expired between add and increment: INCR made it anew without a TTL
    if (!added && hits === 1) await this.cache.put(clean, 1, decaySeconds);
    return hits;
  }

  async attempts(key: string): Promise<number> {
    return Number((await this.cache.get(cleanRateLimiterKey(key))) ?? 0);
  }

  async resetAttempts(key: string): Promise<boolean> {
    return this.cache.forget(cleanRateLimiterKey(key));
  }

  /** Forget the count and the timer. */
  async clear(key: string): Promise<void> {
    const clean = cleanRateLimiterKey(key);
    await this.cache.forget(clean);
    await this.cache.forget(`${clean}:timer`);
  }

  /** Seconds until the window of `key` ends. */
  async availableIn(key: string): Promise<number> {
    const timer = Number((await this.cache.get(`${cleanRateLimiterKey(key)}:timer`)) ?? 0);
    return Math.max(0, timer - unixSeconds(this.clock));
  }
}

/**
 * RateLimiter::cleanRateLimiterKey: `preg_replace('/&([a-z])[a-z]+;/i', '$1', htmlentities($key))`. The
 * keys larq makes (md5 hex, the throttle prefix with an xxh128 or a uuid) have no characters htmlentities
 * changes; a user's `by()` key with `&`, `<`, `>` or quotes is escaped as PHP does for those.
 */
export function cleanRateLimiterKey(key: string): string {
  const entities = key
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#039;');
  return entities.replace(/&([a-z])[a-z]+;/gi, '$1');
}
