<?php
// The Laravel line's cache (LARQ_LARAVEL, see laravel.php), built by hand (no application), for the cache interop specs
// (spec/integration/cache/laravel-interop.spec.ts): a CacheManager with a Redis store on phpredis and a
// database store on a SQLite file, plus the pieces of the queue worker and `queue:restart` that read or
// write the cache. Runs a list of operations and prints their results as one JSON array.
//
// Usage: php cache.php <redis|database> '<JSON list of operations>'
//
// Environment:
//   LARQ_REDIS_PORT   Redis port on 127.0.0.1 (default 6379)
//   LARQ_PREFIX       the Redis connections' key prefix (default laravel_database_)
//   LARQ_CACHE_PREFIX `cache.prefix` (default laravel_cache; 8.x RedisStore adds a ':', 11.x+ nothing)
//   LARQ_LARAVEL      the Laravel line (laravel.php; default 8.83)
//   LARQ_CACHE_DB     database index of the `cache` Redis connection (default 1)
//   LARQ_LOCK_DB      database index of the `default` Redis connection, the store's lock_connection (default 0)
//   LARQ_SQLITE       SQLite file of the database store (table `cache`, locks in `cache_locks`)
//   LARQ_NOW          freeze Laravel's clock at this Unix time (seconds)
//
// Operations (each result is listed after the arrow):
//   {op: get, key}                        -> {type, value} (gettype and value of Cache::get)
//   {op: put, key, value, seconds}        -> {type, value} of the boolean result
//   {op: forever, key, value}             -> same
//   {op: increment, key, by?}             -> {type, value}
//   {op: forget, key}                     -> {type, value}
//   {op: restart}                         -> null; runs Illuminate\Queue\Console\RestartCommand::handle
//   {op: workerLastRestart}               -> {type, value} of Worker::getTimestampOfLastQueueRestart()
//   {op: workerShouldRestart, since}      -> {type, value} of Worker::queueShouldRestart(since)
//   {op: maxExceptions, uuid, max}        -> {failed} after Worker::markJobAsFailedIfWillExceedMaxExceptions
//   {op: lock, name, seconds, owner?}     -> {acquired, owner}: Cache::lock(name, seconds, owner)->get()
//   {op: release, name, owner}            -> {type, value}: Cache::restoreLock(name, owner)->release()
//   {op: forceRelease, name}              -> null
//   {op: lockOwner, name}                 -> {type, value}: the lock's current owner

declare(strict_types=1);

error_reporting(E_ALL & ~E_DEPRECATED & ~E_USER_DEPRECATED);
ini_set('display_errors', 'stderr');

require_once __DIR__ . '/laravel.php';
larq_load_laravel();
require_once __DIR__ . '/console.php';

use Illuminate\Cache\CacheManager;
use Illuminate\Config\Repository as Config;
use Illuminate\Container\Container;
use Illuminate\Database\Capsule\Manager as DatabaseCapsule;
use Illuminate\Events\Dispatcher as Events;
use Illuminate\Queue\Console\RestartCommand;
use Illuminate\Queue\QueueManager;
use Illuminate\Queue\Worker;
use Illuminate\Redis\RedisManager;
use Illuminate\Support\Carbon;
use Symfony\Component\Console\Output\BufferedOutput;

function cache_env(string $name, string $default): string
{
    $value = getenv($name);
    return $value === false || $value === '' ? $default : $value;
}

/** Reports to stderr, so stdout carries only the JSON. */
final class CacheFixtureExceptions implements Illuminate\Contracts\Debug\ExceptionHandler
{
    public function report(Throwable $e) { fwrite(STDERR, get_class($e) . ': ' . $e->getMessage() . "\n"); }
    public function shouldReport(Throwable $e) { return true; }
    public function render($request, Throwable $e) { throw $e; }
    public function renderForConsole($output, Throwable $e) { $this->report($e); }
}

/** The two methods the worker's maxExceptions check calls on a job, and whether it was failed. */
final class CacheFixtureJob
{
    public bool $failed = false;
    public function __construct(private string $uuid, private int $max) {}
    public function uuid() { return $this->uuid; }
    public function maxExceptions() { return $this->max; }
    public function fail($e = null) { $this->failed = true; }
}

function cache_boot(string $store): Container
{
    $now = getenv('LARQ_NOW');
    if ($now !== false && $now !== '') {
        Carbon::setTestNow(Carbon::createFromTimestamp((float) $now));
    }
    $port = (int) cache_env('LARQ_REDIS_PORT', '6379');
    $app = new Container();
    Container::setInstance($app);
    $app->instance('app', $app);
    $app->instance('config', new Config([
        'cache' => [
            'default' => $store,
            'prefix' => cache_env('LARQ_CACHE_PREFIX', 'laravel_cache'),
            'stores' => [
                // The 8.x skeleton's stores: Redis connection `cache` with locks on `default`.
                'redis' => ['driver' => 'redis', 'connection' => 'cache', 'lock_connection' => 'default'],
                'database' => ['driver' => 'database', 'table' => 'cache', 'connection' => 'sqlite', 'lock_connection' => null],
            ],
        ],
        'database' => [
            'redis' => [
                'client' => 'phpredis',
                'options' => ['prefix' => cache_env('LARQ_PREFIX', 'laravel_database_')],
                'default' => ['host' => '127.0.0.1', 'port' => $port, 'database' => (int) cache_env('LARQ_LOCK_DB', '0')],
                'cache' => ['host' => '127.0.0.1', 'port' => $port, 'database' => (int) cache_env('LARQ_CACHE_DB', '1')],
            ],
        ],
    ]));
    $app->instance('redis', new RedisManager($app, 'phpredis', $app['config']['database.redis']));

    $sqlite = getenv('LARQ_SQLITE');
    if ($sqlite !== false && $sqlite !== '') {
        $db = new DatabaseCapsule($app);
        $db->addConnection(['driver' => 'sqlite', 'database' => $sqlite, 'prefix' => ''], 'sqlite');
        $app->instance('db', $db->getDatabaseManager());
    }
    $app->instance('cache', new CacheManager($app));
    return $app;
}

/** gettype and value, so the spec can tell "5" from 5. */
function cache_typed($value): array
{
    return ['type' => gettype($value), 'value' => $value];
}

function cache_worker(Container $app): Worker
{
    $worker = new Worker(new QueueManager($app), new Events($app), new CacheFixtureExceptions(), fn () => false);
    $worker->setCache($app['cache']->store());
    return $worker;
}

/** Calls a protected Worker method, as the daemon loop would. */
function cache_worker_call(Worker $worker, string $method, array $args)
{
    $m = new ReflectionMethod(Worker::class, $method);
    $m->setAccessible(true);
    return $m->invokeArgs($worker, $args);
}

function cache_run(Container $app, array $op)
{
    $cache = $app['cache']->store();
    switch ($op['op']) {
        case 'get':
            return cache_typed($cache->get($op['key']));
        case 'put':
            return cache_typed($cache->put($op['key'], $op['value'], $op['seconds']));
        case 'forever':
            return cache_typed($cache->forever($op['key'], $op['value']));
        case 'increment':
            return cache_typed($cache->increment($op['key'], $op['by'] ?? 1));
        case 'forget':
            return cache_typed($cache->forget($op['key']));
        case 'restart':
            $command = new RestartCommand($cache);
            $command->setLaravel($app);
            larq_run_command($command, [], new BufferedOutput());
            return null;
        case 'workerLastRestart':
            return cache_typed(cache_worker_call(cache_worker($app), 'getTimestampOfLastQueueRestart', []));
        case 'workerShouldRestart':
            return cache_typed(cache_worker_call(cache_worker($app), 'queueShouldRestart', [$op['since']]));
        case 'maxExceptions':
            $job = new CacheFixtureJob($op['uuid'], $op['max']);
            cache_worker_call(cache_worker($app), 'markJobAsFailedIfWillExceedMaxExceptions', ['redis', $job, new RuntimeException('boom')]);
            return ['failed' => $job->failed];
        case 'lock':
            $lock = $cache->lock($op['name'], $op['seconds'] ?? 0, $op['owner'] ?? null);
            return ['acquired' => $lock->get(), 'owner' => $lock->owner()];
        case 'release':
            return cache_typed($cache->restoreLock($op['name'], $op['owner'])->release());
        case 'forceRelease':
            $cache->lock($op['name'])->forceRelease();
            return null;
        case 'lockOwner':
            $lock = $cache->lock($op['name']);
            $m = new ReflectionMethod($lock, 'getCurrentOwner');
            $m->setAccessible(true);
            return cache_typed($m->invoke($lock));
        default:
            throw new InvalidArgumentException('unknown op ' . $op['op']);
    }
}

$store = $argv[1] ?? 'redis';
$ops = json_decode($argv[2] ?? '[]', true, 512, JSON_THROW_ON_ERROR);
$app = cache_boot($store);
$results = [];
foreach ($ops as $op) {
    $results[] = cache_run($app, $op);
}
echo json_encode($results, JSON_THROW_ON_ERROR | JSON_UNESCAPED_SLASHES | JSON_INVALID_UTF8_SUBSTITUTE), "\n";
