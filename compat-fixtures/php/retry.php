<?php
// Runs the Laravel line's own `queue:retry` (Illuminate\Queue\Console\RetryCommand) against a
// database-uuids failed-job table in a SQLite file and the Redis queue of bootstrap.php: what
// `php artisan queue:retry` does in an app whose failed jobs a larq worker recorded.
//
// Usage: php retry.php ID... | all        Environment: bootstrap.php's, plus LARQ_SQLITE (the file).
// Prints the command's console output.

declare(strict_types=1);

require __DIR__ . '/bootstrap.php';

use Illuminate\Queue\Console\RetryCommand;
use Illuminate\Queue\Failed\DatabaseUuidFailedJobProvider;
use Symfony\Component\Console\Input\ArrayInput;
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
if (larq_laravel_major() === 8) {
    $status = $command->run(new ArrayInput(['id' => array_slice($argv, 1)]), $output);
} else {
    // Command::run on 12/13 first configures laravel/prompts, and its console components render with
    // nunomaduro/termwind; Debian packages neither. The command's own work is handle(), so it gets the
    // input and output run() would have given it, components that print plain lines, and runs.
    $input = new ArrayInput(['id' => array_slice($argv, 1)], $command->getDefinition());
    $style = new Illuminate\Console\OutputStyle($input, $output);
    $command->setInput($input);
    $command->setOutput($style);
    $components = new class ($style) {
        public function __construct(private $output)
        {
        }

        /** task(description, callback) runs the callback; info, error, warn, ... print their message. */
        public function __call(string $method, array $args)
        {
            if ($method === 'task') {
                $result = isset($args[1]) ? ($args[1])() : null;
                $this->output->writeln("{$args[0]} " . ($result === false ? 'FAIL' : 'DONE'));
                return $result;
            }
            $this->output->writeln(strtoupper($method) . ' ' . $args[0]);
        }
    };
    (fn () => $this->components = $components)->call($command);
    $status = (int) ($command->handle() ?? 0);
}
echo $output->fetch();
exit($status);
