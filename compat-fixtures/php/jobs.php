<?php
// The classes the interop tests queue, shaped like the recorded fixtures
// (compat-fixtures/laravel/8.x). Every handler appends one JSON line to the file named by
// LARQ_RECORD (nothing is written when it is unset):
//   {hook, class, time, attempts, queue, connection, jobId, uuid, name, pid, description}
// hook: "handle" | "fire" (string jobs) | "failed" (a command's failed() hook); time: microtime(true)
// when the handler ran; description: describe.php's description of the command ($this), or of
// $data for string jobs. The failed hook has no live job: attempts, queue, ... are null there, and
// it adds exception: {class, message}.

declare(strict_types=1);

namespace {
    /** Appends one record line to LARQ_RECORD. */
    function larq_record(array $record): void
    {
        $file = getenv('LARQ_RECORD');
        if ($file === false || $file === '') {
            return;
        }
        file_put_contents($file, larq_json($record) . "\n", FILE_APPEND | LOCK_EX);
    }

    /** What a handler knows about the queue job running it, for its record. */
    function larq_job_fields(?Illuminate\Contracts\Queue\Job $job): array
    {
        $fields = [
            'attempts' => $job?->attempts(),
            'queue' => $job?->getQueue(),
            'connection' => $job?->getConnectionName(),
            'jobId' => $job?->getJobId(),
            'uuid' => $job?->uuid(),
            'name' => $job?->resolveName(),
        ];
        // The W3C trace context the OpenTelemetry packages' worker would extract from the payload.
        $payload = $job?->payload() ?? [];
        foreach (['traceparent', 'tracestate'] as $key) {
            if (isset($payload[$key])) {
                $fields[$key] = $payload[$key];
            }
        }
        return $fields;
    }

    /** Records a command's handle() call: the command as it arrived, the queue job that ran it. */
    function larq_record_command(object $command, string $hook = 'handle', ?Throwable $e = null): void
    {
        $job = $command->job ?? null;
        $job = $job instanceof Illuminate\Contracts\Queue\Job ? $job : null;
        $record = ['hook' => $hook, 'class' => get_class($command), 'time' => microtime(true)]
            + larq_job_fields($job)
            + ['pid' => getmypid(), 'description' => larq_describe($command, $job)];
        if ($e !== null) {
            $record['exception'] = ['class' => get_class($e), 'message' => $e->getMessage()];
        }
        larq_record($record);
    }
}

namespace App\Enums {
    enum Status: string
    {
        case Active = 'active';
        case Closed = 'closed';
    }

    enum Level: int
    {
        case Low = 1;
        case High = 3;
    }

    enum Flag
    {
        case On;
        case Off;
    }
}

namespace App\Models {
    use Illuminate\Database\Eloquent\Model;

    /** Rows 7, 8 and 9 exist in every process (bootstrap.php seeds them). */
    class User extends Model
    {
        protected $table = 'users';
        protected $guarded = [];
        public $timestamps = false;
    }
}

namespace App\Jobs {
    use App\Enums\Flag;
    use App\Enums\Level;
    use App\Enums\Status;
    use App\Models\User;
    use DateTime;
    use DateTimeImmutable;
    use DateTimeZone;
    use Illuminate\Bus\Queueable;
    use Illuminate\Contracts\Queue\ShouldBeEncrypted;
    use Illuminate\Contracts\Queue\ShouldQueue;
    use Illuminate\Database\Eloquent\Collection;
    use Illuminate\Foundation\Bus\Dispatchable;
    use Illuminate\Queue\InteractsWithQueue;
    use Illuminate\Queue\SerializesModels;
    use RuntimeException;
    use Throwable;

    /** A public, a protected and a private property (object-basic.json). */
    class SendWelcomeEmail implements ShouldQueue
    {
        use Dispatchable, Queueable, InteractsWithQueue, SerializesModels;

        public $to;
        protected $subject;
        private $meta;

        public function __construct($to, $subject, $meta = null)
        {
            $this->to = $to;
            $this->subject = $subject;
            $this->meta = $meta;
        }

        public function handle(): void
        {
            larq_record_command($this);
        }
    }

    /** Every scalar kind (object-scalars.json). */
    class ScalarZoo implements ShouldQueue
    {
        use Dispatchable, Queueable, InteractsWithQueue, SerializesModels;

        public $s;
        public $unicode;
        public $i;
        public $neg;
        public $big;
        public $f;
        public $whole;
        public $tiny;
        public $huge;
        public $yes;
        public $no;
        public $nothing;
        public $list;
        public $map;
        public $empty;
        public $nested;

        public function __construct()
        {
            $this->s = "line1\nline2\t\"quoted\" back\\slash /slash \0nul";
            $this->unicode = 'naïve café 日本語 😀';
            $this->i = 42;
            $this->neg = -7;
            $this->big = 9007199254740993;
            $this->f = 1.5;
            $this->whole = 2.0;
            $this->tiny = 0.1;
            $this->huge = 1.0E+25;
            $this->yes = true;
            $this->no = false;
            $this->nothing = null;
            $this->list = [1, 'two', 3.0, null, true];
            $this->map = ['a' => 1, 'b' => ['c' => 'd']];
            $this->empty = [];
            $this->nested = [[1, [2, [3]]], ['k' => []]];
        }

        public function handle(): void
        {
            larq_record_command($this);
        }
    }

    /** Backed and pure enums, also inside an array (object-enums.json). */
    class EnumJob implements ShouldQueue
    {
        use Dispatchable, Queueable, InteractsWithQueue, SerializesModels;

        public $status;
        public $level;
        public $flag;
        public $list;

        public function __construct()
        {
            $this->status = Status::Active;
            $this->level = Level::High;
            $this->flag = Flag::Off;
            $this->list = [Status::Closed, Level::Low];
        }

        public function handle(): void
        {
            larq_record_command($this);
        }
    }

    /** A model and a collection, which SerializesModels turns into ModelIdentifier (object-models.json). */
    class ModelJob implements ShouldQueue
    {
        use Dispatchable, Queueable, InteractsWithQueue, SerializesModels;

        public $user;
        public $users;

        public function __construct(User $user, Collection $users)
        {
            $this->user = $user;
            $this->users = $users;
        }

        public function handle(): void
        {
            larq_record_command($this);
        }
    }

    /** Dates with a named zone and microseconds, and with an offset (object-dates.json). */
    class DateJob implements ShouldQueue
    {
        use Dispatchable, Queueable, InteractsWithQueue, SerializesModels;

        public $at;
        public $atUtc;

        public function __construct()
        {
            $this->at = new DateTimeImmutable('2026-03-04 05:06:07.123456', new DateTimeZone('Europe/Amsterdam'));
            $this->atUtc = new DateTime('2026-03-04T05:06:07+00:00');
        }

        public function handle(): void
        {
            larq_record_command($this);
        }
    }

    /** One link of a chain, also used for bulk (object-chain.json, bulk.json). */
    class ChainStep implements ShouldQueue
    {
        use Dispatchable, Queueable, InteractsWithQueue, SerializesModels;

        public $step;

        public function __construct(int $step)
        {
            $this->step = $step;
        }

        public function handle(): void
        {
            larq_record_command($this);
        }
    }

    /** data.command is encrypted with the APP_KEY (object-encrypted.json). */
    class SecretJob implements ShouldQueue, ShouldBeEncrypted
    {
        use Dispatchable, Queueable, InteractsWithQueue, SerializesModels;

        public $card;

        public function __construct($card = '4242 4242 4242 4242')
        {
            $this->card = $card;
        }

        public function handle(): void
        {
            larq_record_command($this);
        }
    }

    /** Every payload knob a job can turn (object-tuned.json). */
    class TunedJob implements ShouldQueue
    {
        use Dispatchable, Queueable, InteractsWithQueue, SerializesModels;

        public $tries = 5;
        public $timeout = 30;
        public $maxExceptions = 2;
        public $failOnTimeout = true;
        public $backoff = [1, 5, 10];
        public $payload;

        public function __construct($payload = ['x' => 1])
        {
            $this->payload = $payload;
        }

        public function retryUntil(): int
        {
            return 1900000000;
        }

        public function displayName(): string
        {
            return 'Tuned job (custom display name)';
        }

        public function handle(): void
        {
            larq_record_command($this);
        }
    }

    /** Records, then throws $reason. failed() records too (hook "failed"). */
    class FailingJob implements ShouldQueue
    {
        use Dispatchable, Queueable, InteractsWithQueue, SerializesModels;

        public $reason;
        public $tries;
        public $backoff;

        public function __construct($reason = 'boom', $tries = null, $backoff = null)
        {
            $this->reason = $reason;
            $this->tries = $tries;
            $this->backoff = $backoff;
        }

        public function handle(): void
        {
            larq_record_command($this);
            throw new RuntimeException($this->reason);
        }

        public function failed(?Throwable $e): void
        {
            larq_record_command($this, 'failed', $e);
        }
    }

    /** Records, then releases itself (delay seconds) while attempts() <= $times. */
    class ReleasingJob implements ShouldQueue
    {
        use Dispatchable, Queueable, InteractsWithQueue, SerializesModels;

        public $times;
        public $releaseDelay;
        public $tries = 0;

        public function __construct($times = 1, $releaseDelay = 0)
        {
            $this->times = $times;
            $this->releaseDelay = $releaseDelay;
        }

        public function handle(): void
        {
            larq_record_command($this);
            if ($this->attempts() <= $this->times) {
                $this->release($this->releaseDelay);
            }
        }
    }

    /** Sleeps $seconds, then records: for timeouts and long runs. */
    class SleepJob implements ShouldQueue
    {
        use Dispatchable, Queueable, InteractsWithQueue, SerializesModels;

        public $seconds;

        public function __construct($seconds = 1.0)
        {
            $this->seconds = $seconds;
        }

        public function handle(): void
        {
            usleep((int) round($this->seconds * 1000000));
            larq_record_command($this);
        }
    }
}

namespace App\Handlers {
    /** Handler of classic string jobs ("Class@method", or "Class" for fire). */
    class RawHandler
    {
        public function handle($job, $data): void
        {
            $this->record('handle', $job, $data);
            $job->delete();
        }

        public function fire($job, $data): void
        {
            $this->record('fire', $job, $data);
            $job->delete();
        }

        private function record(string $hook, $job, $data): void
        {
            larq_record(['hook' => $hook, 'class' => self::class, 'time' => microtime(true)]
                + larq_job_fields($job)
                + ['pid' => getmypid(), 'description' => larq_describe($data)]);
        }
    }
}

// ---- Job features (lib/features): unique jobs, missing models, batches, queued listeners ----

namespace App\Jobs {
    use App\Models\User;
    use Illuminate\Bus\Batchable;
    use Illuminate\Bus\Queueable;
    use Illuminate\Contracts\Queue\ShouldBeUnique;
    use Illuminate\Contracts\Queue\ShouldQueue;
    use Illuminate\Foundation\Bus\Dispatchable;
    use Illuminate\Queue\InteractsWithQueue;
    use Illuminate\Queue\SerializesModels;
    use RuntimeException;

    /** ShouldBeUnique by its uniqueId property; lock forever (uniqueFor 0). */
    class UniqueJob implements ShouldQueue, ShouldBeUnique
    {
        use Dispatchable, Queueable, InteractsWithQueue, SerializesModels;

        public $uniqueId;

        public function __construct(string $uniqueId)
        {
            $this->uniqueId = $uniqueId;
        }

        public function handle(): void
        {
            larq_record_command($this);
        }
    }

    /** A model job that is deleted, not failed, when its model is gone. */
    class DeletingModelJob implements ShouldQueue
    {
        use Dispatchable, Queueable, InteractsWithQueue, SerializesModels;

        public $deleteWhenMissingModels = true;
        public $user;

        public function __construct(User $user)
        {
            $this->user = $user;
        }

        public function handle(): void
        {
            larq_record_command($this);
        }
    }

    /** One job of a batch; throws when $fails. */
    class BatchStep implements ShouldQueue
    {
        use Batchable, Dispatchable, Queueable, InteractsWithQueue, SerializesModels;

        public $n;
        public $fails;

        public function __construct(int $n, bool $fails = false)
        {
            $this->n = $n;
            $this->fails = $fails;
        }

        public function handle(): void
        {
            larq_record_command($this);
            if ($this->fails) {
                throw new RuntimeException("batch step {$this->n} failed");
            }
        }
    }
}

namespace App\Events {
    use Illuminate\Foundation\Events\Dispatchable;
    use Illuminate\Queue\SerializesModels;

    class OrderShipped
    {
        use Dispatchable, SerializesModels;

        public $orderId;

        public function __construct(int $orderId)
        {
            $this->orderId = $orderId;
        }
    }
}

namespace App\Listeners {
    use App\Events\OrderShipped;
    use Illuminate\Contracts\Queue\ShouldQueue;
    use Illuminate\Queue\InteractsWithQueue;

    /** A queued listener (queued-listener.json's class); records the event it got. */
    class SendShipmentNotification implements ShouldQueue
    {
        use InteractsWithQueue;

        public $tries = 4;

        public function handle(OrderShipped $event): void
        {
            $job = $this->job instanceof \Illuminate\Contracts\Queue\Job ? $this->job : null;
            larq_record(['hook' => 'handle', 'class' => self::class, 'time' => microtime(true)]
                + larq_job_fields($job)
                + ['pid' => getmypid(), 'description' => larq_describe($event)]);
        }
    }
}
