// Every environment variable the larq command reads, with what it sets and its default: the one list of
// them. spec/unit/cli/environment.spec.ts checks it against what configFromEnv and the commands read, and
// spec/integration/readme.spec.ts checks the README's table against it.
//
// Variables of the app's environment are read as Laravel's env() reads them, from the .env file of --app
// (or --env=FILE) with the process's own variables winning: "null" and "(null)" mean unset (the default
// applies; for the two prefixes they mean "no prefix"), "empty" and "(empty)" mean "", and surrounding
// quotes are dropped. `--laravel` (or LARQ_LARAVEL) picks the Laravel skeleton whose defaults apply:
// "≥11" means Laravel 11 and later, "≤10" Laravel 8 to 10.

/** One variable the CLI reads. */
export interface EnvironmentVariable {
  /** The variable's name. */
  readonly name: string;
  /** What larq uses it for. */
  readonly meaning: string;
  /** What applies when it is unset. */
  readonly default: string;
  /** "app": the Laravel app's environment (.env, then the process). "process": the process's only. */
  readonly scope: 'app' | 'process';
}

const app = (name: string, meaning: string, fallback: string): EnvironmentVariable =>
  Object.freeze({ name, meaning, default: fallback, scope: 'app' });

/** The environment variables of `larq` and its commands, in the order the README's table lists them. */
export const CLI_ENVIRONMENT: readonly EnvironmentVariable[] = Object.freeze([
  app(
    'LARQ_LARAVEL',
    "the PHP side's Laravel version: a major 8 to 13, or major.minor such as 12.11 (`--laravel`)",
    "the app's composer.lock (or vendor/laravel/framework), else 13",
  ),
  app('APP_NAME', 'derives the Redis and cache key prefixes', 'Laravel'),
  app('APP_KEY', 'decrypts and encrypts ShouldBeEncrypted jobs', 'none: encrypted jobs fail'),
  app('APP_PREVIOUS_KEYS', 'older keys tried when decrypting, comma-separated', 'none'),
  app('APP_CIPHER', "the encrypter's cipher", 'AES-256-CBC'),
  app('APP_TIMEZONE', "failed_at and the work log's timestamps", 'UTC'),
  app(
    'APP_MAINTENANCE_DRIVER',
    '`larq work`: how `php artisan down` is seen: file (storage/framework/down) or cache (≥11)',
    'file',
  ),
  app('APP_MAINTENANCE_STORE', 'the cache store holding the down flag when the driver is cache', 'database'),
  app('QUEUE_CONNECTION', 'the connection commands use when given none; must be a Redis one', 'redis'),
  app('REDIS_URL', 'Redis as a URL (`--redis-url`); its parts win over the REDIS_* below', 'none'),
  app('REDIS_SCHEME', 'tls for TLS (as a rediss:// URL), unix for a socket, else tcp', 'tcp'),
  app('REDIS_HOST', 'Redis host, or a Unix socket path (or unix:///path)', '127.0.0.1'),
  app('REDIS_PORT', 'Redis port', '6379'),
  app('REDIS_USERNAME', 'Redis ACL user', 'none'),
  app('REDIS_PASSWORD', 'Redis password', 'none'),
  app('REDIS_DB', 'database of the "default" Redis connection', '0'),
  app('REDIS_CACHE_DB', 'database of the "cache" Redis connection', '1'),
  app(
    'LARQ_REDIS_CLUSTER',
    'a Redis Cluster: its seed nodes as host:port,host:port (queue keys then as a 13.5+ cluster peer writes them)',
    'none: one server',
  ),
  app(
    'LARQ_HORIZON',
    "Horizon mode (`larq work --horizon`, [horizon.md](horizon.md)): true writes what Horizon's listeners write, so its dashboard shows Node's jobs, failures, metrics and tags; false keeps it off",
    'on when HORIZON_PREFIX is set or config/horizon.php exists',
  ),
  app(
    'HORIZON_PREFIX',
    'where Horizon keeps its data in Redis (Horizon mode; setting it turns Horizon mode on); with `LARQ_REDIS_CLUSTER` and Laravel 13.5+ used inside a hash tag, `{PREFIX}`, unless it holds one ([horizon.md](horizon.md#on-a-redis-cluster))',
    "Str::slug(APP_NAME, '_') . '_horizon:'",
  ),
  app(
    'LARQ_REDIS_SENTINELS',
    'Sentinel: the sentinels as host:port,host:port (tls://host:port for TLS to them), which name the primary',
    'none',
  ),
  app('LARQ_REDIS_SENTINEL_SERVICE', 'Sentinel: the name the sentinels monitor the primary under', 'mymaster'),
  app(
    'LARQ_REDIS_READ_TIMEOUT',
    'seconds to wait for Redis to answer before taking the connection for dead and reconnecting; 0 = forever (`--redis-read-timeout`)',
    '30',
  ),
  app('LARQ_REDIS_CA', "TLS: the CA certificate file (PEM) that signed the Redis server's", "the system's CAs"),
  app('LARQ_REDIS_CERT', 'TLS: a client certificate file (PEM)', 'none'),
  app('LARQ_REDIS_KEY', "TLS: the client certificate's key file (PEM)", 'none'),
  app('LARQ_REDIS_SERVERNAME', "TLS: the name the server's certificate carries, when not the host", 'the host'),
  app(
    'REDIS_PREFIX',
    'key prefix of every Redis connection (`--prefix`)',
    'slug(APP_NAME, "_")_database_ (≤12), slug(APP_NAME)-database- (13)',
  ),
  app('REDIS_QUEUE', 'the default queue', 'default'),
  app('REDIS_QUEUE_CONNECTION', 'the Redis connection of the queue: default or cache', 'default'),
  app('REDIS_QUEUE_RETRY_AFTER', 'retry_after: seconds a reservation lasts', '90'),
  app('REDIS_QUEUE_BLOCK_FOR', 'block_for: seconds a pop waits on an empty queue', 'none: never block'),
  app(
    'DB_CONNECTION',
    'database of the failed-job and cache stores: sqlite, mysql, mariadb or pgsql',
    'sqlite (≥11), mysql (≤10)',
  ),
  app('DB_HOST', 'database server', '127.0.0.1'),
  app('DB_PORT', 'database port', '3306 (mysql, mariadb), 5432 (pgsql)'),
  app('DB_SOCKET', 'MySQL/MariaDB Unix socket', 'none'),
  app(
    'DB_DATABASE',
    'database name; for sqlite a file, relative to the app',
    'database/database.sqlite (sqlite); laravel (≥11), forge (≤10)',
  ),
  app('DB_USERNAME', 'database user', 'root (≥11), forge (≤10)'),
  app('DB_PASSWORD', 'database password', 'empty'),
  app('QUEUE_FAILED_DRIVER', 'failed-job store: database-uuids, database, file or null', 'database-uuids'),
  app('QUEUE_FAILED_TABLE', 'failed-job table', 'failed_jobs'),
  app(
    'CACHE_STORE',
    'cache store (Laravel ≥11; the fallback before): redis, database, array; others mean none',
    'database (≥11)',
  ),
  app('CACHE_DRIVER', 'cache store (Laravel ≤10; the fallback after); file means none', 'file (≤10)'),
  app('CACHE_PREFIX', 'cache key prefix', 'derived from APP_NAME as each version does'),
  app('REDIS_CACHE_CONNECTION', "the cache store's Redis connection: default or cache", 'cache'),
  app('REDIS_CACHE_LOCK_CONNECTION', "the cache locks' Redis connection: default or cache", 'default'),
  app('DB_CACHE_TABLE', 'database cache table', 'cache'),
  app('DB_CACHE_LOCK_TABLE', 'database cache lock table', 'cache_locks'),
  Object.freeze({
    name: 'LARQ_HANDLERS',
    meaning: '`larq work`: the handlers module when `--handlers` is not given',
    default: 'none: required',
    scope: 'process',
  }),
  Object.freeze({
    name: 'LARQ_DEBUG',
    meaning: 'print the stack trace of an error the command stops on',
    default: 'off',
    scope: 'process',
  }),
]);
