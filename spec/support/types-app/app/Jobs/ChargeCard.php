<?php

namespace Shop\Jobs;

use Illuminate\Bus\Queueable;
use Illuminate\Contracts\Queue\ShouldQueue;
use Illuminate\Foundation\Bus\Dispatchable;
use Illuminate\Queue\InteractsWithQueue;
use Illuminate\Queue\SerializesModels;

class ChargeCard implements ShouldQueue
{
    use Dispatchable, InteractsWithQueue, Queueable, SerializesModels;

    public int|string $reference;
    public ?string $note = null;
    private float $fee = 0.0;

    public function __construct(int|string $reference, ?string $note = null, float $fee = 0.0)
    {
        $this->reference = $reference;
        $this->note = $note;
        $this->fee = $fee;
    }

    public function handle(): void
    {
        if (function_exists('larq_record_command')) {
            larq_record_command($this);
        }
    }
}
