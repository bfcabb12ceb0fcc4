<?php
// LARQ_WORKER_SETUP for the `larq types` specs: Laravel's worker loads the types app's classes from its
// vendor/autoload.php (LARQ_TYPES_APP names the app folder). A queued mailable is sent through a mail
// factory whose mailer sends nothing: the app's mailables record themselves in build(), which
// Mailable::send calls first.

declare(strict_types=1);

function larq_worker_setup(Illuminate\Container\Container $app): void
{
    require_once getenv('LARQ_TYPES_APP') . '/vendor/autoload.php';
    $app->instance(Illuminate\Contracts\Mail\Factory::class, new class implements Illuminate\Contracts\Mail\Factory {
        public function mailer($name = null)
        {
            return new class implements Illuminate\Contracts\Mail\Mailer {
                public function to($users)
                {
                    return new Illuminate\Mail\PendingMail($this);
                }

                public function cc($users)
                {
                    return new Illuminate\Mail\PendingMail($this);
                }

                public function bcc($users)
                {
                    return new Illuminate\Mail\PendingMail($this);
                }

                public function raw($text, $callback)
                {
                    return null;
                }

                public function send($view, array $data = [], $callback = null)
                {
                    return null;
                }

                public function sendNow($mailable, array $data = [], $callback = null)
                {
                    return null;
                }

                /** Laravel 8's Mailer contract. */
                public function failures()
                {
                    return [];
                }
            };
        }
    });
}
