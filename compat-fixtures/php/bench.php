<?php
// Laravel's side of `npm run bench` (scripts/bench.ts), on bootstrap.php's Redis queue, on the line
// LARQ_LARAVEL names (8.83, 12.67 or 13.26, as every harness script):
//   php bench.php push N    Queue::push of N no-op jobs, one by one, in this one process; prints
//                           {"start": Unix seconds, "end": Unix seconds, "seconds": elapsed}
//   php bench.php work      Laravel's own Worker daemon until the queue is empty, with the options
//                           `php artisan queue:work --stop-when-empty` passes (tries 1, timeout 60, sleep 3,
//                           memory 128, ...), the cache for queue:restart (and 12.x/13.x queue:pause) and a
//                           maintenance check on a file (LARQ_BENCH_DOWN_FILE), as queue:work wires them;
//                           prints {"start", "end", "seconds"}: from the daemon's start to the last
//                           JobProcessed event (the last job deleted), so the one `sleep` the daemon
//                           takes on finding the queue empty, before it stops, is not counted
// In both modes the clock starts after the framework has booted and connected to Redis, as the Node
// contenders' clocks start after their workers and queues are built and connected.
// The job class is App\Jobs\BenchNoop: SerializesModels, an int property, an empty handle().

declare(strict_types=1);

namespace {
    // First: Laravel's autoloader, which the job class's traits need when it is declared below.
    require __DIR__ . '/bootstrap.php';
}

namespace App\Jobs {
    use Illuminate\Bus\Queueable;
    use Illuminate\Contracts\Queue\ShouldQueue;
    use Illuminate\Foundation\Bus\Dispatchable;
    use Illuminate\Queue\InteractsWithQueue;
    use Illuminate\Queue\SerializesModels;

    /** A job that does nothing: the benchmark measures the queue, not the work. */
    class BenchNoop implements ShouldQueue
    {
        use Dispatchable, Queueable, InteractsWithQueue, SerializesModels;

        public $n;

        public function __construct(int $n = 0)
        {
            $this->n = $n;
        }

        public function handle(): void
        {
        }
    }
}

namespace {
    use App\Jobs\BenchNoop;
    use Illuminate\Contracts\Debug\ExceptionHandler;
    use Illuminate\Queue\Events\JobProcessed;
    use Illuminate\Queue\Worker;
    use Illuminate\Queue\WorkerOptions;

    $app = larq_boot();
    $mode = $argv[1] ?? '';
    $queue = $app['queue']->connection('redis');
    // Connect before the clock starts.
    $queue->size('default');
    $report = function (float $start, float $end): void {
        echo json_encode(['start' => $start, 'end' => $end, 'seconds' => $end - $start]), "\n";
    };

    if ($mode === 'push') {
        $n = (int) ($argv[2] ?? 1000);
        $start = microtime(true);
        for ($i = 0; $i < $n; $i++) {
            $queue->push(new BenchNoop($i));
        }
        $report($start, microtime(true));
        exit(0);
    }

    if ($mode === 'work') {
        // What queue:work builds: the worker with the app's maintenance check and the cache it reads
        // queue:restart (and queue:pause) from, and WorkerOptions from the command's defaults.
        $downFile = getenv('LARQ_BENCH_DOWN_FILE') ?: sys_get_temp_dir() . '/larq-bench-down';
        $worker = new Worker($app['queue'], $app['events'], $app[ExceptionHandler::class], fn () => file_exists($downFile));
        $worker->setCache($app['cache.store']);
        $worker->setName('default');
        $options = new WorkerOptions(
            name: 'default',
            backoff: 0,
            memory: 128,
            timeout: 60,
            sleep: 3,
            maxTries: 1,
            force: false,
            stopWhenEmpty: true,
            maxJobs: 0,
            maxTime: 0,
            rest: 0,
        );
        $app['cache.store']->get('illuminate:queue:restart');
        $lastProcessed = null;
        $app['events']->listen(JobProcessed::class, function () use (&$lastProcessed): void {
            $lastProcessed = microtime(true);
        });
        $start = microtime(true);
        $status = $worker->daemon('redis', 'default', $options);
        $report($start, $lastProcessed ?? microtime(true));
        exit($status);
    }

    fwrite(STDERR, "usage: php bench.php push N | work\n");
    exit(2);
}
