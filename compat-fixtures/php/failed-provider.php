<?php
// Drives the Laravel line's own failed-job stores (Illuminate\Queue\Failed\DatabaseUuidFailedJobProvider
// and DatabaseFailedJobProvider) on a SQLite file, and from 10.10.1 its FileFailedJobProvider on a JSON
// file, so the specs can check that larq's rows are the rows Laravel reads, forgets and prunes, and the
// other way round. No Laravel application is built:
// a database Capsule is the connection resolver the providers need.
//
// Usage: php failed-provider.php COMMAND [JSON-ARGUMENT]; prints one JSON value on stdout.
//   log {"connection","queue","payload_b64","message"}  -> {"id", "exception"}  (a RuntimeException)
//   all                                                  -> [record, ...]
//   find {"id"}                                          -> record or null
//   forget {"id"}                                        -> bool
//   flush                                                -> null
//   prune {"before": unix seconds}                       -> number deleted
//   create-table {"uuid": bool}   the 8.x migration stub's table through Laravel's schema builder
//                                 (uuid false: the same without the uuid column)
//   pretty {"path"}               -> {"text": json_encode(json_decode(file), JSON_PRETTY_PRINT), "records"}
//   log-many {"queue","uuids","pause_ms"}  -> number logged: one record per uuid, in turn, pause_ms apart,
//                                    each a payload {"uuid","displayName":"App\\Jobs\\PhpFailure",...}
//                                    and a RuntimeException
//
// Environment:
//   LARQ_SQLITE          the SQLite database file (required except for "pretty")
//   LARQ_TABLE           table name (default failed_jobs)
//   LARQ_FAILED_DRIVER   database-uuids (default), database, or file (Laravel's FileFailedJobProvider,
//                        10.10.1+: the 12.67 and 13.26 lines; exits 3 on 8.83)
//   LARQ_FAILED_FILE     the file store's JSON file (driver file)
//   LARQ_FAILED_LIMIT    the file store's limit (default 100)
//   LARQ_FAILED_LOCK_DIR the file store's lock: the directory of a `file` cache store, given to it as
//                        QueueServiceProvider (12.x) does (unset: no lock, as a store built without one)
//   LARQ_LARAVEL         the Laravel line (laravel.php; default 8.83)
//   LARQ_TZ              the app timezone (default UTC)
//   LARQ_NOW             freeze Laravel's clock at this Unix time (seconds)

declare(strict_types=1);

error_reporting(E_ALL & ~E_DEPRECATED & ~E_USER_DEPRECATED);
ini_set('display_errors', 'stderr');
ini_set('log_errors', '0');

require_once __DIR__ . '/laravel.php';
larq_load_laravel();

use Illuminate\Database\Capsule\Manager as DatabaseCapsule;
use Illuminate\Database\Schema\Blueprint;
use Illuminate\Queue\Failed\DatabaseFailedJobProvider;
use Illuminate\Queue\Failed\DatabaseUuidFailedJobProvider;
use Illuminate\Support\Carbon;

function env_or(string $name, ?string $default = null): ?string
{
    $value = getenv($name);
    return $value === false || $value === '' ? $default : $value;
}

function out($value): void
{
    echo json_encode($value, JSON_THROW_ON_ERROR | JSON_UNESCAPED_UNICODE | JSON_UNESCAPED_SLASHES), "\n";
}

$command = $argv[1] ?? '';
$table = env_or('LARQ_TABLE', 'failed_jobs');
$arg = isset($argv[2]) ? json_decode($argv[2], true, 512, JSON_THROW_ON_ERROR) : [];

date_default_timezone_set(env_or('LARQ_TZ', 'UTC'));
if (($now = env_or('LARQ_NOW')) !== null) {
    Carbon::setTestNow(Carbon::createFromTimestamp((int) $now));
}

if ($command === 'pretty') {
    // The file store is not in 8.83 (it came with 10.10.1): this only shows how PHP itself reads the
    // file and how json_encode(JSON_PRETTY_PRINT), which that store writes with, would write it back.
    $records = json_decode(file_get_contents($arg['path']));
    out(['text' => json_encode($records, JSON_PRETTY_PRINT), 'records' => $records]);
    exit(0);
}

$driver = env_or('LARQ_FAILED_DRIVER', 'database-uuids');
if ($driver === 'file') {
    // Laravel's own file store (10.10.1+; not in 8.83): the JSON file LARQ_FAILED_FILE, default limit 100.
    if (!class_exists(Illuminate\Queue\Failed\FileFailedJobProvider::class)) {
        fwrite(STDERR, 'Laravel ' . larq_laravel_line() . " has no FileFailedJobProvider\n");
        exit(3);
    }
    $lockDir = env_or('LARQ_FAILED_LOCK_DIR');
    $provider = new Illuminate\Queue\Failed\FileFailedJobProvider(
        env_or('LARQ_FAILED_FILE') ?? throw new RuntimeException('LARQ_FAILED_FILE is not set'),
        (int) env_or('LARQ_FAILED_LIMIT', '100'),
        $lockDir === null ? null : fn () => new Illuminate\Cache\Repository(
            new Illuminate\Cache\FileStore(new Illuminate\Filesystem\Filesystem(), $lockDir)
        ),
    );
    $capsule = null;
} else {
    $file = env_or('LARQ_SQLITE') ?? throw new RuntimeException('LARQ_SQLITE is not set');
    $capsule = new DatabaseCapsule();
    $capsule->addConnection(['driver' => 'sqlite', 'database' => $file, 'prefix' => '', 'foreign_key_constraints' => false]);
    $resolver = $capsule->getDatabaseManager();
    $provider = $driver === 'database'
        ? new DatabaseFailedJobProvider($resolver, 'default', $table)
        : new DatabaseUuidFailedJobProvider($resolver, 'default', $table);
}

switch ($command) {
    case 'log':
        $exception = new RuntimeException($arg['message']);
        $id = $provider->log($arg['connection'], $arg['queue'], base64_decode($arg['payload_b64'], true), $exception);
        out(['id' => $id, 'exception' => (string) $exception]);
        break;
    case 'log-many':
        foreach ($arg['uuids'] as $uuid) {
            $payload = json_encode(['uuid' => $uuid, 'displayName' => 'App\\Jobs\\PhpFailure', 'job' => 'Illuminate\\Queue\\CallQueuedHandler@call', 'data' => []]);
            $provider->log('redis', $arg['queue'], $payload, new RuntimeException('php failure'));
            usleep(1000 * (int) ($arg['pause_ms'] ?? 0));
        }
        out(count($arg['uuids']));
        break;
    case 'all':
        out($provider->all());
        break;
    case 'find':
        out($provider->find($arg['id']));
        break;
    case 'forget':
        out($provider->forget($arg['id']));
        break;
    case 'flush':
        $provider->flush();
        out(null);
        break;
    case 'prune':
        out($provider->prune(Carbon::createFromTimestamp((int) $arg['before'])));
        break;
    case 'create-table':
        $capsule->getDatabaseManager()->connection()->getSchemaBuilder()->create($table, function (Blueprint $t) use ($arg) {
            $t->id();
            if ($arg['uuid'] ?? true) {
                $t->string('uuid')->unique();
            }
            $t->text('connection');
            $t->text('queue');
            $t->longText('payload');
            $t->longText('exception');
            $t->timestamp('failed_at')->useCurrent();
        });
        out(null);
        break;
    default:
        fwrite(STDERR, "unknown command: $command\n");
        exit(2);
}
