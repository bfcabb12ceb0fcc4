// A Laravel app's environment turned into larq's configuration, read the way the app's config files read
// it (config/app.php, database.php, queue.php, cache.php of the skeletons), so larq meets the PHP side on
// the same Redis keys, failed_jobs rows and cache entries. Values go through Laravel's env() (./dotenv).
// Every variable read here, with its meaning and default, is listed in CLI_ENVIRONMENT (./environment):
// a variable added here goes there too (a spec checks both ways).
import { existsSync } from 'fs';
import { isAbsolute, join, resolve } from 'path';
import type { CacheConfig, CacheLaravelVersion } from '../cache';
import { InvalidOptionError, LarqError } from '../errors';
import type { FailedJobProviderConfig } from '../failed';
import { checkTimeZone } from '../failed/timestamp';
import { LARAVEL_VERSION_RULE, LaravelRelease, type LaravelVersion } from '../LaravelLine';
import { horizonPrefix, horizonPrefixFor, type HorizonPeers } from '../horizon/HorizonOptions';
import { Encrypter } from '../php/Encrypter';
import { laravelPrefix } from '../redis/keys';
import { DEFAULT_REDIS_QUEUE_OPTIONS } from '../RedisQueueOptions';
import { laravelVersionOfApp } from './appVersion';
import {
  clusterConnection,
  hostPorts,
  sentinelConnection,
  socketConnection,
  usesTls,
  type CliRedisTls,
  type HostPort,
} from './redisConnection';
import { laravelEnv, type LaravelEnv } from './dotenv';
import type { SqlConnectionConfig } from '../sql';

/** The queue settings of the app's Redis connection; `connection` is a redis:// URL. */
export interface CliQueueConfig {
  connection: string;
  prefix: string;
  /** The PHP peers' version, as RedisQueue's `laravel` option takes it. */
  laravel: LaravelVersion;
  appName: string;
  queue: string;
  retryAfter: number;
  blockFor: number | null;
  encrypter: Encrypter | null;
  /** Whether the Redis connection is a cluster (LARQ_REDIS_CLUSTER). */
  cluster: boolean;
  /** Seconds to wait for a Redis reply before reconnecting (LARQ_REDIS_READ_TIMEOUT); null = forever. */
  readTimeout: number | null;
}

/** Everything a command needs, from the environment and the global flags. */
export interface CliConfig {
  /** The Laravel app's directory: relative paths (sqlite file, failed-jobs.json) resolve from it. */
  appDir: string;
  /** The PHP peers' Laravel major version (the cache layout depends on it). */
  laravel: CacheLaravelVersion;
  /** The PHP peers' exact release (a bare major means the newest of its line). */
  release: LaravelRelease;
  /** TLS files and server name for rediss:// connections (LARQ_REDIS_CA, LARQ_REDIS_CERT, LARQ_REDIS_KEY, LARQ_REDIS_SERVERNAME). */
  redisTls: CliRedisTls;
  /** The app's default database (DB_CONNECTION): failed jobs, the database cache and job batches live there. */
  database: SqlConnectionConfig;
  /** How the app says it is down (config/app.php's maintenance): the `storage/framework/down` file, or a cache store's key. */
  maintenance: { driver: string; store: string };
  /** The variables the configuration was read from (.env under the process environment). */
  env: Readonly<Record<string, string>>;
  /** Where the version came from: --laravel, LARQ_LARAVEL, composer.lock, vendor/..., or the default. */
  laravelSource: string;
  /** Where the key prefix came from: --prefix, REDIS_PREFIX, or derived from APP_NAME. */
  prefixSource: string;
  /** APP_TIMEZONE. */
  timezone: string;
  /** The connection name commands use when given none (QUEUE_CONNECTION, else "redis"). */
  defaultConnection: string;
  queue: CliQueueConfig;
  failed: FailedJobProviderConfig;
  /** Laravel's default cache store, when it is one larq can use. */
  cache?: CacheConfig;
  /** That store's name (config('cache.default'): CACHE_STORE, or CACHE_DRIVER before Laravel 11). */
  cacheStoreName?: string;
  /** Why there is no cache store (or only an in-process one), for the worker's start-up note. */
  cacheNote?: string;
  /** Horizon mode (see {@link horizonConfig}): Horizon's prefix and why it is on; undefined when off. */
  horizon?: CliHorizonConfig;
}

/** Horizon mode as the app's settings ask for it. */
export interface CliHorizonConfig {
  /**
   * HORIZON_PREFIX, else config/horizon.php's default `Str::slug(APP_NAME, '_') . '_horizon:'`; inside a
   * hash tag, `{...}`, on a cluster of 13.5+ peers, as later Horizon 5.x writes it there.
   */
  prefix: string;
  /** Why Horizon mode is on: LARQ_HORIZON, HORIZON_PREFIX, config/horizon.php or --horizon. */
  source: string;
}

/** The global flags that change the configuration (already validated by the argument parser). */
export interface GlobalOverrides {
  app?: string;
  prefix?: string;
  redisUrl?: string;
  laravel?: LaravelVersion;
  /** --redis-read-timeout, in seconds (0 = forever). */
  readTimeout?: number;
}

/** Queue drivers of Laravel that are not Redis: a connection with one of these names is refused. */
export const NON_REDIS_DRIVERS: readonly string[] = Object.freeze([
  'sync',
  'database',
  'beanstalkd',
  'sqs',
  'null',
  'deferred',
  'background',
  'failover',
  'rabbitmq',
]);

/** Build the configuration from a Laravel environment (see the table above). */
export function configFromEnv(vars: Record<string, string>, overrides: GlobalOverrides = {}): CliConfig {
  const env = laravelEnv(vars);
  const appDir = resolve(overrides.app ?? process.cwd());
  const { release, laravelSource } = laravelRelease(env, overrides, appDir);
  const laravel = release.major;
  const modern = laravel >= 11;
  const appName = env.get('APP_NAME') ?? 'Laravel';
  const timezone = env.get('APP_TIMEZONE') ?? 'UTC';
  checkTimeZone(timezone, 'APP_TIMEZONE');
  const [prefix, prefixSource] =
    overrides.prefix !== undefined
      ? [overrides.prefix, '--prefix']
      : env.prefix('REDIS_PREFIX') !== undefined
        ? [env.prefix('REDIS_PREFIX')!, 'REDIS_PREFIX']
        : [
            laravelPrefix(appName, laravel >= 13 ? 13 : 8, 'APP_NAME'),
            `derived from APP_NAME as the Laravel ${laravel >= 13 ? '13' : '8-12'} skeleton does`,
          ];
  const redisBase = overrides.redisUrl ?? env.get('REDIS_URL');
  const redisDb = (connection: string, option: string) => {
    if (connection === 'default') return env.int('REDIS_DB', 0);
    if (connection === 'cache') return env.int('REDIS_CACHE_DB', 1);
    throw new InvalidOptionError(
      option,
      `is "${connection}"; larq knows the skeleton's Redis connections "default" and "cache"`,
    );
  };
  const queue: CliQueueConfig = {
    connection: redisUrl(
      env,
      redisBase,
      redisDb(env.get('REDIS_QUEUE_CONNECTION') ?? 'default', 'REDIS_QUEUE_CONNECTION'),
    ),
    prefix,
    laravel: release.version,
    appName,
    queue: env.get('REDIS_QUEUE') ?? 'default',
    retryAfter: env.int('REDIS_QUEUE_RETRY_AFTER', 90),
    blockFor: env.get('REDIS_QUEUE_BLOCK_FOR') === undefined ? null : env.number('REDIS_QUEUE_BLOCK_FOR', 0),
    encrypter: encrypter(env),
    // a 13.5+ peer on a cluster connection wraps queue names in a hash tag (RedisQueue's cluster option)
    cluster: env.get('LARQ_REDIS_CLUSTER') !== undefined,
    readTimeout: readTimeout(
      overrides.readTimeout ?? env.number('LARQ_REDIS_READ_TIMEOUT', DEFAULT_REDIS_QUEUE_OPTIONS.readTimeout as number),
      overrides.readTimeout !== undefined ? '--redis-read-timeout' : 'LARQ_REDIS_READ_TIMEOUT',
    ),
  };
  const database = databaseConfig(env, appDir, modern);
  const failed = failedConfig(env, database, appDir, timezone);
  // the skeleton's app.maintenance (11+; earlier apps have only the file)
  const maintenance = {
    driver: (modern && env.get('APP_MAINTENANCE_DRIVER')) || 'file',
    store: env.get('APP_MAINTENANCE_STORE') ?? 'database',
  };
  const redisTls = {
    ca: env.get('LARQ_REDIS_CA'),
    cert: env.get('LARQ_REDIS_CERT'),
    key: env.get('LARQ_REDIS_KEY'),
    servername: env.get('LARQ_REDIS_SERVERNAME'),
  };
  const config: CliConfig = {
    appDir,
    laravel,
    release,
    laravelSource,
    prefixSource,
    database,
    maintenance,
    redisTls,
    env: Object.freeze({ ...vars }),
    timezone,
    defaultConnection: env.get('QUEUE_CONNECTION') ?? 'redis',
    queue,
    failed,
  };
  const horizon = horizonConfig(env, appDir, appName, { cluster: queue.cluster, laravel: release });
  if (horizon !== undefined) config.horizon = horizon;
  // The skeleton reads CACHE_STORE from Laravel 11 on and CACHE_DRIVER before; the other one is a fallback.
  const [storeVar, otherVar] = modern ? ['CACHE_STORE', 'CACHE_DRIVER'] : ['CACHE_DRIVER', 'CACHE_STORE'];
  const store = env.get(storeVar) ?? env.get(otherVar) ?? (modern ? 'database' : 'file');
  const cachePrefix = env.prefix('CACHE_PREFIX');
  config.cacheStoreName = store;
  const common = { appName, laravel, ...(cachePrefix !== undefined ? { cachePrefix } : {}) };
  if (store === 'redis') {
    const cacheDb = redisDb(env.get('REDIS_CACHE_CONNECTION') ?? 'cache', 'REDIS_CACHE_CONNECTION');
    const lockDb = redisDb(env.get('REDIS_CACHE_LOCK_CONNECTION') ?? 'default', 'REDIS_CACHE_LOCK_CONNECTION');
    config.cache = {
      driver: 'redis',
      connection: redisUrl(env, redisBase, cacheDb),
      lockConnection: redisUrl(env, redisBase, lockDb),
      prefix,
      ...common,
    };
  } else if (store === 'database') {
    const tables = {
      table: env.get('DB_CACHE_TABLE') ?? 'cache',
      lockTable: env.get('DB_CACHE_LOCK_TABLE') ?? 'cache_locks',
    };
    config.cache = { driver: 'database', connection: database, ...tables, ...common };
  } else if (store === 'array') {
    config.cache = { driver: 'array' };
    config.cacheNote = `${storeVar} is array: maxExceptions counts stay in this process, and queue:restart cannot reach it`;
  } else {
    config.cacheNote = `${storeVar} is ${store}: larq reads the redis, database or array stores, so queue:restart and maxExceptions are off`;
  }
  const cacheConnections =
    config.cache?.driver === 'redis' ? [config.cache.connection as string, config.cache.lockConnection as string] : [];
  checkTlsSettings(redisTls, [queue.connection, ...cacheConnections]);
  return config;
}

/**
 * Horizon mode: on when LARQ_HORIZON is true, when HORIZON_PREFIX is set, or when the app has
 * config/horizon.php (it runs Horizon); LARQ_HORIZON=false turns it off whatever else says. `force`
 * (larq work --horizon) turns it on. The prefix is config/horizon.php's: HORIZON_PREFIX, else
 * Str::slug(APP_NAME, '_') . '_horizon:', as `Horizon::use` then leaves it for `peers`' connection (in a
 * hash tag on a cluster of 13.5+ peers: horizonPrefixFor).
 */
export function horizonConfig(
  env: Pick<LaravelEnv, 'get'>,
  appDir: string,
  appName: string,
  peers: HorizonPeers,
  force = false,
): CliHorizonConfig | undefined {
  const flag = env.get('LARQ_HORIZON');
  if (flag !== undefined && !/^(1|true|0|false)$/i.test(flag))
    throw new InvalidOptionError('LARQ_HORIZON', `must be true or false, got "${flag}"`);
  const named = env.get('HORIZON_PREFIX');
  const on = (source: string): CliHorizonConfig => ({
    prefix: horizonPrefixFor(named ?? horizonPrefix(appName), peers),
    source,
  });
  if (force) return on('--horizon');
  if (flag !== undefined) return /^(1|true)$/i.test(flag) ? on('LARQ_HORIZON') : undefined;
  if (named !== undefined) return on('HORIZON_PREFIX');
  if (existsSync(join(appDir, 'config', 'horizon.php'))) return on('config/horizon.php');
  return undefined;
}

// The PHP peers' version and where it came from: --laravel, LARQ_LARAVEL, the app's composer.lock or
// vendor/, else the newest line.
function laravelRelease(
  env: LaravelEnv,
  overrides: GlobalOverrides,
  appDir: string,
): { release: LaravelRelease; laravelSource: string } {
  if (overrides.laravel !== undefined)
    return { release: LaravelRelease.of(overrides.laravel, 'laravel'), laravelSource: '--laravel' };
  const named = env.get('LARQ_LARAVEL');
  if (named !== undefined) return { release: version(named), laravelSource: 'LARQ_LARAVEL' };
  const found = laravelVersionOfApp(appDir);
  if (found !== undefined) {
    try {
      return { release: LaravelRelease.of(found.version, found.source), laravelSource: found.source };
    } catch (e) {
      throw new LarqError(
        `${join(appDir, found.source)} says the app runs Laravel ${found.version}, which larq does not speak (8 to 13); set LARQ_LARAVEL to the version whose wire format it uses`,
        { cause: e },
      );
    }
  }
  return { release: version(undefined), laravelSource: 'the default (no --laravel, LARQ_LARAVEL or composer.lock)' };
}

/**
 * The Redis connection name to use: `given` (a command's [connection] argument), else QUEUE_CONNECTION,
 * else "redis". Any name is taken as a Redis connection configured like the app's (it is what failed_jobs
 * records), except the names of Laravel's other queue drivers, which larq cannot serve.
 */
export function redisConnection(config: Pick<CliConfig, 'defaultConnection'>, given?: string): string {
  const name = given ?? config.defaultConnection;
  if (NON_REDIS_DRIVERS.includes(name)) {
    const source =
      given === undefined ? `QUEUE_CONNECTION is "${name}"` : `connection "${name}" is not a Redis connection`;
    throw new LarqError(`${source}: larq serves Laravel's Redis queue only; name the Redis connection, e.g. "redis"`);
  }
  return name;
}

/** --laravel / LARQ_LARAVEL: what RedisQueue's `laravel` option takes (LaravelVersion), written as text. */
export function parseLaravelVersion(text: string, option: string): LaravelRelease {
  try {
    return LaravelRelease.of(text, option);
  } catch {
    throw new InvalidOptionError(option, `${LARAVEL_VERSION_RULE}, got "${text}"`);
  }
}

function version(text: string | undefined): LaravelRelease {
  return parseLaravelVersion(text ?? '13', 'LARQ_LARAVEL');
}

// A redis:// URL for database `db`. As Laravel's URL parser does, the parts REDIS_URL carries win over
// REDIS_HOST, REDIS_PORT, REDIS_USERNAME, REDIS_PASSWORD and the database; missing parts come from them.
function redisUrl(env: LaravelEnv, base: string | undefined, db: number): string {
  const scheme = (env.get('REDIS_SCHEME') ?? 'tcp').toLowerCase();
  if (!['tcp', 'tls', 'unix', 'redis', 'rediss'].includes(scheme))
    throw new InvalidOptionError('REDIS_SCHEME', `must be tcp, tls or unix, got "${scheme}"`);
  let protocol = scheme === 'tls' || scheme === 'rediss' ? 'rediss:' : 'redis:';
  let host = env.get('REDIS_HOST') ?? '127.0.0.1';
  let port = env.int('REDIS_PORT', 6379, 65535);
  let username = env.get('REDIS_USERNAME') ?? '';
  let password = env.get('REDIS_PASSWORD') ?? '';
  if (base !== undefined) {
    const url = URL.canParse(base) ? new URL(base) : null;
    if (!url || !['redis:', 'rediss:', 'tls:', 'unix:'].includes(url.protocol))
      throw new InvalidOptionError('REDIS_URL', `must be a redis://, rediss:// or unix:// URL, got "${base}"`);
    if (protocol === 'rediss:' && (url.protocol === 'redis:' || url.protocol === 'unix:')) {
      throw new InvalidOptionError(
        'REDIS_SCHEME',
        `is ${scheme} but REDIS_URL is a ${url.protocol}// URL, which is not TLS: use a rediss:// URL, or leave REDIS_SCHEME unset`,
      );
    }
    if (url.username) username = decodeURIComponent(url.username);
    if (url.password) password = decodeURIComponent(url.password);
    if (url.protocol === 'unix:')
      return socketConnection(
        decodeURIComponent(url.pathname),
        Number(url.searchParams.get('db') ?? db),
        username,
        password,
      );
    protocol = url.protocol === 'redis:' ? 'redis:' : 'rediss:';
    if (url.hostname) host = url.hostname;
    if (url.port) port = Number(url.port);
    const path = /^\/(\d+)$/.exec(url.pathname);
    if (path) db = Number(path[1]);
  }
  // Laravel configures clusters and Sentinel in config/database.php, not in the skeleton's .env: larq reads
  // their nodes from LARQ_REDIS_CLUSTER and LARQ_REDIS_SENTINELS (a cluster has only database 0).
  const clusterNodes = env.get('LARQ_REDIS_CLUSTER');
  const sentinels = env.get('LARQ_REDIS_SENTINELS');
  if (clusterNodes !== undefined && sentinels !== undefined)
    throw new InvalidOptionError('LARQ_REDIS_CLUSTER', 'and LARQ_REDIS_SENTINELS cannot both be set');
  if (clusterNodes !== undefined)
    return clusterConnection(hostPorts(clusterNodes, 'LARQ_REDIS_CLUSTER'), username, password, protocol === 'rediss:');
  if (sentinels !== undefined) {
    const list = sentinelList(sentinels);
    return sentinelConnection(
      list.nodes,
      env.get('LARQ_REDIS_SENTINEL_SERVICE') ?? 'mymaster',
      db,
      username,
      password,
      { primary: protocol === 'rediss:', sentinels: list.tls },
    );
  }
  if (env.get('LARQ_REDIS_SENTINEL_SERVICE') !== undefined)
    throw new InvalidOptionError(
      'LARQ_REDIS_SENTINEL_SERVICE',
      'is set but LARQ_REDIS_SENTINELS is not: name the sentinels, or leave the service unset',
    );
  // phpredis takes a socket path as the host (predis as scheme unix with the path)
  if (scheme === 'unix' || host.startsWith('/') || host.startsWith('unix://')) {
    if (protocol === 'rediss:')
      throw new InvalidOptionError(
        'REDIS_SCHEME',
        `is ${scheme} but REDIS_HOST is a Unix socket (${host}), which larq does not speak TLS over: leave REDIS_SCHEME unset, or give a host name`,
      );
    return socketConnection(host.replace(/^unix:\/\//, ''), db, username, password);
  }
  const auth =
    username || password ? `${encodeURIComponent(username)}${password ? `:${encodeURIComponent(password)}` : ''}@` : '';
  const hostPart = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  return `${protocol}//${auth}${hostPart}:${port}/${db}`;
}

// LARQ_REDIS_SENTINELS: host:port pairs, each written bare (or tcp://, redis://) for plaintext, or tls://
// (rediss://) for a sentinel that speaks TLS, as predis' sentinel parameters take a scheme. ioredis has one
// TLS setting for all the sentinels, so a list that mixes the two is refused.
function sentinelList(text: string): { nodes: HostPort[]; tls: boolean } {
  const schemes = new Set<boolean>();
  const bare = text.split(',').map((part) => {
    const m = /^\s*(tcp|redis|tls|rediss):\/\/(.*)$/.exec(part);
    schemes.add(m !== null && (m[1] === 'tls' || m[1] === 'rediss'));
    return m ? m[2] : part;
  });
  if (schemes.size > 1)
    throw new InvalidOptionError(
      'LARQ_REDIS_SENTINELS',
      'mixes tls:// sentinels with plaintext ones; larq speaks TLS to all of them or to none',
    );
  return { nodes: hostPorts(bare.join(','), 'LARQ_REDIS_SENTINELS'), tls: schemes.has(true) };
}

// A TLS file or server name with no TLS connection to use it on would be ignored: refuse it instead.
function checkTlsSettings(tls: CliRedisTls, connections: string[]): void {
  if (connections.some(usesTls)) return;
  const names: Record<keyof CliRedisTls, string> = {
    ca: 'LARQ_REDIS_CA',
    cert: 'LARQ_REDIS_CERT',
    key: 'LARQ_REDIS_KEY',
    servername: 'LARQ_REDIS_SERVERNAME',
  };
  const given = (Object.keys(names) as (keyof CliRedisTls)[]).find((k) => tls[k] !== undefined);
  if (given)
    throw new InvalidOptionError(
      names[given],
      'is set but no Redis connection is TLS: set REDIS_SCHEME=tls (or use a rediss:// URL), or name the sentinels as tls://host:port',
    );
}

// The read timeout of every Redis connection (RedisQueue's readTimeout): 0 is "forever", as phpredis' is.
function readTimeout(seconds: number, option: string): number | null {
  if (seconds === 0) return null;
  if (seconds < 2)
    throw new InvalidOptionError(option, `must be at least 2 seconds, or 0 to wait forever, got ${seconds}`);
  return seconds;
}

function encrypter(env: LaravelEnv): Encrypter | null {
  const key = env.get('APP_KEY');
  if (!key) return null;
  const previous = (env.get('APP_PREVIOUS_KEYS') ?? '')
    .split(',')
    .map((k) => k.trim())
    .filter(Boolean);
  try {
    return new Encrypter(key, (env.get('APP_CIPHER') ?? 'AES-256-CBC').toLowerCase(), previous);
  } catch (e) {
    throw new InvalidOptionError('APP_KEY', (e as Error).message);
  }
}

function databaseConfig(env: LaravelEnv, appDir: string, modern: boolean): SqlConnectionConfig {
  const driver = env.get('DB_CONNECTION') ?? (modern ? 'sqlite' : 'mysql');
  if (driver === 'sqlite') {
    const file = env.get('DB_DATABASE') ?? join('database', 'database.sqlite');
    return { driver, database: file === ':memory:' || isAbsolute(file) ? file : join(appDir, file) };
  }
  const server = {
    host: env.get('DB_HOST') ?? '127.0.0.1',
    user: env.get('DB_USERNAME') ?? (modern ? 'root' : 'forge'),
    password: env.get('DB_PASSWORD') ?? '',
    database: env.get('DB_DATABASE') ?? (modern ? 'laravel' : 'forge'),
  };
  if (driver === 'mysql' || driver === 'mariadb') {
    const socket = env.get('DB_SOCKET');
    return { driver, ...server, port: env.int('DB_PORT', 3306, 65535), ...(socket ? { socketPath: socket } : {}) };
  }
  if (driver === 'pgsql') return { driver, ...server, port: env.int('DB_PORT', 5432, 65535) };
  throw new InvalidOptionError(
    'DB_CONNECTION',
    `is "${driver}"; larq reads sqlite, mysql, mariadb and pgsql databases`,
  );
}

function failedConfig(
  env: LaravelEnv,
  database: SqlConnectionConfig,
  appDir: string,
  timezone: string,
): FailedJobProviderConfig {
  // Laravel's queue service provider takes a null driver ("null" read by env()) as the null store.
  const driver = env.isNull('QUEUE_FAILED_DRIVER') ? 'null' : (env.get('QUEUE_FAILED_DRIVER') ?? 'database-uuids');
  if (driver === 'database-uuids' || driver === 'database')
    return { driver, database, table: env.get('QUEUE_FAILED_TABLE') ?? 'failed_jobs', timezone };
  if (driver === 'file')
    return { driver, path: join(appDir, 'storage', 'framework', 'cache', 'failed-jobs.json'), timezone };
  if (driver === 'null') return { driver };
  throw new InvalidOptionError(
    'QUEUE_FAILED_DRIVER',
    `is "${driver}"; larq writes database-uuids, database, file or null`,
  );
}
