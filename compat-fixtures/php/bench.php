<?php
// Laravel's side of `npm run bench` (scripts/bench.ts), on bootstrap.php's Redis queue, on the line
// LARQ_LARAVEL names (8.83, 12.67 or 13.26, as every harness script):
//   php bench.php push N    Queue::push of N no-op jobs, one by one, in this one process; prints
//                           {"start": Unix seconds, "end": Unix seconds, "seconds": elapsed}
//   php bench.php work      Laravel's own Worker daemon until the queue is empty, with the options
//                           `php artisan queue:work --stop-when-empty` passes (tries 1, timeout 60, sleep 3,
//                           memory 128, ...), the cache for queue:restart (and 12.x/13.x queue:pause) and a
//                           maintenance check on a file (LARQ_BENCH_DOWN_FILE), as queue:work wires them;
//                           prints {"start", "end", "seconds", "cpuMicros", "jobs"}: from the first job's
//                           handle() to the end of the last one's (the Node contenders' clock, see
//                           scripts/bench-clock.js), and this process's CPU time in between
// The push clock starts after the framework has booted and connected to Redis.
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
            BenchClock::job();
        }
    }

    /** The span from the first handle() to the end of the last, and the CPU time spent in it. */
    final class BenchClock
    {
        public static ?float $first = null;
        public static float $last = 0.0;
        public static int $jobs = 0;
        public static float $cpuAtFirst = 0.0;
        public static float $cpu = 0.0;

        public static function cpu(): float
        {
            $usage = getrusage();

            return ($usage['ru_utime.tv_sec'] + $usage['ru_stime.tv_sec']) * 1e6
                + $usage['ru_utime.tv_usec'] + $usage['ru_stime.tv_usec'];
        }

        public static function job(): void
        {
            if (self::$first === null) {
                self::$first = microtime(true);
                self::$cpuAtFirst = self::cpu();
            }
            self::$jobs++;
            self::$last = microtime(true);
            if (self::$jobs === (int) getenv('LARQ_BENCH_JOBS')) {
                self::$cpu = self::cpu() - self::$cpuAtFirst;
            }
        }
    }
}

namespace {
    use App\Jobs\BenchClock;
    use App\Jobs\BenchNoop;
    use Illuminate\Contracts\Debug\ExceptionHandler;
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
        $status = $worker->daemon('redis', 'default', $options);
        $first = BenchClock::$first ?? microtime(true);
        echo json_encode([
            'start' => $first,
            'end' => BenchClock::$last,
            'seconds' => BenchClock::$last - $first,
            'cpuMicros' => BenchClock::$cpu,
            'jobs' => BenchClock::$jobs,
        ]), "\n";
        exit($status);
    }

    fwrite(STDERR, "usage: php bench.php push N | work\n");
    exit(2);
}
