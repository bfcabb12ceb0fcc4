<?php

namespace Shop\Listeners;

use Illuminate\Contracts\Queue\ShouldQueue;
use Shop\Events\StockChanged;

class UpdateStock implements ShouldQueue
{
    public function handle(StockChanged $event): void
    {
        if (function_exists('larq_record_command')) {
            larq_record_command($event);
        }
    }
}
