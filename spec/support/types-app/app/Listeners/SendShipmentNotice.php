<?php

namespace Shop\Listeners;

use Illuminate\Contracts\Queue\ShouldQueue;
use Illuminate\Queue\InteractsWithQueue;
use Shop\Events\OrderShipped;

class SendShipmentNotice implements ShouldQueue
{
    use InteractsWithQueue;

    public $tries = 2;

    public function handle(OrderShipped $event): void
    {
        if (function_exists('larq_record_command')) {
            larq_record_command($event);
        }
    }
}
