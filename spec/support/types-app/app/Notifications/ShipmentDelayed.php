<?php

namespace Shop\Notifications;

use Illuminate\Bus\Queueable;
use Illuminate\Contracts\Queue\ShouldQueue;
use Illuminate\Notifications\Notification;

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
        return ['mail'];
    }
}
