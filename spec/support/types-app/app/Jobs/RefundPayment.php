<?php

namespace Shop\Jobs;

use Illuminate\Bus\Queueable;
use Illuminate\Contracts\Queue\ShouldQueue;
use Illuminate\Foundation\Bus\Dispatchable;
use Illuminate\Queue\InteractsWithQueue;
use Illuminate\Queue\SerializesModels;
use Illuminate\Contracts\Queue\ShouldBeUnique;
use Shop\Values\Money;

class RefundPayment implements ShouldQueue, ShouldBeUnique
{
    use Dispatchable, InteractsWithQueue, Queueable, SerializesModels;

    public $uniqueFor = 600;
    public int $attempt = 1;
    protected string $reason;

    public function __construct(public Money $money, string $reason)
    {
        $this->reason = $reason;
    }

    public function handle(): void
    {
        if (function_exists('larq_record_command')) {
            larq_record_command($this);
        }
    }
}
