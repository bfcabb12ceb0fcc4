<?php
// Laravel 12/13's Illuminate\Console\OutputStyle declares SymfonyStyle's methods with Symfony 7's
// signatures, which Debian's Symfony Console 6.2 cannot load. Console output is no part of what the
// interop specs check (a command's effect on Redis and the database is), so for those lines the harness
// loads this stand-in instead: the same public methods Laravel's console components call, on Symfony 6.2.

declare(strict_types=1);

namespace Illuminate\Console;

use Symfony\Component\Console\Input\InputInterface;
use Symfony\Component\Console\Output\OutputInterface;
use Symfony\Component\Console\Style\SymfonyStyle;

class OutputStyle extends SymfonyStyle
{
    /** Consecutive empty lines at the end of what was written so far. */
    private int $trailingNewLines = 0;

    public function __construct(InputInterface $input, private OutputInterface $output)
    {
        parent::__construct($input, $output);
    }

    public function write($messages, bool $newline = false, int $options = 0)
    {
        $this->count(is_iterable($messages) ? $messages : [$messages], $newline);
        parent::write($messages, $newline, $options);
    }

    public function writeln($messages, int $type = self::OUTPUT_NORMAL)
    {
        $this->count(is_iterable($messages) ? $messages : [$messages], true);
        parent::writeln($messages, $type);
    }

    public function newLine(int $count = 1)
    {
        $this->trailingNewLines += $count;
        parent::newLine($count);
    }

    /** How many empty lines end the output so far. */
    public function newLinesWritten()
    {
        return $this->trailingNewLines;
    }

    /** Whether the output so far ends with an empty line. */
    public function newLineWritten()
    {
        return $this->trailingNewLines > 0;
    }

    public function isQuiet(): bool
    {
        return $this->output->isQuiet();
    }

    public function isVerbose(): bool
    {
        return $this->output->isVerbose();
    }

    public function isVeryVerbose(): bool
    {
        return $this->output->isVeryVerbose();
    }

    public function isDebug(): bool
    {
        return $this->output->isDebug();
    }

    public function getOutput()
    {
        return $this->output;
    }

    private function count(iterable $messages, bool $newline): void
    {
        foreach ($messages as $message) {
            $text = (string) $message;
            if ($text === '' && $newline) {
                $this->trailingNewLines++;
                continue;
            }
            $trimmed = rtrim($text, "\n");
            $this->trailingNewLines = $trimmed === '' ? $this->trailingNewLines + strlen($text) : strlen($text) - strlen($trimmed);
        }
    }
}
