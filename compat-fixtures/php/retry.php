<?php
// Runs the Laravel line's own `queue:retry` (Illuminate\Queue\Console\RetryCommand) against a
// database-uuids failed-job table in a SQLite file and the Redis queue of bootstrap.php: what
// `php artisan queue:retry` does in an app whose failed jobs a larq worker recorded.
//
// Usage: php retry.php ID... | all        Environment: bootstrap.php's, plus LARQ_SQLITE (the file).
// Prints the command's console output.

declare(strict_types=1);

require __DIR__ . '/bootstrap.php';
require __DIR__ . '/console.php';

use Illuminate\Queue\Console\RetryCommand;
use Illuminate\Queue\Failed\DatabaseUuidFailedJobProvider;
use Symfony\Component\Console\Output\BufferedOutput;

$app = larq_boot();
$sqlite = getenv('LARQ_SQLITE');
if ($sqlite === false || $sqlite === '') {
    fwrite(STDERR, "LARQ_SQLITE must name the SQLite file holding failed_jobs\n");
    exit(2);
}
$manager = $app['db'];
$app['config']['database.connections.failed'] = ['driver' => 'sqlite', 'database' => $sqlite, 'prefix' => ''];
$app->instance('queue.failer', new DatabaseUuidFailedJobProvider($manager, 'failed', 'failed_jobs'));

$command = new RetryCommand();
$command->setLaravel($app);
$output = new BufferedOutput();
$status = larq_run_command($command, ['id' => array_slice($argv, 1)], $output);
echo $output->fetch();
exit($status);
