// The Worker reads Laravel's cache raw, as PHP's store keeps values: numbers as plain digits, everything
// else PHP-serialized (its restart, pause and exception-counter checks compare that way, spec §2.5). A
// CacheStore hands back decoded values; this turns them back into the raw form.
import type { WorkerCache } from '../jobs/contracts';
import type { CacheStore, CacheValue } from './CacheStore';

/** `store` as the Worker's cache: restart and pause signals, maxExceptions counters. */
export function asWorkerCache(store: CacheStore): WorkerCache {
  return {
    get: async (key) => raw(await store.get(key)),
    put: (key, value, ttlSeconds) => store.put(key, value, ttlSeconds),
    increment: (key) => store.increment(key),
    forget: (key) => store.forget(key),
  };
}

function raw(value: CacheValue): string | null {
  if (value === null) return null;
  if (typeof value === 'number') return String(value);
  if (typeof value === 'boolean') return value ? 'b:1;' : 'b:0;';
  return `s:${Buffer.byteLength(value)}:"${value}";`;
}
