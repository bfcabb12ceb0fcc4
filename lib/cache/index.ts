// larq's view of Laravel's cache: the stores, the worker's signals and the factory that picks a store
// from a config shaped like one entry of Laravel's `cache.stores`.
import { InvalidOptionError } from '../errors';
import { ArrayCacheStore, type ArrayCacheStoreOptions } from './ArrayCacheStore';
import type { CacheStore } from './CacheStore';
import { DatabaseCacheStore, type DatabaseCacheStoreOptions } from './DatabaseCacheStore';
import { RedisCacheStore, type RedisCacheStoreOptions } from './RedisCacheStore';

export { ArrayCacheStore, type ArrayCacheStoreOptions } from './ArrayCacheStore';
export { type CacheLock, type CacheStore, type CacheValue, randomLockOwner } from './CacheStore';
export { DatabaseCacheStore, FOREVER_SECONDS, type DatabaseCacheStoreOptions } from './DatabaseCacheStore';
export { cacheTableSql, createCacheTable } from './cacheTable';
export { RedisCacheStore, type RedisCacheLayout, type RedisCacheStoreOptions } from './RedisCacheStore';
export { type CacheLaravelVersion, laravelCachePrefix, laravelRedisPrefix, redisCacheKeyPrefix } from './prefix';
// The database store's connection config is the SQL layer's, shared with the failed-job stores.
export { connectSql, createCacheTables, type CreateCacheTablesOptions } from '../sql';
export type { SqlClient, SqlConnectionConfig, SqlDialect } from '../sql';
export * from './signals';

/** A cache store's configuration: the driver plus that store's options. */
export type CacheConfig =
  | ({ driver: 'redis' } & RedisCacheStoreOptions)
  | ({ driver: 'database' } & DatabaseCacheStoreOptions)
  | ({ driver: 'array' } & ArrayCacheStoreOptions);

/** Builds the store a config names: `redis`, `database` or `array` (in-memory). */
export function createCacheStore(config: { driver: 'redis' } & RedisCacheStoreOptions): RedisCacheStore;
export function createCacheStore(config: { driver: 'database' } & DatabaseCacheStoreOptions): DatabaseCacheStore;
export function createCacheStore(config: { driver: 'array' } & ArrayCacheStoreOptions): ArrayCacheStore;
export function createCacheStore(config: CacheConfig): CacheStore;
export function createCacheStore(config: CacheConfig): CacheStore {
  if (typeof config !== 'object' || config === null)
    throw new InvalidOptionError('driver', "config must be an object with driver 'redis', 'database' or 'array'");
  const { driver, ...options } = config;
  switch (driver) {
    case 'redis':
      return new RedisCacheStore(options as RedisCacheStoreOptions);
    case 'database':
      return new DatabaseCacheStore(options as DatabaseCacheStoreOptions);
    case 'array':
      return new ArrayCacheStore(options as ArrayCacheStoreOptions);
    default:
      throw new InvalidOptionError('driver', "must be 'redis', 'database' or 'array'");
  }
}
