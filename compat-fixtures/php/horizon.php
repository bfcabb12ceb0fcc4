<?php
// Laravel Horizon 5.29.1 on the harness's Laravel 12.67 or 13.26, booted by hand as its
// HorizonServiceProvider would (there is no Laravel application here): bootstrap.php requires this file
// and calls larq_configure_horizon() before the Redis manager exists and larq_register_horizon() after
// the queue manager, when LARQ_HORIZON is set. Horizon runs unpatched; what had to be supplied:
//
//   - an autoloader mapping Laravel\Horizon\ onto src/ of the release unpacked into
//     .cache/laravel/horizon-5.29 (scripts/unpack-laravel; LARQ_HORIZON_SRC names another folder);
//   - Debian's phpdotenv (/usr/share/php/Dotenv), which Illuminate\Support\Env needs for the env() calls
//     of Horizon's config/horizon.php (its `prefix`: HORIZON_PREFIX, else Str::slug(APP_NAME, '_')
//     . '_horizon:');
//   - the PHP 8.4 functions laravel.php already defines (Horizon calls none of its own);
//   - the provider's work, done here: the `horizon` config merged from config/horizon.php (with the
//     harness's overrides in LARQ_HORIZON_CONFIG, JSON), Horizon::use('default') (the `horizon` Redis
//     connection), ServiceBindings' singletons, EventMap's listeners, and Horizon's RedisConnector for
//     the queue driver `redis`.
//
// Environment (besides bootstrap.php's):
//   LARQ_HORIZON         set (any value): boot Horizon
//   LARQ_HORIZON_SRC     the unpacked laravel/horizon release (default .cache/laravel/horizon-5.29)
//   LARQ_HORIZON_CONFIG  JSON merged over config/horizon.php (e.g. {"silenced": ["App\\Jobs\\X"]})
//   HORIZON_PREFIX, APP_NAME  as in an app's .env

declare(strict_types=1);

/** The folder of the unpacked Horizon release. */
function larq_horizon_root(): string
{
    $root = larq_env('LARQ_HORIZON_SRC', dirname(__DIR__, 2) . '/.cache/laravel/horizon-5.29');
    if (!is_file($root . '/src/RedisQueue.php')) {
        fwrite(STDERR, "Laravel Horizon is not unpacked at {$root} (run scripts/setup; it needs ../shared/laravel)\n");
        exit(3);
    }
    return $root;
}

/** Horizon's classes and its config; call before the Redis manager is built (Horizon::use edits database.redis). */
function larq_configure_horizon(Illuminate\Config\Repository $config): void
{
    if (larq_laravel_major() < 12) {
        fwrite(STDERR, "the Horizon harness runs on Laravel 12.67 and 13.26 only\n");
        exit(3);
    }
    $src = larq_horizon_root() . '/src/';
    spl_autoload_register(static function (string $class) use ($src): void {
        if (str_starts_with($class, 'Laravel\\Horizon\\')) {
            $file = $src . str_replace('\\', '/', substr($class, strlen('Laravel\\Horizon\\'))) . '.php';
            if (is_file($file)) {
                require $file;
            }
        }
    });
    require_once '/usr/share/php/Dotenv/autoload.php';

    $horizon = require larq_horizon_root() . '/config/horizon.php';
    $overrides = json_decode(larq_env('LARQ_HORIZON_CONFIG', '{}'), true, 512, JSON_THROW_ON_ERROR);
    $config->set('horizon', array_replace_recursive($horizon, $overrides));
    Laravel\Horizon\Horizon::use($config->get('horizon.use', 'default'));
    require_once __DIR__ . '/horizon-jobs.php';
}

/** ServiceBindings, EventMap and the `redis` queue connector, as HorizonServiceProvider registers them. */
function larq_register_horizon(Illuminate\Container\Container $app): void
{
    $provider = new class () {
        use Laravel\Horizon\EventMap;
        use Laravel\Horizon\ServiceBindings;

        public function events(): array
        {
            return $this->events;
        }

        public function bindings(): array
        {
            return $this->serviceBindings;
        }
    };
    foreach ($provider->bindings() as $key => $value) {
        is_numeric($key) ? $app->singleton($value) : $app->singleton($key, $value);
    }
    foreach ($provider->events() as $event => $listeners) {
        foreach ($listeners as $listener) {
            $app['events']->listen($event, $listener);
        }
    }
    $app['queue']->addConnector('redis', fn () => new Laravel\Horizon\Connectors\RedisConnector($app['redis']));
}
