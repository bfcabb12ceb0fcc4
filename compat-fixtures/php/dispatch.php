<?php
// Dispatches one named scenario through real Laravel and prints one JSON object to stdout:
//   {scenario, before, after, ids, described, omitted}
// before, after: Laravel's clock (Unix seconds) just before and just after the dispatch, so every
// time Laravel read during it (a delayed job's due time minus its delay) lies in [before, after];
// ids: the id of every payload pushed, in push order (collected from JobQueued events); described:
// describe.php's description of every job object handed to Laravel, read AFTER dispatch (so what
// Laravel set on it, e.g. a chain's `chained`, shows), or of the data of a string job.
//
// Usage: php dispatch.php <scenario> [args...]   (environment: see bootstrap.php)
//   object-basic | object-scalars | object-enums | object-models | object-dates | object-tuned
//   object-encrypted | object-failing [tries] [reason] [backoff,list] | object-releasing [times] [delay]
//   object-sleep [seconds] | chain | chain-queueable | string-method | string-fire | raw
//   delayed [seconds=2] [queue] | bulk [n=3] | bulk-delayed [seconds=60] | on-queue <queue>
//   chain-node | unique [id] [queue] | model-missing [queue] | batch [failing step] | find-batch <id>
//   listener [queue] | closure | traced <traceparent> [tracestate] [queue]

declare(strict_types=1);

require __DIR__ . '/bootstrap.php';

use App\Jobs;
use App\Models\User;
use Illuminate\Queue\Events\JobQueued;
use Illuminate\Support\Carbon;
use Illuminate\Support\Facades\Bus;
use Illuminate\Support\Facades\Queue;

$app = larq_boot();

$ids = [];
$app['events']->listen(JobQueued::class, function (JobQueued $e) use (&$ids) {
    $ids[] = $e->id;
});

$scenario = $argv[1] ?? '';
$args = array_slice($argv, 2);
$bus = $app[Illuminate\Contracts\Bus\Dispatcher::class];

/** @return array{0: list<mixed>, 1: ?string} the dispatched values, and the id pushRaw returned */
function larq_run_scenario(string $scenario, array $args, $bus): array
{
    switch ($scenario) {
        case 'object-basic':
            // The dispatch() helper: a PendingDispatch that dispatches when it goes out of scope.
            $job = new Jobs\SendWelcomeEmail('ada@example.com', 'Welcome / “hi” \\ é', ['plan' => 'pro', 'seats' => 3]);
            dispatch($job);
            return [[$job], null];
        case 'object-scalars':
            $job = new Jobs\ScalarZoo();
            Queue::push($job);
            return [[$job], null];
        case 'object-enums':
            $job = new Jobs\EnumJob();
            $bus->dispatch($job);
            return [[$job], null];
        case 'object-models':
            $job = new Jobs\ModelJob(User::findOrFail(7), User::findMany([7, 8]));
            $bus->dispatch($job);
            return [[$job], null];
        case 'object-dates':
            $job = new Jobs\DateJob();
            $bus->dispatch($job);
            return [[$job], null];
        case 'object-tuned':
            $job = new Jobs\TunedJob();
            $bus->dispatch($job);
            return [[$job], null];
        case 'object-encrypted':
            $job = new Jobs\SecretJob();
            $bus->dispatch($job);
            return [[$job], null];
        case 'object-failing':
            $backoff = isset($args[2]) ? array_map('intval', explode(',', $args[2])) : null;
            $job = new Jobs\FailingJob($args[1] ?? 'boom', isset($args[0]) ? (int) $args[0] : null, $backoff);
            $bus->dispatch($job);
            return [[$job], null];
        case 'object-releasing':
            $job = new Jobs\ReleasingJob((int) ($args[0] ?? 1), (int) ($args[1] ?? 0));
            $bus->dispatch($job);
            return [[$job], null];
        case 'object-sleep':
            $job = new Jobs\SleepJob((float) ($args[0] ?? 1));
            $bus->dispatch($job);
            return [[$job], null];
        case 'on-queue':
            $job = (new Jobs\ChainStep(1))->onQueue($args[0] ?? 'default');
            $bus->dispatch($job);
            return [[$job], null];
        case 'chain':
            $steps = [new Jobs\ChainStep(1), new Jobs\ChainStep(2), new Jobs\ChainStep(3)];
            Bus::chain($steps)->onQueue('default')->dispatch();
            return [$steps, null];
        case 'chain-queueable':
            // The chain built on the job itself (Queueable::chain), as the recorded fixture was:
            // chainCatchCallbacks stays null, where Bus::chain sets it to [].
            $steps = [new Jobs\ChainStep(1), new Jobs\ChainStep(2), new Jobs\ChainStep(3)];
            $steps[0]->allOnQueue('default')->chain([$steps[1], $steps[2]]);
            $bus->dispatch($steps[0]);
            return [$steps, null];
        case 'string-method':
            $data = [
                'order' => 17, 'items' => ['a', 'b'], 'empty' => [], 'obj' => ['k' => 'v'],
                'big' => 12345678901234567, 'f' => 0.1, 'url' => 'https://x.test/a/b',
            ];
            Queue::push('App\\Handlers\\RawHandler@handle', $data);
            return [[$data], null];
        case 'string-fire':
            Queue::push('App\\Handlers\\RawHandler', 'just a string');
            return [['just a string'], null];
        case 'raw':
            // A hand-written payload: only what a string job needs.
            $id = 'raw-' . bin2hex(random_bytes(8));
            $payload = ['job' => 'App\\Handlers\\RawHandler@handle', 'data' => ['raw' => true], 'id' => $id, 'attempts' => 0];
            return [[$payload['data']], Queue::pushRaw(larq_json($payload))];
        case 'traced':
            // A request traced by an OpenTelemetry package: the W3C context goes into every payload as
            // top-level keys, merged the way keepsuit/laravel-opentelemetry merges them.
            Illuminate\Queue\Queue::createPayloadUsing(fn () => array_filter(['traceparent' => $args[0], 'tracestate' => $args[1] ?? null]));
            $job = new Jobs\SendWelcomeEmail('traced@example.com', 'Traced');
            dispatch($job)->onQueue($args[2] ?? null);
            return [[$job], null];
        case 'delayed':
            $job = new Jobs\SendWelcomeEmail('later@example.com', 'Later');
            Queue::later((int) ($args[0] ?? 2), $job, '', $args[1] ?? null);
            return [[$job], null];
        case 'bulk':
            $jobs = [];
            for ($i = 1, $n = (int) ($args[0] ?? 3); $i <= $n; $i++) {
                $jobs[] = new Jobs\ChainStep($i);
            }
            Queue::bulk($jobs);
            return [$jobs, null];
        case 'bulk-delayed':
            // Queue::bulk of ChainStep 1, 2 and 3, step 2 with ->delay(seconds): 8.x pushes all three at
            // once (bulk ignores a job's delay), 9.x+ schedules step 2 through later().
            $jobs = [new Jobs\ChainStep(1), (new Jobs\ChainStep(2))->delay((int) ($args[0] ?? 60)), new Jobs\ChainStep(3)];
            Queue::bulk($jobs);
            return [$jobs, null];
        case 'chain-node':
            // A 3-step chain whose middle step goes to the "node" queue (only larq works it).
            $steps = [new Jobs\ChainStep(1), (new Jobs\ChainStep(2))->onQueue('node'), new Jobs\ChainStep(3)];
            Bus::chain($steps)->onQueue('default')->dispatch();
            return [$steps, null];
        case 'unique':
            // UniqueJob($id) through the dispatch() helper (PendingDispatch takes the lock); ids is empty when skipped.
            $job = (new Jobs\UniqueJob($args[0] ?? 'u1'))->onQueue($args[1] ?? 'node');
            dispatch($job);
            return [[$job], null];
        case 'model-missing':
            // User 99 exists only in this process: the worker's database lacks it (deleteWhenMissingModels or not).
            User::query()->insert(['id' => 99, 'name' => 'Ghost', 'email' => 'ghost@example.com']);
            $deleting = (new Jobs\DeletingModelJob(User::findOrFail(99)))->onQueue($args[0] ?? 'default');
            $failing = (new Jobs\ModelJob(User::findOrFail(99), User::findMany([7])))->onQueue($args[0] ?? 'default');
            $bus->dispatch($deleting);
            $bus->dispatch($failing);
            return [[$deleting, $failing], null];
        case 'batch':
            // Bus::batch of 10 BatchStep (needs LARQ_BATCH_SQLITE); step $args[0] throws. described: [batch id].
            // (8.x's Batch::add pushes every job to the batch's queue, whatever the job's own queue says.)
            $fails = (int) ($args[0] ?? 0);
            $jobs = [];
            for ($i = 1; $i <= 10; $i++) {
                $jobs[] = new Jobs\BatchStep($i, $i === $fails);
            }
            $batch = Bus::batch($jobs)->name('larq-batch')->onQueue('default')->dispatch();
            fwrite(STDERR, "batch {$batch->id}\n");
            return [[$batch->id], null];
        case 'find-batch':
            // Bus::findBatch($args[0]) (needs LARQ_BATCH_SQLITE); described: [the batch's toArray(), or null].
            $batch = Bus::findBatch($args[0] ?? '');
            return [[$batch === null ? null : $batch->toArray()], null];
        case 'listener':
            // A queued listener: event(OrderShipped) with SendShipmentNotification listening (queue $args[0]).
            $events = Illuminate\Container\Container::getInstance()['events'];
            $events->setQueueResolver(fn () => Illuminate\Container\Container::getInstance()['queue']);
            $events->listen(App\Events\OrderShipped::class, App\Listeners\SendShipmentNotification::class);
            $event = new App\Events\OrderShipped((int) ($args[0] ?? 42));
            $events->dispatch($event);
            return [[$event], null];
        case 'closure':
            // The dispatch() helper queues a closure (CallQueuedClosure); the bus would run it at once.
            dispatch(function () {
                larq_record(['hook' => 'handle', 'class' => 'closure', 'time' => microtime(true)]);
            });
            return [[], null];
        default:
            fwrite(STDERR, "unknown scenario: {$scenario}\n");
            exit(2);
    }
}

$before = Carbon::now()->getTimestamp();
[$dispatched, $rawId] = larq_run_scenario($scenario, $args, $bus);
$after = Carbon::now()->getTimestamp();
if ($rawId !== null) {
    $ids[] = $rawId; // pushRaw fires no JobQueued event
}

echo larq_json([
    'scenario' => $scenario,
    'before' => $before,
    'after' => $after,
    'ids' => $ids,
    'described' => array_map(fn ($value) => larq_describe($value), $dispatched),
    'omitted' => array_map(fn ($value) => larq_omitted_properties($value), $dispatched),
]), "\n";
