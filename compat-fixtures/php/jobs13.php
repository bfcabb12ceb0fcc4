<?php
// Job classes for the Laravel 12/13 feature specs (unique chain steps, displayName lock keys, debounced
// jobs), beside jobs.php's. dispatch13.php requires this file; a worker.php run loads it through
// autoload13.php (see that file), so the worker can unserialize these classes.

declare(strict_types=1);

namespace App\Jobs {
    use Illuminate\Bus\Queueable;
    use Illuminate\Contracts\Queue\ShouldBeUnique;
    use Illuminate\Contracts\Queue\ShouldQueue;
    use Illuminate\Foundation\Bus\Dispatchable;
    use Illuminate\Queue\Attributes\DebounceFor;
    use Illuminate\Queue\InteractsWithQueue;
    use Illuminate\Queue\SerializesModels;

    /** A ShouldBeUnique job, also used as a chain step. */
    class UniqueStep implements ShouldQueue, ShouldBeUnique
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

    /** A ShouldBeUnique job with a displayName() method: 12.41+ lock keys name it (12.54+ hashed with xxh128). */
    class NamedUniqueJob implements ShouldQueue, ShouldBeUnique
    {
        use Dispatchable, Queueable, InteractsWithQueue, SerializesModels;

        public $uniqueId;

        public function __construct(string $uniqueId)
        {
            $this->uniqueId = $uniqueId;
        }

        public function displayName(): string
        {
            return 'Nightly report ' . $this->uniqueId;
        }

        public function handle(): void
        {
            larq_record_command($this);
        }
    }

    /** A debounced job (13.6+): each dispatch supersedes the queued ones with the same debounceId. */
    #[DebounceFor(30)]
    class DebouncedJob implements ShouldQueue
    {
        use Dispatchable, Queueable, InteractsWithQueue, SerializesModels;

        public $debounceId;

        public $n;

        public function __construct(string $debounceId, int $n)
        {
            $this->debounceId = $debounceId;
            $this->n = $n;
        }

        public function handle(): void
        {
            larq_record_command($this);
        }
    }

    /**
     * Records, then throws: tries 5 but maxExceptions 2, so the worker fails it on its second exception,
     * counted in the cache (job-exceptions:{uuid}) whichever worker threw the first.
     */
    class FlakyJob implements ShouldQueue
    {
        use Dispatchable, Queueable, InteractsWithQueue, SerializesModels;

        public $tries = 5;

        public $maxExceptions = 2;

        public $n;

        public function __construct(int $n)
        {
            $this->n = $n;
        }

        public function handle(): void
        {
            larq_record_command($this);
            throw new \RuntimeException("flaky {$this->n}");
        }

        public function failed(?\Throwable $e): void
        {
            larq_record_command($this, 'failed', $e);
        }
    }

    /** Fails itself without an exception ($this->fail()); its failed() hook records what it was given. */
    class ManualFailJob implements ShouldQueue
    {
        use Dispatchable, Queueable, InteractsWithQueue, SerializesModels;

        public $n;

        public function __construct(int $n)
        {
            $this->n = $n;
        }

        public function handle(): void
        {
            $this->fail();
        }

        public function failed(?\Throwable $e): void
        {
            larq_record_command($this, 'failed', $e);
        }
    }
}
