// Where Laravel's cache keys live: the default cache prefix per skeleton version, and how the Redis
// store joins it to a key (docs/protocol.md, "Cache keys"). Both sides must agree byte for byte, so prefer explicit values
// copied from the PHP app's config; the derivations here are the skeletons' defaults.
import { InvalidOptionError } from '../errors';
import { laravelPrefix } from '../redis/keys';
import { slug } from '../support/Str';

/** A Laravel major version, as far as the cache layout depends on it. */
export type CacheLaravelVersion = 8 | 9 | 10 | 11 | 12 | 13;

/** Every accepted version, for validation. */
export const CACHE_LARAVEL_VERSIONS: readonly CacheLaravelVersion[] = Object.freeze([8, 9, 10, 11, 12, 13]);

/** Throws InvalidOptionError unless `v` is a supported Laravel major version. */
export function checkLaravelVersion(v: unknown): CacheLaravelVersion {
  if (!CACHE_LARAVEL_VERSIONS.includes(v as CacheLaravelVersion)) {
    throw new InvalidOptionError('laravel', 'must be one of 8, 9, 10, 11, 12, 13');
  }
  return v as CacheLaravelVersion;
}

/**
 * The skeleton's `cache.prefix` default for an app named `appName`: 8.x `slug(name, '_') + '_cache'`;
 * 9.x-12.x `slug(name, '_') + '_cache_'`; 13.x `slug(name) + '-cache-'`. (12.x skeletons created after
 * mid-2025 already use the 13.x form: pass `cachePrefix` explicitly for those.)
 */
export function laravelCachePrefix(appName: string, laravel: CacheLaravelVersion): string {
  if (laravel === 8) return `${slug(appName, '_')}_cache`;
  if (laravel === 13) return `${slug(appName, '-')}-cache-`;
  return `${slug(appName, '_')}_cache_`;
}

/**
 * The skeleton's Redis connection prefix (`config/database.php`, `redis.options.prefix`): `laravel_database_`
 * up to 12.x, `laravel-database-` in 13.x.
 */
export function laravelRedisPrefix(appName: string, laravel: CacheLaravelVersion): string {
  return laravelPrefix(appName, laravel === 13 ? 13 : 8);
}

/**
 * The part RedisStore puts before every logical key. 8.x-10.x append `:` to a non-empty prefix (PHP's
 * `empty()`, so the prefix "0" is dropped altogether); 11.x+ use the prefix as it is.
 */
export function redisCacheKeyPrefix(cachePrefix: string, laravel: CacheLaravelVersion): string {
  if (laravel <= 10) return cachePrefix === '' || cachePrefix === '0' ? '' : `${cachePrefix}:`;
  return cachePrefix;
}
