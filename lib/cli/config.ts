// A Laravel app's environment, read the way its config files read it, turned into larq's configuration.
//
// | variable                        | used for                      | default (as Laravel's skeleton)           |
// | ------------------------------- | ----------------------------- | ----------------------------------------- |
// | APP_NAME                        | derived Redis and cache prefix | Laravel                                   |
// | APP_KEY, APP_CIPHER             | encrypted jobs                | none, AES-256-CBC                         |
// | APP_PREVIOUS_KEYS               | decrypting with older keys    | none (comma-separated)                    |
// | LARQ_LARAVEL (or --laravel)     | the PHP peers' Laravel major  | 13                                        |
// | QUEUE_CONNECTION                | must be redis for larq        | redis                                     |
// | REDIS_URL                       | Redis                         | built from REDIS_HOST/PORT/USERNAME/PASSWORD/DB |
// | REDIS_HOST, REDIS_PORT          |                               | 127.0.0.1, 6379                           |
// | REDIS_USERNAME, REDIS_PASSWORD  |                               | none                                      |
// | REDIS_DB, REDIS_CACHE_DB        | queue and cache databases     | 0, 1                                      |
// | REDIS_PREFIX (or --prefix)      | key prefix                    | slug(APP_NAME,'_')_database_ (13: slug(APP_NAME)-database-) |
// | REDIS_QUEUE                     | default queue                 | default                                   |
// | REDIS_QUEUE_RETRY_AFTER         | retry_after, seconds          | 90                                        |
// | REDIS_QUEUE_BLOCK_FOR           | block_for, seconds            | none (never block)                        |
// | QUEUE_FAILED_DRIVER             | failed-job store              | database-uuids                            |
// | DB_CONNECTION                   | sqlite, mysql, mariadb, pgsql | sqlite                                    |
// | DB_HOST, DB_PORT                |                               | 127.0.0.1, 3306 / 5432                    |
// | DB_DATABASE                     | (sqlite: the file)            | database/database.sqlite (sqlite), laravel |
// | DB_USERNAME, DB_PASSWORD        |                               | root / postgres, empty                    |
// | CACHE_STORE (or CACHE_DRIVER)   | restart signal, maxExceptions | none unless redis or database             |
// | CACHE_PREFIX                    | cache key prefix              | derived from APP_NAME and the version     |
import { isAbsolute, join } from 'path';
import type { CacheConfig } from '../cache';
import { InvalidOptionError } from '../errors';
import type { FailedJobProviderConfig } from '../failed';
import type { SqlConnectionConfig } from '../sql';
import type { LaravelLine } from '../LaravelLine';
import { Encrypter, type EncrypterCipher } from '../php/Encrypter';
import { laravelPrefix } from '../redis/keys';
import type { RedisQueueOptions } from '../RedisQueueOptions';

/** Everything a command needs, from the environment and the global flags. */
export interface CliConfig {
  /** The PHP peers' Laravel major version (8-13). */
  laravel: 8 | 9 | 10 | 11 | 12 | 13;
  queue: RedisQueueOptions & { queue: string; prefix: string };
  failed: FailedJobProviderConfig;
  /** Laravel's cache store, when it is one larq can read (redis or database). */
  cache?: CacheConfig;
  /** Why there is no cache store, for the worker's start-up note. */
  cacheNote?: string;
}

/** Flags every command takes. */
export interface GlobalOverrides {
  app?: string;
  prefix?: string;
  redisUrl?: string;
  laravel?: string;
}

/** Build the configuration from a Laravel environment (see the table above). */
export function configFromEnv(env: Record<string, string>, overrides: GlobalOverrides = {}): CliConfig {
  const appDir = overrides.app ?? process.cwd();
  const laravel = laravelVersion(overrides.laravel ?? env.LARQ_LARAVEL ?? '13');
  const line: LaravelLine = laravel >= 13 ? 13 : laravel === 12 ? 12 : 8;
  const appName = env.APP_NAME ?? 'Laravel';
  const connection = overrides.redisUrl ?? env.REDIS_URL ?? redisUrl(env, env.REDIS_DB ?? '0');
  const prefix = overrides.prefix ?? env.REDIS_PREFIX ?? laravelPrefix(appName, line);
  if (env.QUEUE_CONNECTION !== undefined && env.QUEUE_CONNECTION !== 'redis') {
    throw new InvalidOptionError('QUEUE_CONNECTION', `is "${env.QUEUE_CONNECTION}"; larq works Laravel's redis queue connection only`);
  }
  const queue = {
    connection,
    prefix,
    laravel: line,
    appName,
    queue: env.REDIS_QUEUE ?? 'default',
    retryAfter: seconds('REDIS_QUEUE_RETRY_AFTER', env.REDIS_QUEUE_RETRY_AFTER ?? '90'),
    blockFor: env.REDIS_QUEUE_BLOCK_FOR ? seconds('REDIS_QUEUE_BLOCK_FOR', env.REDIS_QUEUE_BLOCK_FOR) : null,
    encrypter: env.APP_KEY ? encrypter(env) : null,
  };
  const database = databaseConfig(env, appDir);
  const failed = failedConfig(env, database, appDir);
  const store = env.CACHE_STORE ?? env.CACHE_DRIVER;
  const cachePrefix = env.CACHE_PREFIX;
  let cache: CacheConfig | undefined;
  let cacheNote: string | undefined;
  if (store === 'redis') {
    cache = { driver: 'redis', connection: redisUrl(env, env.REDIS_CACHE_DB ?? '1', env.REDIS_URL), prefix, appName, laravel, ...(cachePrefix !== undefined ? { cachePrefix } : {}) };
  } else if (store === 'database') {
    cache = { driver: 'database', connection: database, appName, laravel, ...(cachePrefix !== undefined ? { cachePrefix } : {}) };
  } else {
    cacheNote = `CACHE_STORE is ${store ?? 'not set'}: queue:restart and maxExceptions counters need the redis or database cache store`;
  }
  return { laravel, queue, failed, cache, cacheNote };
}

function laravelVersion(text: string): CliConfig['laravel'] {
  const n = Number(text);
  if (![8, 9, 10, 11, 12, 13].includes(n)) throw new InvalidOptionError('--laravel', `must be a Laravel major version from 8 to 13, got "${text}"`);
  return n as CliConfig['laravel'];
}

function seconds(name: string, text: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 0) throw new InvalidOptionError(name, `must be whole seconds, got "${text}"`);
  return n;
}

// A redis:// URL for the given database, from REDIS_URL when set (its own path wins) or the parts.
function redisUrl(env: Record<string, string>, db: string, base?: string): string {
  const url = new URL(base ?? `redis://${env.REDIS_HOST ?? '127.0.0.1'}:${env.REDIS_PORT ?? '6379'}`);
  if (!base) {
    if (env.REDIS_USERNAME) url.username = encodeURIComponent(env.REDIS_USERNAME);
    if (env.REDIS_PASSWORD && env.REDIS_PASSWORD !== 'null') url.password = encodeURIComponent(env.REDIS_PASSWORD);
  }
  if (!base || url.pathname === '' || url.pathname === '/') url.pathname = `/${db}`;
  return url.toString();
}

function encrypter(env: Record<string, string>): Encrypter {
  const cipher = (env.APP_CIPHER ?? 'AES-256-CBC').toLowerCase() as EncrypterCipher;
  const previous = (env.APP_PREVIOUS_KEYS ?? '').split(',').map((k) => k.trim()).filter(Boolean);
  return new Encrypter(env.APP_KEY, cipher, previous);
}

function databaseConfig(env: Record<string, string>, appDir: string): SqlConnectionConfig {
  const driver = env.DB_CONNECTION ?? 'sqlite';
  if (driver === 'sqlite') {
    const file = env.DB_DATABASE ?? join('database', 'database.sqlite');
    return { driver: 'sqlite', database: isAbsolute(file) ? file : join(appDir, file) };
  }
  const common = { host: env.DB_HOST ?? '127.0.0.1', password: env.DB_PASSWORD ?? '', database: env.DB_DATABASE ?? 'laravel' };
  if (driver === 'mysql' || driver === 'mariadb') return { driver, ...common, port: Number(env.DB_PORT ?? 3306), user: env.DB_USERNAME ?? 'root' };
  if (driver === 'pgsql') return { driver, ...common, port: Number(env.DB_PORT ?? 5432), user: env.DB_USERNAME ?? 'postgres' };
  throw new InvalidOptionError('DB_CONNECTION', `is "${driver}"; larq reads sqlite, mysql, mariadb and pgsql`);
}

function failedConfig(env: Record<string, string>, database: SqlConnectionConfig, appDir: string): FailedJobProviderConfig {
  const driver = env.QUEUE_FAILED_DRIVER ?? 'database-uuids';
  if (driver === 'database-uuids' || driver === 'database') return { driver, database };
  if (driver === 'file') return { driver, path: join(appDir, 'storage', 'framework', 'cache', 'failed-jobs.json') };
  if (driver === 'null') return { driver };
  throw new InvalidOptionError('QUEUE_FAILED_DRIVER', `is "${driver}"; larq writes database-uuids, database, file or null`);
}

