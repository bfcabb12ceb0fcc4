<?php

namespace Shop\Jobs;

use Illuminate\Bus\Queueable;
use Illuminate\Contracts\Queue\ShouldQueue;
use Illuminate\Foundation\Bus\Dispatchable;
use Illuminate\Queue\InteractsWithQueue;
use Illuminate\Queue\SerializesModels;
use Shop\Enums\Priority;

class ArchiveOrder implements ShouldQueue
{
    use Dispatchable, InteractsWithQueue, Queueable, SerializesModels;

    public readonly int $orderId;
    public readonly Priority $priority;

    public function __construct(int $orderId, Priority $priority)
    {
        $this->orderId = $orderId;
        $this->priority = $priority;
    }

    public function middleware(): array
    {
        return [];
    }

    public function handle(): void
    {
        if (function_exists('larq_record_command')) {
            larq_record_command($this);
        }
    }
}
