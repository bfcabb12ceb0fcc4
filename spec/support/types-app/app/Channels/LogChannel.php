<?php

namespace Shop\Channels;

use Illuminate\Notifications\Notification;

/** A notification channel that records what it was given to send (the specs' worker records it). */
class LogChannel
{
    public function send(object $notifiable, Notification $notification): void
    {
        if (function_exists('larq_record_command')) {
            $name = substr(static::class, strrpos(static::class, '\\') + 1);
            larq_record_command($notification, $name . ':' . get_class($notifiable) . ':' . $notifiable->getKey());
        }
    }
}
