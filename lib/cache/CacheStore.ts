// The slice of Laravel's cache the queue worker touches (restart signal, pause flags, the maxExceptions
// counter, unique-job locks), as one interface over the Redis, database and in-memory stores. Semantics
// follow Laravel's `Illuminate\Cache\Repository` over a store (8.x-13.x): keys are logical keys, each
// store adds its own cache prefix, and a TTL of zero or less on `put` removes the key.
import { randomInt } from 'crypto';
import { InvalidOptionError } from '../errors';
import type { CacheValue } from './scalar';

export type { CacheValue } from './scalar';

/** A named lock, as Laravel's `Cache::lock(name, seconds, owner)` returns it. */
export interface CacheLock {
  /** The logical lock name (without prefixes), e.g. `laravel_unique_job:App\Jobs\Sync:7`. */
  readonly name: string;
  /** The owner token this handle writes and checks: 16 random alphanumerics unless one was given. */
  readonly owner: string;
  /** Seconds the lock lives once acquired; 0 = never expires under Redis (a day under the database store). */
  readonly seconds: number;
  /** Try once to take the lock; true when this owner now holds it. */
  acquire(): Promise<boolean>;
  /** Release only if this handle's owner still holds it; true when it was released. */
  release(): Promise<boolean>;
  /** Release whoever holds it (what the worker does for unique jobs before Laravel 13.24). */
  forceRelease(): Promise<void>;
  /** The owner currently holding the lock, or null when nobody does. */
  currentOwner(): Promise<string | null>;
}

/**
 * A Laravel cache store. Values are PHP scalars: `get` returns numbers for numeric values, unserialized
 * booleans, strings and null, and the raw stored text for anything else (a serialized array or object).
 */
export interface CacheStore {
  /** The value under `key`, or null when missing or expired. */
  get(key: string): Promise<CacheValue>;
  /** Several values at once, in a Map keyed by the given logical keys (missing ones are null). */
  many(keys: readonly string[]): Promise<Map<string, CacheValue>>;
  /** Store `value` for `ttlSeconds` (whole seconds); a TTL <= 0 forgets the key, as Laravel's Repository does. */
  put(key: string, value: CacheValue, ttlSeconds: number): Promise<boolean>;
  /** Store `value` with no expiry (the database store's "forever" is 315 360 000 s). */
  forever(key: string, value: CacheValue): Promise<boolean>;
  /** Add `by` (an integer, default 1) and return the new value; a missing key starts from 0. */
  increment(key: string, by?: number): Promise<number>;
  /** Remove `key`; true when the store reports success (Redis: a key was deleted). */
  forget(key: string): Promise<boolean>;
  /** A lock handle for `name`; nothing is written until `acquire()`. */
  lock(name: string, seconds?: number, owner?: string | null): CacheLock;
  /** Close the connections this store opened itself; injected clients are left open. */
  close(): Promise<void>;
}

const OWNER_CHARS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** A fresh lock owner like Laravel's `Str::random()` (all versions): 16 characters of [A-Za-z0-9]. */
export function randomLockOwner(): string {
  let owner = '';
  for (let i = 0; i < 16; i++) owner += OWNER_CHARS[randomInt(OWNER_CHARS.length)];
  return owner;
}

/**
 * A TTL as Laravel's Repository turns it into whole seconds: `(int)` truncation. Rejects what PHP could
 * not have been given (NaN, infinities) so a bug never becomes a silent "forever".
 */
export function wholeSeconds(option: string, seconds: number): number {
  if (typeof seconds !== 'number' || !Number.isFinite(seconds)) {
    throw new InvalidOptionError(option, 'must be a finite number of seconds');
  }
  return Math.trunc(seconds);
}

/** An increment step: Redis INCRBY (and Laravel's int arithmetic) only takes integers. */
export function integerStep(by: number): number {
  if (!Number.isSafeInteger(by)) throw new InvalidOptionError('by', 'must be a safe integer');
  return by;
}

/**
 * Laravel's RetrievesMultipleKeys: `many` as one `get` per key, in order, for stores without a bulk read
 * (the array and database stores).
 */
export async function getEach(
  store: Pick<CacheStore, 'get'>,
  keys: readonly string[],
): Promise<Map<string, CacheValue>> {
  const out = new Map<string, CacheValue>();
  for (const key of keys) out.set(key, await store.get(key));
  return out;
}

/** Refuse an option a store does not take: a misspelt one would otherwise fall back to a default unnoticed. */
export function rejectUnknownOptions(options: object, known: readonly string[], store: string): void {
  for (const name of Object.keys(options)) {
    if (!known.includes(name)) throw new InvalidOptionError(name, `is not an option of ${store}`);
  }
}
