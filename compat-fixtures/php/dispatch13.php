<?php
// Dispatches one scenario of the Laravel 12/13 feature specs through real Laravel and prints
// {scenario, now, ids, keys} (ids: the pushed payloads' ids from JobQueued events, in push order;
// keys: cache keys the scenario names, e.g. the unique lock key Laravel computed).
//
// Usage: php dispatch13.php <scenario> [args...]   (environment: see bootstrap.php)
//   unique-step <id> <queue>       UniqueStep(id) through the dispatch() helper (takes the lock, or skips)
//   chain-unique <id>              Bus::chain([ChainStep(1) on queue "node", UniqueStep(id)])->onQueue('php')
//   named-unique <id> <queue>      NamedUniqueJob(id) through dispatch(); keys: [UniqueLock::getKey]
//   debounced <id> <count> [queue] DebouncedJob(id, 1..count) through dispatch() (13.6+), each superseding the last
//   manual-fail [queue]            ManualFailJob(1) through dispatch(): its handle() calls $this->fail()
//   pause-all | resume-all         Queue::pauseAll() / Queue::resumeAll() (13.25+: queue:pause --all)
//   pause <queue> | resume <queue> Queue::pause('redis', queue) / Queue::resume('redis', queue) (12.40+)
//   flaky <n> [queue]              FlakyJob(n) through dispatch(): throws every run, maxExceptions 2 of tries 5
//   restart                        Laravel's own queue:restart (RestartCommand::handle, console.php)

declare(strict_types=1);

require __DIR__ . '/bootstrap.php';
require_once __DIR__ . '/jobs13.php';
require_once __DIR__ . '/console.php';

use App\Jobs;
use Illuminate\Bus\UniqueLock;
use Illuminate\Queue\Events\JobQueued;
use Illuminate\Support\Carbon;
use Illuminate\Support\Facades\Bus;

$app = larq_boot();

$ids = [];
$app['events']->listen(JobQueued::class, function (JobQueued $e) use (&$ids) {
    $ids[] = $e->id;
});

$scenario = $argv[1] ?? '';
$args = array_slice($argv, 2);
$keys = [];

switch ($scenario) {
    case 'unique-step':
        dispatch((new Jobs\UniqueStep($args[0] ?? 'u1'))->onQueue($args[1] ?? 'php'));
        break;
    case 'chain-unique':
        Bus::chain([(new Jobs\ChainStep(1))->onQueue('node'), new Jobs\UniqueStep($args[0] ?? 'u1')])->onQueue('php')->dispatch();
        break;
    case 'named-unique':
        $job = (new Jobs\NamedUniqueJob($args[0] ?? 'n1'))->onQueue($args[1] ?? 'node');
        $keys[] = method_exists(UniqueLock::class, 'getKey') ? UniqueLock::getKey($job) : null; // 8.x: not public
        dispatch($job);
        break;
    case 'debounced':
        for ($n = 1; $n <= (int) ($args[1] ?? 3); $n++) {
            dispatch((new Jobs\DebouncedJob($args[0] ?? 'd1', $n))->onQueue($args[2] ?? 'node'));
        }
        break;
    case 'manual-fail':
        dispatch((new Jobs\ManualFailJob(1))->onQueue($args[0] ?? 'default'));
        break;
    case 'pause-all':
        $app['queue']->pauseAll();
        break;
    case 'resume-all':
        $app['queue']->resumeAll();
        break;
    case 'pause':
        $app['queue']->pause('redis', $args[0] ?? 'default');
        break;
    case 'resume':
        $app['queue']->resume('redis', $args[0] ?? 'default');
        break;
    case 'flaky':
        dispatch((new Jobs\FlakyJob((int) ($args[0] ?? 1)))->onQueue($args[1] ?? 'default'));
        break;
    case 'restart':
        $command = new Illuminate\Queue\Console\RestartCommand($app['cache.store']);
        $command->setLaravel($app);
        larq_run_command($command, [], new Symfony\Component\Console\Output\BufferedOutput());
        break;
    default:
        fwrite(STDERR, "unknown scenario: {$scenario}\n");
        exit(2);
}

echo larq_json(['scenario' => $scenario, 'now' => Carbon::now()->getTimestamp(), 'ids' => $ids, 'keys' => $keys]), "\n";
