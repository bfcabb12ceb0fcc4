#!/usr/bin/env node
// The `larq` command: artisan's queue commands for a Laravel app's Redis queue, run from Node. Exit
// statuses: 0 done, 1 failed, 2 the command line is wrong (UsageError); `larq work` returns the worker's.
import { parse, UsageError, type Command, type Io } from './args';
import { commandHelp, mainHelp } from './help';
import { pruneBatches, retryBatch } from './commands/batches';
import { clear } from './commands/clear';
import { failed } from './commands/failed';
import { flush } from './commands/flush';
import { forget } from './commands/forget';
import { monitor } from './commands/monitor';
import { pause, resume } from './commands/pause';
import { pruneFailed } from './commands/pruneFailed';
import { restart } from './commands/restart';
import { retry } from './commands/retry';
import { size } from './commands/size';
import { types } from './commands/types';
import { work } from './commands/work';
import { StreamOutput } from './StreamOutput';

/** Every command, in the order `larq --help` lists them. */
export const COMMANDS: readonly Command[] = Object.freeze([
  work,
  size,
  monitor,
  clear,
  failed,
  retry,
  forget,
  flush,
  pruneFailed,
  retryBatch,
  pruneBatches,
  pause,
  resume,
  restart,
  types,
]);

// The console's own methods, kept: `larq work --json` sends a handlers module's console.log to stderr.
const stdout = console.log.bind(console);
const stderr = console.error.bind(console);
const STDIO: Io = { out: (line) => stdout(line), err: (line) => stderr(line) };

/** Run the command line `argv` (without node and the script); resolves to the exit status, never throws. */
export async function main(argv: string[], io: Io = STDIO): Promise<number> {
  // `larq --app=DIR size` reads as well as `larq size --app=DIR`: leading --flag=value go after the command.
  const leading = argv.findIndex((a) => !/^--[^=]+=/.test(a));
  const [name, ...rest] = leading > 0 ? [argv[leading], ...argv.slice(0, leading), ...argv.slice(leading + 1)] : argv;
  try {
    if (leading < 0 && argv.length > 0)
      throw new UsageError(`larq: no command given after ${argv.join(' ')} (larq --help lists the commands)`);
    if (name === undefined || name === 'help' || name === '--help' || name === '-h') {
      const topic = name === 'help' && rest.length > 0 ? find(rest[0]) : undefined;
      io.out(topic ? commandHelp(topic) : mainHelp(COMMANDS));
      return 0;
    }
    if (name === '--version' || name === '-V') {
      io.out(`larq ${(require('../../package.json') as { version: string }).version}`);
      return 0;
    }
    const command = find(name);
    const parsed = parse(command, rest);
    if (parsed.values.help) {
      io.out(commandHelp(command));
      return 0;
    }
    return await command.run(parsed, io);
  } catch (e) {
    if (e instanceof UsageError) {
      io.err(e.message);
      return 2;
    }
    const error = e instanceof Error ? e : new Error(String(e));
    // One line for people; the stack only on request, for bug reports.
    io.err(`larq${COMMANDS.some((c) => c.name === name) ? ` ${name}` : ''}: ${error.message.split('\n')[0]}`);
    if (process.env.LARQ_DEBUG) io.err(String(error.stack));
    return 1;
  }
}

function find(name: string): Command {
  const command = COMMANDS.find((c) => c.name === name);
  if (command) return command;
  const hint =
    name.startsWith('queue:') && COMMANDS.some((c) => c.name === name.slice(6))
      ? `; did you mean "larq ${name.slice(6)}"?`
      : '';
  throw new UsageError(`larq: unknown command "${name}"${hint} (larq --help lists the commands)`);
}

if (require.main === module) {
  // stdout gathered into one write every few milliseconds (StreamOutput), console.log's among it; stderr stays immediate,
  // after what stdout has gathered, so that a terminal showing both shows them in the order written.
  const out = new StreamOutput(1);
  out.capture(process.stdout);
  const io: Io = {
    out: (line) => out.line(line),
    err: (line) => {
      out.flush();
      stderr(line);
    },
  };
  // exit() so that a connection a handlers module left open cannot keep a finished worker alive; the
  // lines still gathered are written on the way out (StreamOutput).
  void main(process.argv.slice(2), io).then((status) => process.exit(status));
}
