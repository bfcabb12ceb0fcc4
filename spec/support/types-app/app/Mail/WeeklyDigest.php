<?php

namespace Shop\Mail;

use Illuminate\Bus\Queueable;
use Illuminate\Contracts\Queue\ShouldQueue;
use Illuminate\Mail\Mailable;
use Illuminate\Queue\SerializesModels;
use Illuminate\Support\Carbon;

class WeeklyDigest extends Mailable implements ShouldQueue
{
    use Queueable, SerializesModels;

    public array $items = [];

    public function __construct(public Carbon $week)
    {
    }

    /** Mailable::send calls build() first: the specs' worker records the mailable as it arrived. */
    public function build(): void
    {
        if (function_exists('larq_record_command')) {
            larq_record_command($this);
        }
    }
}
