<?php

namespace Shop\Jobs;

use Illuminate\Bus\Queueable;
use Illuminate\Contracts\Queue\ShouldQueue;
use Illuminate\Foundation\Bus\Dispatchable;
use Illuminate\Queue\InteractsWithQueue;
use Illuminate\Queue\SerializesModels;
use Shop\Enums\Channel;
use Shop\Enums\Priority;

class NotifyChannel implements ShouldQueue
{
    use Dispatchable, InteractsWithQueue, Queueable, SerializesModels;

    public Priority $priority = Priority::Low;

    public function __construct(public Channel $channel)
    {
    }

    public function handle(): void
    {
        if (function_exists('larq_record_command')) {
            larq_record_command($this);
        }
    }
}
