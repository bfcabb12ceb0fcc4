<?php
// Laravel 8.83's side of `npm run bench` (scripts/bench.ts), on bootstrap.php's Redis queue:
//   php bench.php push N    Queue::push of N no-op jobs, one by one; prints {"seconds": elapsed}
//   php bench.php work      Laravel's own Worker daemon until the queue is empty (sleep 0, no timeout)
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
    use Illuminate\Queue\Worker;
    use Illuminate\Queue\WorkerOptions;

    $app = larq_boot();
    $mode = $argv[1] ?? '';

    if ($mode === 'push') {
        $n = (int) ($argv[2] ?? 1000);
        $queue = $app['queue']->connection('redis');
        $start = microtime(true);
        for ($i = 0; $i < $n; $i++) {
            $queue->push(new BenchNoop($i));
        }
        echo json_encode(['seconds' => microtime(true) - $start]), "\n";
        exit(0);
    }

    if ($mode === 'work') {
        $worker = new Worker($app['queue'], $app['events'], $app[ExceptionHandler::class], fn () => false);
        // name, backoff, memory, timeout, sleep, maxTries, force, stopWhenEmpty
        $options = new WorkerOptions('default', 0, 1024, 0, 0, 1, false, true);
        exit($worker->daemon('redis', 'default', $options));
    }

    fwrite(STDERR, "usage: php bench.php push N | work\n");
    exit(2);
}
