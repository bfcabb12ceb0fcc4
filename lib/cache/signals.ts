// The cache entries through which Laravel workers are steered (Laravel `Worker::getNextJob`, `queueShouldRestart`,
// `maxExceptions`, 13.x; keys in docs/protocol.md, "Cache keys"): the
// `queue:restart` timestamp, per-queue pause flags (12.40+) and the maxExceptions counter. Keys are
// logical keys; the store adds its prefixes, so PHP and Node meet on the same physical key. Each helper
// takes only the store methods it calls, so the worker can hand over the slice of a CacheStore it holds.
import type { CacheStore } from './CacheStore';
import { type CacheValue, phpLooseEquals, phpTruthy } from './scalar';

/** The restart signal's key (all versions). */
export const restartKey = 'illuminate:queue:restart';

/** The global pause flag's key (13.25+). */
export const globalPausedKey = 'illuminate:queues:paused';

/** How long the maxExceptions counter lives: one day, as the worker's `put(..., now()->addDay())`. */
export const EXCEPTIONS_TTL_SECONDS = 86400;

/** A queue's pause flag key (12.40+): `illuminate:queue:paused:{connection}:{queue}`. */
export function pausedKey(connection: string, queue: string): string {
  return `illuminate:queue:paused:${connection}:${queue}`;
}

/** The maxExceptions counter key of a job (all versions): `job-exceptions:{uuid}`. */
export function exceptionsKey(uuid: string): string {
  return `job-exceptions:${uuid}`;
}

/** What `php artisan queue:restart` does: store the current Unix seconds under the restart key, forever. */
export async function signalRestart(store: Pick<CacheStore, 'forever'>, nowSeconds: number): Promise<void> {
  await store.forever(restartKey, Math.trunc(nowSeconds));
}

/** The restart timestamp as the worker reads it (a number, or null when never signalled). */
export async function readRestart(store: Pick<CacheStore, 'get'>): Promise<CacheValue> {
  return store.get(restartKey);
}

/**
 * The worker's restart test: PHP's loose `!=` between the value read at startup and the current one,
 * so a new timestamp, or the key appearing or disappearing, means restart (8.x-13.x).
 */
export function restartRequested(atStartup: CacheValue, now: CacheValue): boolean {
  return !phpLooseEquals(atStartup, now);
}

/** Whether a queue is paused (12.40+): the flag read as PHP truthiness. */
export async function isPaused(store: Pick<CacheStore, 'get'>, connection: string, queue: string): Promise<boolean> {
  return phpTruthy(await store.get(pausedKey(connection, queue)));
}

/** Whether every queue is paused (13.25+ global flag). */
export async function isPausedGlobally(store: Pick<CacheStore, 'get'>): Promise<boolean> {
  return phpTruthy(await store.get(globalPausedKey));
}

/** `Queue::pause` (forever) or `Queue::pauseFor` (`ttlSeconds`): stores `true` (`b:1;`) under the pause key. */
export async function pauseQueue(
  store: Pick<CacheStore, 'put' | 'forever'>,
  connection: string,
  queue: string,
  ttlSeconds?: number,
): Promise<void> {
  const key = pausedKey(connection, queue);
  if (ttlSeconds === undefined) await store.forever(key, true);
  else await store.put(key, true, ttlSeconds);
}

/** `Queue::resume`: forgets the pause key. */
export async function resumeQueue(store: Pick<CacheStore, 'forget'>, connection: string, queue: string): Promise<void> {
  await store.forget(pausedKey(connection, queue));
}

/**
 * The worker's maxExceptions bookkeeping for one exception (8.x-13.x): when the counter reads falsy,
 * put 0 for a day (SETEX 86400 under Redis), then increment and return the new count. The caller fails
 * the job and forgets the key once `maxExceptions <= count`.
 */
export async function countJobException(
  store: Pick<CacheStore, 'get' | 'put' | 'increment'>,
  uuid: string,
): Promise<number> {
  const key = exceptionsKey(uuid);
  if (!phpTruthy(await store.get(key))) await store.put(key, 0, EXCEPTIONS_TTL_SECONDS);
  return store.increment(key);
}

/** Forgets a job's maxExceptions counter (once the job is failed for it). */
export async function forgetJobExceptions(store: Pick<CacheStore, 'forget'>, uuid: string): Promise<void> {
  await store.forget(exceptionsKey(uuid));
}
