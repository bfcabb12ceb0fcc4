<?php
// Builds a Laravel queue stack by hand (there is no Laravel application here): container, config,
// Redis manager (phpredis), queue connection "redis", encrypter, events, cache, bus dispatcher,
// facades, and an in-memory sqlite database for Eloquent models, on the Laravel line LARQ_LARAVEL names
// (laravel.php: 8.83 from Debian's php-laravel-framework, 12.67 and 13.26 from their release tarballs).
//
// Environment:
//   LARQ_LARAVEL        the Laravel line: 8.83 (default), 12.67 or 13.26
//   LARQ_REDIS_PORT     Redis port on 127.0.0.1 (default 6379)
//   LARQ_REDIS_DB       Redis database index (default 0)
//   LARQ_REDIS_CLUSTER  comma-separated ports of Redis Cluster nodes on 127.0.0.1: the Redis connection
//                       `default` is then a cluster connection (database.redis.clusters.default, phpredis
//                       RedisCluster), as a Laravel app on a cluster configures it; LARQ_REDIS_PORT and
//                       LARQ_REDIS_DB are not used
//   LARQ_PREFIX         the Redis connection's key prefix (default: the line's skeleton, laravel_database_;
//                       13.x laravel-database-)
//   LARQ_APP_KEY        APP_KEY for the encrypter (default base64: 32 bytes of "k")
//   LARQ_CIPHER         cipher (default AES-256-CBC)
//   LARQ_RETRY_AFTER    the queue connection's retry_after in seconds (default 90)
//   LARQ_BLOCK_FOR      the queue connection's block_for (default null: never block)
//   LARQ_QUEUE          the queue connection's default queue (default "default")
//   LARQ_CACHE_PREFIX   the cache store's prefix (default: the line's skeleton). 8.x's Redis store puts a
//                       ':' after it, later lines do not: keys are {LARQ_PREFIX}laravel_cache:{key} on
//                       8.83, {LARQ_PREFIX}laravel_cache_{key} on 12.67, {LARQ_PREFIX}laravel-cache-{key}
//                       on 13.26
//   LARQ_NOW            freeze Laravel's clock at this Unix time (seconds, may be fractional)
//   LARQ_HORIZON        set: Laravel Horizon 5.29.1 runs on top (12.67 and 13.26 only; horizon.php)

declare(strict_types=1);

error_reporting(E_ALL & ~E_DEPRECATED & ~E_USER_DEPRECATED);
ini_set('display_errors', 'stderr');
ini_set('log_errors', '0');

require_once __DIR__ . '/laravel.php';
larq_load_laravel();
require_once __DIR__ . '/describe.php';
require_once __DIR__ . '/jobs.php';

use Illuminate\Bus\Dispatcher as BusDispatcher;
use Illuminate\Cache\CacheManager;
use Illuminate\Config\Repository as Config;
use Illuminate\Container\Container;
use Illuminate\Database\Capsule\Manager as DatabaseCapsule;
use Illuminate\Encryption\Encrypter;
use Illuminate\Events\Dispatcher as Events;
use Illuminate\Queue\Capsule\Manager as QueueCapsule;
use Illuminate\Redis\RedisManager;
use Illuminate\Support\Carbon;
use Illuminate\Support\Facades\Facade;

/** An env var, or the default when it is unset or empty. */
function larq_env(string $name, ?string $default = null): ?string
{
    $value = getenv($name);
    return $value === false || $value === '' ? $default : $value;
}

/** Prints uncaught and reported exceptions to stderr; stdout stays for the scripts' JSON. */
final class LarqExceptionHandler implements Illuminate\Contracts\Debug\ExceptionHandler
{
    public function report(Throwable $e)
    {
        fwrite(STDERR, '[larq-php] ' . get_class($e) . ': ' . $e->getMessage()
            . ' (' . $e->getFile() . ':' . $e->getLine() . ")\n");
    }

    public function shouldReport(Throwable $e)
    {
        return true;
    }

    public function render($request, Throwable $e)
    {
        throw $e;
    }

    public function renderForConsole($output, Throwable $e)
    {
        $this->report($e);
    }
}

/** The APP_KEY as raw bytes ("base64:..." or a plain string). */
function larq_app_key(): string
{
    $key = larq_env('LARQ_APP_KEY', 'base64:a2tra2tra2tra2tra2tra2tra2tra2tra2tra2tra2s=');
    return str_starts_with($key, 'base64:') ? base64_decode(substr($key, 7), true) : $key;
}

/** The Redis key prefix of the line's application skeleton (APP_NAME "Laravel"). */
function larq_default_prefix(): string
{
    return larq_laravel_major() >= 13 ? 'laravel-database-' : 'laravel_database_';
}

/** The cache prefix of the line's application skeleton (APP_NAME "Laravel"). */
function larq_default_cache_prefix(): string
{
    return match (true) {
        larq_laravel_major() >= 13 => 'laravel-cache-',
        larq_laravel_major() >= 9 => 'laravel_cache_',
        default => 'laravel_cache',
    };
}

function larq_config(): Config
{
    $blockFor = larq_env('LARQ_BLOCK_FOR');
    return new Config([
        'app' => ['key' => larq_env('LARQ_APP_KEY'), 'cipher' => larq_env('LARQ_CIPHER', 'AES-256-CBC')],
        'queue' => [
            'default' => 'redis',
            'connections' => [
                'redis' => [
                    'driver' => 'redis',
                    'connection' => 'default',
                    'queue' => larq_env('LARQ_QUEUE', 'default'),
                    'retry_after' => (int) larq_env('LARQ_RETRY_AFTER', '90'),
                    'block_for' => $blockFor === null ? null : (int) $blockFor,
                    'after_commit' => false,
                ],
            ],
        ],
        'cache' => [
            'default' => 'redis',
            'prefix' => larq_env('LARQ_CACHE_PREFIX', larq_default_cache_prefix()),
            'stores' => ['redis' => ['driver' => 'redis', 'connection' => 'default', 'lock_connection' => 'default']],
        ],
        'database' => ['redis' => larq_redis_config()],
    ]);
}

/**
 * database.redis: connection `default` on one server, or with LARQ_REDIS_CLUSTER the skeleton's cluster
 * form: no plain `default`, `clusters.default` listing the seed nodes and options.cluster "redis" (which
 * the phpredis connector does not read; RedisManager picks a cluster by the name under `clusters`).
 */
function larq_redis_config(): array
{
    $prefix = larq_env('LARQ_PREFIX', larq_default_prefix());
    $cluster = larq_env('LARQ_REDIS_CLUSTER');
    if ($cluster !== null) {
        $nodes = array_map(
            fn (string $port) => ['host' => '127.0.0.1', 'port' => (int) $port, 'password' => null],
            explode(',', $cluster),
        );
        return ['client' => 'phpredis', 'options' => ['cluster' => 'redis', 'prefix' => $prefix], 'clusters' => ['default' => $nodes]];
    }
    return [
        'client' => 'phpredis',
        'options' => ['prefix' => $prefix],
        'default' => [
            'host' => '127.0.0.1',
            'port' => (int) larq_env('LARQ_REDIS_PORT', '6379'),
            'database' => (int) larq_env('LARQ_REDIS_DB', '0'),
            'password' => null,
        ],
    ];
}

/**
 * Eloquent on an in-memory sqlite database whose connection is NAMED "mysql", so the
 * ModelIdentifier objects SerializesModels writes say connection "mysql", as in the recorded
 * fixtures. Every process seeds the same users (ids 7, 8, 9), so a model serialized by one
 * process is found again by another.
 */
function larq_boot_database(Container $app): void
{
    $db = new DatabaseCapsule($app);
    $db->addConnection(['driver' => 'sqlite', 'database' => ':memory:', 'prefix' => ''], 'mysql');
    $db->getDatabaseManager()->setDefaultConnection('mysql');
    $db->setAsGlobal();
    $db->bootEloquent();
    $app->instance('db', $db->getDatabaseManager());

    $schema = $db->getConnection('mysql')->getSchemaBuilder();
    $schema->create('users', function ($table) {
        $table->increments('id');
        $table->string('name');
        $table->string('email');
    });
    $db->getConnection('mysql')->table('users')->insert([
        ['id' => 7, 'name' => 'Ada', 'email' => 'ada@example.com'],
        ['id' => 8, 'name' => 'Grace', 'email' => 'grace@example.com'],
        ['id' => 9, 'name' => 'Edsger', 'email' => 'edsger@example.com'],
    ]);
}

/**
 * With LARQ_BATCH_SQLITE set: Laravel's DatabaseBatchRepository on that SQLite file (connection
 * "batches", table job_batches in the 8.x stub's shape, created when missing), so Bus::batch and
 * Batchable jobs work. Unset: nothing changes.
 */
function larq_boot_batches(Container $app): void
{
    $file = larq_env('LARQ_BATCH_SQLITE');
    if ($file === null) {
        return;
    }
    if (!is_file($file)) {
        touch($file); // Laravel's SQLite connector wants the file to exist
    }
    $db = $app['db'];
    $app['config']['database.connections.batches'] = ['driver' => 'sqlite', 'database' => $file, 'prefix' => ''];
    $connection = $db->connection('batches');
    $schema = $connection->getSchemaBuilder();
    if (!$schema->hasTable('job_batches')) {
        $schema->create('job_batches', function ($table) {
            $table->string('id')->primary();
            $table->string('name');
            $table->integer('total_jobs');
            $table->integer('pending_jobs');
            $table->integer('failed_jobs');
            $table->text('failed_job_ids');
            $table->mediumText('options')->nullable();
            $table->integer('cancelled_at')->nullable();
            $table->integer('created_at');
            $table->integer('finished_at')->nullable();
        });
    }
    $repository = new Illuminate\Bus\DatabaseBatchRepository(new Illuminate\Bus\BatchFactory($app['queue']), $connection, 'job_batches');
    $app->instance(Illuminate\Bus\BatchRepository::class, $repository);
    $app->instance(Illuminate\Bus\DatabaseBatchRepository::class, $repository);
}

/** Builds the whole stack once and returns the container (also Container::getInstance()). */
function larq_boot(): Container
{
    static $app = null;
    if ($app !== null) {
        return $app;
    }

    $now = larq_env('LARQ_NOW');
    if ($now !== null) {
        Carbon::setTestNow(Carbon::createFromTimestamp((float) $now));
    }

    $app = new Container();
    Container::setInstance($app);
    $app->instance(Container::class, $app);
    $app->instance(Illuminate\Contracts\Container\Container::class, $app);
    $app->instance('app', $app);
    $app->instance('config', larq_config());

    $events = new Events($app);
    $app->instance('events', $events);
    $app->instance(Illuminate\Contracts\Events\Dispatcher::class, $events);

    $handler = new LarqExceptionHandler();
    $app->instance(Illuminate\Contracts\Debug\ExceptionHandler::class, $handler);

    $encrypter = new Encrypter(larq_app_key(), $app['config']['app.cipher']);
    $app->instance('encrypter', $encrypter);
    $app->instance(Illuminate\Contracts\Encryption\Encrypter::class, $encrypter);

    $horizon = larq_env('LARQ_HORIZON') !== null;
    if ($horizon) {
        require_once __DIR__ . '/horizon.php';
        larq_configure_horizon($app['config']);
    }

    $redis = new RedisManager($app, 'phpredis', $app['config']['database.redis']);
    $app->instance('redis', $redis);
    $app->instance(Illuminate\Contracts\Redis\Factory::class, $redis);

    $cache = new CacheManager($app);
    $app->instance('cache', $cache);
    $app->instance(Illuminate\Contracts\Cache\Factory::class, $cache);
    $app->singleton('cache.store', fn () => $cache->driver());
    $app->singleton(Illuminate\Contracts\Cache\Repository::class, fn () => $app['cache.store']);

    // The queue capsule writes queue.default = "default" into the config; put ours back after it.
    $queue = new QueueCapsule($app);
    $app['config']['queue.default'] = 'redis';
    $queue->setAsGlobal();
    $app->instance('queue', $queue->getQueueManager());
    $app->instance(Illuminate\Contracts\Queue\Factory::class, $queue->getQueueManager());
    $app->singleton('queue.connection', fn () => $app['queue']->connection());

    $bus = new BusDispatcher($app, fn ($connection = null) => $app['queue']->connection($connection));
    $app->instance(BusDispatcher::class, $bus);
    $app->instance(Illuminate\Contracts\Bus\Dispatcher::class, $bus);
    $app->instance(Illuminate\Contracts\Bus\QueueingDispatcher::class, $bus);

    if ($horizon) {
        larq_register_horizon($app);
    }

    larq_boot_database($app);
    larq_boot_batches($app);

    Facade::setFacadeApplication($app);

    return $app;
}
