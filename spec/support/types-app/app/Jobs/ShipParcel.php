<?php

namespace Shop\Jobs;

use Illuminate\Bus\Queueable;
use Illuminate\Contracts\Queue\ShouldQueue;
use Illuminate\Foundation\Bus\Dispatchable;
use Illuminate\Queue\InteractsWithQueue;
use Illuminate\Queue\SerializesModels;
use Shop\Values\Address;
use Shop\Values\LineItem;

class ShipParcel implements ShouldQueue
{
    use Dispatchable, InteractsWithQueue, Queueable, SerializesModels;

    public function __construct(public Address $to, public LineItem $item)
    {
    }

    public function handle(): void
    {
        if (function_exists('larq_record_command')) {
            larq_record_command($this);
        }
    }
}
