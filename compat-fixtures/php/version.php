<?php
// Boots the harness's Laravel stack for the line LARQ_LARAVEL names and prints one line of JSON:
//   {line, version, php, illuminate}
// version: the loaded framework's own Application::VERSION; illuminate: the folder its Illuminate
// classes were loaded from. It reaches no Redis, so scripts/setup uses it to prove each line boots.

declare(strict_types=1);

require __DIR__ . '/bootstrap.php';

larq_boot();

echo larq_json([
    'line' => larq_laravel_line(),
    'version' => Illuminate\Foundation\Application::VERSION,
    'php' => PHP_VERSION,
    'illuminate' => dirname((new ReflectionClass(Illuminate\Queue\RedisQueue::class))->getFileName(), 2),
]), "\n";
