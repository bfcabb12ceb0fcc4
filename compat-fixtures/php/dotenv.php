<?php
// Loads a .env file with the phpdotenv Laravel boots with (Debian's php-vlucas-phpdotenv), the way
// Laravel's LoadEnvironmentVariables does: an immutable repository over the process environment.
// Usage: php dotenv.php DIR FILE
// Prints JSON: {"vars": {NAME: value or null (cleared)}} for the variables the file set, in file
// order, or {"error": message} when phpdotenv refuses the file.
declare(strict_types=1);

require_once '/usr/share/php/Dotenv/autoload.php';

use Dotenv\Dotenv;
use Dotenv\Repository\Adapter\PutenvAdapter;
use Dotenv\Repository\RepositoryBuilder;

[, $dir, $file] = $argv;
$repository = RepositoryBuilder::createWithDefaultAdapters()->addAdapter(PutenvAdapter::class)->immutable()->make();
try {
    $vars = Dotenv::create($repository, $dir, $file)->load();
    echo json_encode(['vars' => (object) $vars], JSON_THROW_ON_ERROR | JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE), "\n";
} catch (\Dotenv\Exception\ExceptionInterface $e) {
    echo json_encode(['error' => $e->getMessage()], JSON_THROW_ON_ERROR | JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE), "\n";
}
