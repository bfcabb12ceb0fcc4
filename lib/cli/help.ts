// The help texts: `larq --help` (every command, where configuration comes from, exit statuses) and the
// part every `larq <command> --help` ends with (the global flags).
import type { Command } from './args';

/** The global flags, as every command's help lists them. */
export const GLOBAL_HELP = `Every command also takes:
  --app=DIR           the Laravel app: reads DIR/.env; relative paths (sqlite file, failed-jobs.json)
                      resolve from DIR (default: the current directory, and its .env if there is one)
  --env=FILE          read this .env file instead (variables of the process still win, as in Laravel)
  --laravel=V         the PHP side's Laravel version: a major 8 to 13, or major.minor (12.11, 13.26)
                      (default LARQ_LARAVEL, else 13)
  --prefix=PREFIX     the Redis key prefix (default REDIS_PREFIX, else derived from APP_NAME)
  --redis-url=URL     Redis, as redis://[user:password@]host:port/db (default REDIS_URL, else REDIS_HOST...)
  --redis-read-timeout=SECONDS
                      how long to wait for Redis to answer before reconnecting; 0 = forever
                      (default LARQ_REDIS_READ_TIMEOUT, else 30)
  -h, --help          show the command's help`;

/** `larq --help`. */
export function mainHelp(commands: readonly Command[]): string {
  const width = Math.max(...commands.map((c) => c.name.length)) + 4;
  return `Usage: larq <command> [arguments] [options]

Laravel's Redis queue from Node: run the jobs a Laravel app dispatches, and manage its queues and
failed jobs with artisan's commands and flags.

Commands:
${commands.map((c) => `  ${c.name.padEnd(width)}${c.summary}`).join('\n')}
  ${'help'.padEnd(width)}this text; larq help <command> (or larq <command> --help) for one command

Configuration comes from the Laravel app's environment, read as Laravel reads it: the .env file of
--app (or the current directory), or --env=FILE, with the process's variables winning. APP_NAME, APP_KEY,
APP_TIMEZONE, QUEUE_CONNECTION, REDIS_*, DB_*, QUEUE_FAILED_DRIVER, CACHE_STORE and CACHE_PREFIX are used.

${GLOBAL_HELP}

Exit status: 0 done; 1 failed (bad environment, unreachable Redis or database, nothing found, or
larq monitor's ALERT); 2 the command line is wrong (unknown command or flag, bad value, missing argument);
larq work exits with the worker's status (0, 1, or 12 for --memory).`;
}

/** `larq <command> --help`. */
export function commandHelp(command: Command): string {
  return `${command.help}\n\n${GLOBAL_HELP}`;
}
