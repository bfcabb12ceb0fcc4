<?php
// Runs Laravel's own Illuminate\Queue\Worker on queue connection "redis", as `php artisan queue:work`
// would, minus the console output.
//
// Usage: php worker.php [--queue=a,b] [--once] [--stop-when-empty] [--max-jobs=N] [--max-time=S]
//                       [--tries=N] [--sleep=S] [--timeout=S] [--backoff=S[,S...]] [--memory=MB]
//                       [--rest=S] [--force]
// Laravel's defaults apply (tries 1, sleep 3, timeout 60, ...), with one exception: when none of
// --once, --stop-when-empty, --max-jobs or --max-time is given, --max-time=60 is assumed, so a
// worker always ends by itself. The queue list defaults to LARQ_QUEUE, else "default".
//
// Environment (besides bootstrap.php's):
//   LARQ_RECORD   the jobs' handle() records (jobs.php)
//   LARQ_FAILED   failed jobs, one JSON line each: {connection, queue, payload, exception, failed_at};
//                 unset: failed jobs are not kept (NullFailedJobProvider)
//   LARQ_EVENTS   worker events, one JSON line each: {event, time, connection, jobId, uuid, name,
//                 attempts, queue, exception?, status?}
//   LARQ_WORKER_SETUP  a PHP file defining larq_worker_setup(Container $app), called after boot (e.g.
//                 middleware.php: rate limiters and the MiddlewareProbe job)
// Exit status: the worker's (0 when it stopped by itself, 12 over memory; killed by SIGKILL after
// a job timeout, as Laravel does). Reported exceptions go to stderr.

declare(strict_types=1);

require __DIR__ . '/bootstrap.php';

use Illuminate\Contracts\Debug\ExceptionHandler;
use Illuminate\Queue\Events;
use Illuminate\Queue\Failed\FailedJobProviderInterface;
use Illuminate\Queue\Failed\NullFailedJobProvider;
use Illuminate\Queue\Worker;
use Illuminate\Queue\WorkerOptions;

/** Failed jobs as JSON lines in a file. */
final class LarqJsonLinesFailedJobProvider implements FailedJobProviderInterface
{
    public function __construct(private string $file)
    {
    }

    public function log($connection, $queue, $payload, $exception)
    {
        $id = json_decode($payload, true)['uuid'] ?? null;
        $line = [
            'connection' => $connection,
            'queue' => $queue,
            'payload' => $payload,
            'exception' => (string) $exception,
            'exceptionClass' => get_class($exception),
            'message' => $exception->getMessage(),
            'failed_at' => microtime(true),
        ];
        file_put_contents($this->file, larq_json($line) . "\n", FILE_APPEND | LOCK_EX);
        return $id;
    }

    public function all()
    {
        if (!is_file($this->file)) {
            return [];
        }
        $lines = array_filter(explode("\n", (string) file_get_contents($this->file)));
        return array_map(fn ($line) => (object) json_decode($line, true), array_values($lines));
    }

    public function find($id)
    {
        foreach ($this->all() as $record) {
            if ((json_decode($record->payload, true)['uuid'] ?? null) === $id) {
                return $record;
            }
        }
        return null;
    }

    public function forget($id)
    {
        return false;
    }

    public function ids($queue = null)
    {
        return array_values(array_filter(array_map(
            fn ($record) => json_decode($record->payload, true)['uuid'] ?? null,
            array_filter($this->all(), fn ($record) => $queue === null || $record->queue === $queue),
        )));
    }

    public function flush($hours = null)
    {
        @unlink($this->file);
    }
}

/** --name=value and --flag options from argv. */
function larq_worker_options(array $argv): array
{
    $opts = [];
    foreach (array_slice($argv, 1) as $arg) {
        if (!str_starts_with($arg, '--')) {
            fwrite(STDERR, "unexpected argument: {$arg}\n");
            exit(2);
        }
        $parts = explode('=', substr($arg, 2), 2);
        $opts[$parts[0]] = $parts[1] ?? true;
    }
    return $opts;
}

function larq_event_line(string $event, ?Illuminate\Contracts\Queue\Job $job, array $extra = []): void
{
    $file = getenv('LARQ_EVENTS');
    if ($file === false || $file === '') {
        return;
    }
    $line = ['event' => $event, 'time' => microtime(true)]
        + ($job ? ['connection' => $job->getConnectionName()] + larq_job_fields($job) : [])
        + $extra;
    file_put_contents($file, larq_json($line) . "\n", FILE_APPEND | LOCK_EX);
}

$app = larq_boot();
if (($setup = larq_env('LARQ_WORKER_SETUP')) !== null) {
    require $setup;
    larq_worker_setup($app);
}
$opts = larq_worker_options($argv);
$events = $app['events'];

$failedFile = larq_env('LARQ_FAILED');
$app->instance('queue.failer', $failedFile === null ? new NullFailedJobProvider() : new LarqJsonLinesFailedJobProvider($failedFile));

// queue:work's own listener: without it Laravel never writes a failed-job record.
$events->listen(Events\JobFailed::class, function (Events\JobFailed $e) use ($app) {
    $app['queue.failer']->log($e->connectionName, $e->job->getQueue(), $e->job->getRawBody(), $e->exception);
});

$exceptionOf = fn (Throwable $e) => ['exception' => ['class' => get_class($e), 'message' => $e->getMessage()]];
$events->listen(Events\JobProcessing::class, fn ($e) => larq_event_line('JobProcessing', $e->job));
$events->listen(Events\JobProcessed::class, fn ($e) => larq_event_line('JobProcessed', $e->job));
$events->listen(Events\JobFailed::class, fn ($e) => larq_event_line('JobFailed', $e->job, $exceptionOf($e->exception)));
$events->listen(Events\JobExceptionOccurred::class, fn ($e) => larq_event_line('JobExceptionOccurred', $e->job, $exceptionOf($e->exception)));
$events->listen(Events\WorkerStopping::class, fn ($e) => larq_event_line('WorkerStopping', null, ['status' => $e->status]));

$worker = new Worker($app['queue'], $events, $app[ExceptionHandler::class], fn () => false);
$worker->setCache($app['cache.store']);

$bounded = isset($opts['once']) || isset($opts['stop-when-empty']) || isset($opts['max-jobs']) || isset($opts['max-time']);
$options = new WorkerOptions(
    'default',
    $opts['backoff'] ?? 0,
    (int) ($opts['memory'] ?? 128),
    (int) ($opts['timeout'] ?? 60),
    (float) ($opts['sleep'] ?? 3),
    (int) ($opts['tries'] ?? 1),
    isset($opts['force']),
    isset($opts['stop-when-empty']),
    (int) ($opts['max-jobs'] ?? 0),
    (int) ($opts['max-time'] ?? ($bounded ? 0 : 60)),
    (float) ($opts['rest'] ?? 0),
);
$worker->setName('default');

$queue = is_string($opts['queue'] ?? null) ? $opts['queue'] : $app['config']['queue.connections.redis.queue'];

if (isset($opts['once'])) {
    $worker->runNextJob('redis', $queue, $options);
    exit(0);
}
exit($worker->daemon('redis', $queue, $options));
