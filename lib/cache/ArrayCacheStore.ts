// An in-memory cache for tests and single-process use, after Laravel's ArrayStore + ArrayLock (8.x):
// values kept as given, expiry checked on read against an injectable clock, locks held in a map.
// Nothing is shared with PHP or with other processes.
import { type Clock, systemClock } from '../clock';
import {
  type CacheLock,
  type CacheStore,
  getEach,
  integerStep,
  rejectUnknownOptions,
  wholeSeconds,
} from './CacheStore';
import { Lock } from './Lock';
import { type CacheValue, phpIntCast } from './scalar';

/** Options of an {@link ArrayCacheStore}. */
export interface ArrayCacheStoreOptions {
  /** Source of "now" for expiry. Default the system clock. */
  clock?: Clock;
}

interface Entry {
  value: CacheValue;
  /** Milliseconds since the epoch; null = forever. */
  expiresAt: number | null;
}

/** Laravel's ArrayStore: a per-process Map with TTLs. */
export class ArrayCacheStore implements CacheStore {
  private readonly entries = new Map<string, Entry>();
  /** Held locks by name: owner and expiry (ms, null = never). Shared by every handle of this store. */
  readonly locks = new Map<string, { owner: string; expiresAt: number | null }>();
  private readonly clock: Clock;

  constructor(options: ArrayCacheStoreOptions = {}) {
    rejectUnknownOptions(options, ['clock'], 'ArrayCacheStore');
    this.clock = options.clock ?? systemClock;
  }

  /** The value, or null when missing or expired (an expired entry is dropped). */
  async get(key: string): Promise<CacheValue> {
    const entry = this.entries.get(key);
    if (entry === undefined) return null;
    if (entry.expiresAt !== null && this.clock.nowMs() >= entry.expiresAt) {
      this.entries.delete(key);
      return null;
    }
    return entry.value;
  }

  /** Each key's value. */
  async many(keys: readonly string[]): Promise<Map<string, CacheValue>> {
    return getEach(this, keys);
  }

  /** Keeps `value` for `ttlSeconds`; a TTL <= 0 forgets the key. */
  async put(key: string, value: CacheValue, ttlSeconds: number): Promise<boolean> {
    const seconds = wholeSeconds('ttlSeconds', ttlSeconds);
    if (seconds <= 0) return this.forget(key);
    this.entries.set(key, { value, expiresAt: this.clock.nowMs() + seconds * 1000 });
    return true;
  }

  /** Keeps `value` with no expiry. */
  async forever(key: string, value: CacheValue): Promise<boolean> {
    this.entries.set(key, { value, expiresAt: null });
    return true;
  }

  /** `(int) current + by`, keeping the TTL; a missing key is stored forever as `by` (ArrayStore 8.x). */
  async increment(key: string, by = 1): Promise<number> {
    const step = integerStep(by);
    const current = await this.get(key);
    const entry = this.entries.get(key);
    if (current === null || entry === undefined) {
      this.entries.set(key, { value: step, expiresAt: null });
      return step;
    }
    entry.value = phpIntCast(current) + step;
    return entry.value;
  }

  /** Removes the key; true when it existed. */
  async forget(key: string): Promise<boolean> {
    return this.entries.delete(key);
  }

  /** An in-memory lock; `seconds` 0 = never expires. */
  lock(name: string, seconds = 0, owner: string | null = null): CacheLock {
    return new ArrayCacheLock(this, name, seconds, owner, this.clock);
  }

  /** Nothing to close. */
  async close(): Promise<void> {}
}

/** Laravel's ArrayLock: held while present and not past its expiry. */
class ArrayCacheLock extends Lock {
  constructor(
    private readonly store: ArrayCacheStore,
    name: string,
    seconds: number,
    owner: string | null,
    private readonly clock: Clock,
  ) {
    super(name, seconds, owner);
  }

  private held(): { owner: string } | null {
    const lock = this.store.locks.get(this.name);
    if (lock === undefined) return null;
    return lock.expiresAt === null || this.clock.nowMs() < lock.expiresAt ? lock : null;
  }

  async acquire(): Promise<boolean> {
    if (this.held() !== null) return false;
    const expiresAt = this.seconds > 0 ? this.clock.nowMs() + this.seconds * 1000 : null;
    this.store.locks.set(this.name, { owner: this.owner, expiresAt });
    return true;
  }

  async release(): Promise<boolean> {
    // ArrayLock checks presence and owner, not expiry: an expired entry of ours is still ours to drop.
    if (this.store.locks.get(this.name)?.owner !== this.owner) return false;
    this.store.locks.delete(this.name);
    return true;
  }

  async forceRelease(): Promise<void> {
    this.store.locks.delete(this.name);
  }

  async currentOwner(): Promise<string | null> {
    return this.held()?.owner ?? null;
  }
}
