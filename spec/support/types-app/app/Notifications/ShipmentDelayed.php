<?php

namespace Shop\Notifications;

use Illuminate\Bus\Queueable;
use Illuminate\Contracts\Queue\ShouldQueue;
use Illuminate\Notifications\Notification;
use Shop\Channels\LogChannel;
use Shop\Channels\SmsChannel;

class ShipmentDelayed extends Notification implements ShouldQueue
{
    use Queueable;

    public int $days;
    public ?string $reason = null;

    public function __construct(int $days)
    {
        $this->days = $days;
    }

    public function via(object $notifiable): array
    {
        return [LogChannel::class, SmsChannel::class];
    }
}
