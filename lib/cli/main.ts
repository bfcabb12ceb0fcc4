#!/usr/bin/env node
// The `larq` command: artisan's queue commands for a Laravel app's Redis queue, run from Node.
import { LarqError } from '../errors';
import { GLOBAL_HELP, UsageError } from './args';
import { failedCommand, FAILED_HELP } from './commands/failed';
import { clear, size } from './commands/queue';
import { restart } from './commands/restart';
import { work } from './commands/work';

const HELP = `Usage: larq <command> [options]

Laravel's Redis queue, from Node: run jobs a Laravel app dispatched, inspect and manage its queues.

Commands (artisan's names):
  work            run jobs: larq work --handlers=./handlers.js [--queue=high,default] [--concurrency=20]
  size            queue sizes (waiting, delayed, reserved)
  monitor         queue:monitor, with an alert threshold
  clear           queue:clear: delete every job of a queue
  failed          queue:failed: list failed jobs
  retry           queue:retry <id...|all>: push failed jobs back
  forget          queue:forget <id>: delete a failed job
  flush           queue:flush: delete failed jobs
  prune-failed    queue:prune-failed: delete old failed jobs
  restart         queue:restart: tell every worker, PHP's too, to exit after its job

Configuration comes from the Laravel app's environment: --app=DIR reads DIR/.env, --env=FILE another
file; process variables win. APP_NAME, APP_KEY, REDIS_*, REDIS_QUEUE, QUEUE_CONNECTION, DB_*,
QUEUE_FAILED_DRIVER, CACHE_STORE are read as Laravel reads them.

${GLOBAL_HELP}

larq <command> --help shows a command's options.`;

/** Run the command line; resolves to the process exit status. */
export async function main(argv: string[], out: (line: string) => void = (l) => console.log(l)): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      out(HELP);
      return 0;
    case 'work':
      return work(rest, out);
    case 'size':
    case 'monitor':
      return size(command, rest, out);
    case 'clear':
      return clear(rest, out);
    case 'restart':
      return restart(rest, out);
    default:
      if (command in FAILED_HELP) return failedCommand(command as keyof typeof FAILED_HELP, rest, out);
      throw new UsageError(`larq: unknown command "${command}" (larq --help lists the commands)`);
  }
}


if (require.main === module) {
  main(process.argv.slice(2)).then(
    (status) => process.exit(status),
    (error: unknown) => {
      if (error instanceof UsageError) {
        console.error(error.message);
        process.exit(2);
      }
      console.error(error instanceof LarqError ? `larq: ${error.message}` : error);
      process.exit(1);
    },
  );
}
