<?php
// LARQ_WORKER_SETUP for the `larq types` specs: Laravel's worker loads the types app's classes from its
// vendor/autoload.php (LARQ_TYPES_APP names the app folder).

declare(strict_types=1);

function larq_worker_setup(Illuminate\Container\Container $app): void
{
    require_once getenv('LARQ_TYPES_APP') . '/vendor/autoload.php';
}
