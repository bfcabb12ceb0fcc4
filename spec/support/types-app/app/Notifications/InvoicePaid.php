<?php

namespace Shop\Notifications;

use Illuminate\Bus\Queueable;
use Illuminate\Contracts\Queue\ShouldQueue;
use Illuminate\Notifications\Notification;
use Shop\Channels\LogChannel;
use Shop\Enums\Status;
use Shop\Values\Money;

class InvoicePaid extends Notification implements ShouldQueue
{
    use Queueable;

    public function __construct(public Money $total, public Status $status)
    {
    }

    public function via(object $notifiable): array
    {
        return [LogChannel::class];
    }
}
