<?php
// Horizon 5.29.1 on Laravel 12.67/13.26 (horizon.php boots it; LARQ_HORIZON need not be set for this
// script), driven from the specs. Prints one JSON object to stdout.
//
// Usage: php horizon-cli.php <command> [args...]   (environment: bootstrap.php's and horizon.php's)
//   boot                  {version, prefix, queue}: Horizon's prefix and the queue connection's class
//   monitor <tag>...      TagRepository::monitor each tag; {monitoring}
//   dispatch <scenario>   dispatch through Horizon's RedisQueue; {ids}: each JobPushed payload's id
//       jobs      TaggedJob, FailingTaggedJob, ModelFailingJob(User 7), QuietJob, ReleasingOnceJob,
//                 and LaterJob delayed 1 s, in that order
//       one       one TaggedJob
//       unicode   one FailingTaggedJob whose reason is non-ASCII, with a slash and a backslash
//   supervisors           {masters, supervisors, workload}: MasterSupervisorRepository::all(),
//                         SupervisorRepository::all(), WorkloadRepository::get()
//   artisan <command>     runs horizon:pause, horizon:continue or horizon:terminate (its handle()); {output}
//   read [tag...]         what Horizon's repositories answer, read in this order: the job lists and
//                         counts, throughput and runtime of every measured job and queue, then
//                         snapshot() and measuredJobs/measuredQueues/snapshots after it, and the tag
//                         repository (monitoring, and jobs() and count() of each tag given)

declare(strict_types=1);

putenv('LARQ_HORIZON=1');
require __DIR__ . '/bootstrap.php';

use App\Jobs\Horizon;
use App\Models\User;
use Laravel\Horizon\Contracts\JobRepository;
use Laravel\Horizon\Contracts\MetricsRepository;
use Laravel\Horizon\Contracts\TagRepository;
use Laravel\Horizon\Events\JobPushed;

$app = larq_boot();
$command = $argv[1] ?? '';
$args = array_slice($argv, 2);

/** A Horizon job record (stdClass of RedisJobRepository::$keys + index) as an array. */
function larq_horizon_record(object $job): array
{
    return (array) $job;
}

/** @param iterable<object> $jobs */
function larq_horizon_records(iterable $jobs): array
{
    $out = [];
    foreach ($jobs as $job) {
        $out[] = larq_horizon_record($job);
    }
    return $out;
}

switch ($command) {
    case 'boot':
        $out = [
            'version' => json_decode((string) file_get_contents(larq_horizon_root() . '/composer.json'), true)['version'] ?? '5.29.1',
            'prefix' => $app['config']['horizon.prefix'],
            'queue' => get_class($app['queue']->connection('redis')),
        ];
        break;
    case 'monitor':
        $tags = $app[TagRepository::class];
        foreach ($args as $tag) {
            $tags->monitor($tag);
        }
        $out = ['monitoring' => $tags->monitoring()];
        break;
    case 'dispatch':
        $ids = [];
        $app['events']->listen(JobPushed::class, function (JobPushed $e) use (&$ids) {
            $ids[] = $e->payload->id();
        });
        match ($args[0] ?? '') {
            'jobs' => (function () {
                dispatch(new Horizon\TaggedJob(42));
                dispatch(new Horizon\FailingTaggedJob());
                dispatch(new Horizon\ModelFailingJob(User::findOrFail(7)));
                dispatch(new Horizon\QuietJob());
                dispatch(new Horizon\ReleasingOnceJob());
                dispatch((new Horizon\LaterJob())->delay(1));
            })(),
            'one' => dispatch(new Horizon\TaggedJob(1)),
            'unicode' => dispatch(new Horizon\FailingTaggedJob('déjà vu / “quoted” \\ ok')),
            default => throw new InvalidArgumentException("unknown scenario: " . ($args[0] ?? '')),
        };
        // PendingDispatch dispatches on destruction: the closures above have returned by now.
        gc_collect_cycles();
        $out = ['ids' => $ids];
        break;
    case 'supervisors':
        $out = [
            'masters' => array_values(array_map(fn ($m) => (array) $m, $app[Laravel\Horizon\Contracts\MasterSupervisorRepository::class]->all())),
            'supervisors' => array_values(array_map(fn ($s) => (array) $s, $app[Laravel\Horizon\Contracts\SupervisorRepository::class]->all())),
            'workload' => $app[Laravel\Horizon\Contracts\WorkloadRepository::class]->get(),
        ];
        break;
    case 'artisan':
        require_once __DIR__ . '/console.php';
        $class = match ($args[0] ?? '') {
            'horizon:pause' => Laravel\Horizon\Console\PauseCommand::class,
            'horizon:continue' => Laravel\Horizon\Console\ContinueCommand::class,
            'horizon:terminate' => Laravel\Horizon\Console\TerminateCommand::class,
            default => throw new InvalidArgumentException('unknown command: ' . ($args[0] ?? '')),
        };
        $output = new Symfony\Component\Console\Output\BufferedOutput();
        $status = larq_run_command(new $class(), [], $output, $app);
        $out = ['status' => $status, 'output' => $output->fetch()];
        break;
    case 'read':
        $jobs = $app[JobRepository::class];
        $metrics = $app[MetricsRepository::class];
        $tags = $app[TagRepository::class];
        $out = [
            'recent' => larq_horizon_records($jobs->getRecent()),
            'pending' => larq_horizon_records($jobs->getPending()),
            'completed' => larq_horizon_records($jobs->getCompleted()),
            'silenced' => larq_horizon_records($jobs->getSilenced()),
            'failed' => larq_horizon_records($jobs->getFailed()),
            'counts' => [
                'recent' => $jobs->countRecent(),
                'pending' => $jobs->countPending(),
                'completed' => $jobs->countCompleted(),
                'silenced' => $jobs->countSilenced(),
                'failed' => $jobs->countFailed(),
                'recentlyFailed' => $jobs->countRecentlyFailed(),
            ],
        ];
        $measured = ['jobs' => [], 'queues' => []];
        foreach ($metrics->measuredJobs() as $job) {
            $measured['jobs'][$job] = ['throughput' => $metrics->throughputForJob($job), 'runtime' => $metrics->runtimeForJob($job)];
        }
        foreach ($metrics->measuredQueues() as $queue) {
            $measured['queues'][$queue] = ['throughput' => $metrics->throughputForQueue($queue), 'runtime' => $metrics->runtimeForQueue($queue)];
        }
        $out['metrics'] = $measured;
        $metrics->snapshot();
        $out['afterSnapshot'] = [
            'measuredJobs' => $metrics->measuredJobs(),
            'measuredQueues' => $metrics->measuredQueues(),
            'jobs' => array_map(fn ($job) => $metrics->snapshotsForJob($job), array_combine($metrics->measuredJobs(), $metrics->measuredJobs()) ?: []),
            'queues' => array_map(fn ($queue) => $metrics->snapshotsForQueue($queue), array_combine($metrics->measuredQueues(), $metrics->measuredQueues()) ?: []),
        ];
        $out['tags'] = ['monitoring' => $tags->monitoring(), 'jobs' => [], 'count' => []];
        foreach ($args as $tag) {
            $out['tags']['jobs'][$tag] = $tags->jobs($tag);
            $out['tags']['count'][$tag] = $tags->count($tag);
        }
        break;
    default:
        fwrite(STDERR, "usage: php horizon-cli.php boot|monitor|dispatch|read ...\n");
        exit(2);
}

echo larq_json($out), "\n";
