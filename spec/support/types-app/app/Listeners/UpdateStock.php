<?php

namespace Shop\Listeners;

use Illuminate\Bus\Queueable;
use Illuminate\Contracts\Queue\ShouldQueue;
use Shop\Events\StockChanged;

class UpdateStock implements ShouldQueue
{
    use Queueable;

    public function handle(StockChanged $event): void
    {
        if (function_exists('larq_record_command')) {
            larq_record_command($event);
        }
    }
}
