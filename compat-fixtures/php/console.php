<?php
// Runs one of the line's own console commands (queue:retry, queue:restart) by its handle() method.
//
// On 8.83 Command::run does that. On 12.67 and 13.26 Command::run first configures laravel/prompts, and
// the console components the commands print with render through nunomaduro/termwind; Debian packages
// neither, and what a command prints is no part of what the specs check (its effect on Redis and the
// database is). So the command gets the input and output run() would give it, components that print
// plain lines, and handle() runs.

declare(strict_types=1);

use Illuminate\Console\Command;
use Illuminate\Console\OutputStyle;
use Symfony\Component\Console\Input\ArrayInput;
use Symfony\Component\Console\Output\OutputInterface;

/**
 * Runs $command with these arguments, writing to $output; the command's exit status. With $app, handle()'s
 * parameters are resolved from it (as artisan's Command::execute does) and the command gets it as $laravel.
 */
function larq_run_command(Command $command, array $arguments, OutputInterface $output, ?Illuminate\Container\Container $app = null): int
{
    if (larq_laravel_major() === 8) {
        return $command->run(new ArrayInput($arguments), $output);
    }
    $input = new ArrayInput($arguments, $command->getDefinition());
    $style = new OutputStyle($input, $output);
    $command->setInput($input);
    $command->setOutput($style);
    $components = new class ($style) {
        public function __construct(private OutputStyle $output)
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
            $this->output->writeln(strtoupper($method) . ' ' . ($args[0] ?? ''));
        }
    };
    (fn () => $this->components = $components)->call($command);
    if ($app !== null) {
        $command->setLaravel($app);
        return (int) ($app->call([$command, 'handle']) ?? 0);
    }
    return (int) ($command->handle() ?? 0);
}
