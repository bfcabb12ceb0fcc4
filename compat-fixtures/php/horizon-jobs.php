<?php
// The jobs of the Horizon specs (their Node twins: spec/support/cli/horizonHandlers.ts), loaded by
// horizon.php once Horizon's classes can be (QuietJob implements its Silenced contract).

declare(strict_types=1);

namespace App\Jobs\Horizon;

use App\Models\User;
use Illuminate\Bus\Queueable;
use Illuminate\Contracts\Queue\ShouldQueue;
use Illuminate\Foundation\Bus\Dispatchable;
use Illuminate\Queue\InteractsWithQueue;
use Illuminate\Queue\SerializesModels;
use Laravel\Horizon\Contracts\Silenced;
use RuntimeException;

/** Succeeds; tagged by its tags() method. */
class TaggedJob implements ShouldQueue
{
    use Dispatchable, Queueable, InteractsWithQueue, SerializesModels;

    public function __construct(public int $order = 1)
    {
    }

    public function tags(): array
    {
        return ['billing', 'order:' . $this->order];
    }

    public function handle(): void
    {
    }
}

/** Throws; tagged by its tags() method. */
class FailingTaggedJob implements ShouldQueue
{
    use Dispatchable, Queueable, InteractsWithQueue, SerializesModels;

    public function __construct(public string $reason = 'refund refused')
    {
    }

    public function tags(): array
    {
        return ['billing', 'refund'];
    }

    public function handle(): void
    {
        throw new RuntimeException($this->reason);
    }
}

/** Throws; no tags() method, so Tags::for tags it with its model ("App\Models\User:7"). */
class ModelFailingJob implements ShouldQueue
{
    use Dispatchable, Queueable, InteractsWithQueue, SerializesModels;

    public function __construct(public User $user)
    {
    }

    public function handle(): void
    {
        throw new RuntimeException('card declined');
    }
}

/** Succeeds, silenced by the Silenced contract. */
class QuietJob implements ShouldQueue, Silenced
{
    use Dispatchable, Queueable, InteractsWithQueue, SerializesModels;

    public function handle(): void
    {
    }
}

/** Releases itself on its first attempt, then succeeds. */
class ReleasingOnceJob implements ShouldQueue
{
    use Dispatchable, Queueable, InteractsWithQueue, SerializesModels;

    public $tries = 3;

    public function handle(): void
    {
        if ($this->attempts() === 1) {
            $this->release(0);
        }
    }
}

/** Succeeds; dispatched with a delay. */
class LaterJob implements ShouldQueue
{
    use Dispatchable, Queueable, InteractsWithQueue, SerializesModels;

    public function handle(): void
    {
    }
}
