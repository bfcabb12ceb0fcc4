<?php
// Job middleware across the boundary: the MiddlewareProbe job, the rate limiters a test names, and a
// dispatcher of probes `->through([...])` Laravel's own middleware objects.
//
// Usage: php middleware.php '{"jobs":[{"n":1,"sleepMs":0,"throw":false,"named":false,
//                                      "middleware":[{"class":"WithoutOverlapping","args":["k"],"calls":[["shared",[]]]}]}]}'
// prints {"ids":[...]}. As LARQ_WORKER_SETUP of worker.php it registers the limiters instead.
//
// Environment (besides bootstrap.php's):
//   LARQ_LIMITERS  {"name": {"max": N, "decay": seconds, "key": "..."}}: RateLimiter::for(name) returning
//                  one Limit of max per decay seconds, keyed by key (12.x, 13.x Limit)

declare(strict_types=1);

namespace {
    // run as a script: boot first, so the job classes below find Laravel's traits
    if (realpath($_SERVER['SCRIPT_FILENAME'] ?? '') === __FILE__) {
        require __DIR__ . '/bootstrap.php';
    }
}

namespace App\Jobs {
    use Illuminate\Bus\Queueable;
    use Illuminate\Contracts\Queue\ShouldQueue;
    use Illuminate\Foundation\Bus\Dispatchable;
    use Illuminate\Queue\InteractsWithQueue;
    use Illuminate\Queue\Middleware\RateLimitedWithRedis;
    use Illuminate\Queue\SerializesModels;

    /**
     * Records when its handle() started and ended, and the Redis limiter window its slot was taken in;
     * sleeps sleepMs between; throws when asked.
     */
    class MiddlewareProbe implements ShouldQueue
    {
        use Dispatchable, Queueable, InteractsWithQueue, SerializesModels;

        public $n;
        public $sleepMs;
        public $fails;

        public function __construct($n, $sleepMs = 0, $fails = false)
        {
            $this->n = $n;
            $this->sleepMs = $sleepMs;
            $this->fails = $fails;
        }

        public function handle(): void
        {
            $start = microtime(true);
            usleep((int) $this->sleepMs * 1000);
            larq_record(['hook' => 'handle', 'class' => static::class, 'n' => $this->n, 'start' => $start, 'end' => microtime(true),
                'window' => $this->limiterWindow(), 'attempts' => $this->job?->attempts(), 'pid' => getmypid(), 'worker' => 'php']);
            if ($this->fails) {
                throw new \RuntimeException('probe failed');
            }
        }

        /**
         * The end (Unix seconds) of the window this attempt's RateLimitedWithRedis took its slot in (its
         * first limit's), or null without one: the middleware ran this attempt through the objects in
         * $this->middleware, unserialized with it, and keeps the limiter script's reply in decaysAt.
         */
        private function limiterWindow(): ?int
        {
            foreach ($this->middleware as $middleware) {
                if ($middleware instanceof RateLimitedWithRedis && $middleware->decaysAt !== []) {
                    return (int) array_values($middleware->decaysAt)[0];
                }
            }
            return null;
        }
    }

    /** A probe whose class has displayName(): middleware keys then hash that name. */
    class NamedMiddlewareProbe extends MiddlewareProbe
    {
        public function displayName()
        {
            return 'Nightly probe';
        }
    }
}

namespace {
    use Illuminate\Cache\RateLimiter;
    use Illuminate\Cache\RateLimiting\Limit;
    use Illuminate\Container\Container;

    function larq_worker_setup(Container $app): void
    {
        $limiter = new RateLimiter($app->make(Illuminate\Contracts\Cache\Repository::class));
        $app->instance(RateLimiter::class, $limiter);
        foreach (json_decode(larq_env('LARQ_LIMITERS', '{}'), true) as $name => $l) {
            $limiter->for($name, fn () => new Limit($l['key'] ?? '', (int) $l['max'], (int) $l['decay']));
        }
    }

    if (realpath($_SERVER['SCRIPT_FILENAME'] ?? '') === __FILE__) {
        $app = larq_boot();
        larq_worker_setup($app);
        $ids = [];
        $app['events']->listen(Illuminate\Queue\Events\JobQueued::class, function ($e) use (&$ids) {
            $ids[] = $e->id;
        });
        $spec = json_decode($argv[1], true);
        foreach ($spec['jobs'] as $j) {
            $middleware = [];
            foreach ($j['middleware'] ?? [] as $m) {
                $class = 'Illuminate\\Queue\\Middleware\\' . $m['class'];
                $object = $m['static'] ?? null ? $class::{$m['static']}(...$m['args']) : new $class(...($m['args'] ?? []));
                foreach ($m['calls'] ?? [] as [$method, $args]) {
                    $object = $object->{$method}(...$args);
                }
                $middleware[] = $object;
            }
            $class = ($j['named'] ?? false) ? App\Jobs\NamedMiddlewareProbe::class : App\Jobs\MiddlewareProbe::class;
            $job = new $class($j['n'], $j['sleepMs'] ?? 0, $j['throw'] ?? false);
            $job->through($middleware);
            dispatch($job);
        }
        echo json_encode(['ids' => $ids]), "\n";
    }
}
