<?php
// Loaded before any script through `auto_prepend_file` (an ini file the spec puts on PHP_INI_SCAN_DIR):
// makes jobs13.php's classes autoloadable in worker.php, which only requires jobs.php. By the time a
// worker unserializes one of them, bootstrap.php has loaded Laravel, which jobs13.php needs.

declare(strict_types=1);

spl_autoload_register(function (string $class): void {
    if (in_array($class, ['App\\Jobs\\UniqueStep', 'App\\Jobs\\NamedUniqueJob', 'App\\Jobs\\DebouncedJob', 'App\\Jobs\\ManualFailJob', 'App\\Jobs\\FlakyJob'], true)) {
        require_once __DIR__ . '/jobs13.php';
    }
});
