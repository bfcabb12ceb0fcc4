<?php

namespace Shop\Jobs;

use Illuminate\Bus\Queueable;
use Illuminate\Contracts\Queue\ShouldQueue;
use Illuminate\Foundation\Bus\Dispatchable;
use Illuminate\Queue\InteractsWithQueue;
use Illuminate\Queue\SerializesModels;
use Shop\Enums\Status;
use Shop\Models\Customer;

class SendInvoice implements ShouldQueue
{
    use Dispatchable, InteractsWithQueue, Queueable, SerializesModels;

    public $tries = 5;
    public $timeout = 30;
    public $backoff = [1, 5];

    public function __construct(
        public Customer $customer,
        public float $amount,
        protected Status $status = Status::Open,
    ) {
    }

    public function tags(): array
    {
        return ["invoice:{$this->customer->id}"];
    }

    public function handle(): void
    {
        if (function_exists('larq_record_command')) {
            larq_record_command($this);
        }
    }
}
