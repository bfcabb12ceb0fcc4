// `larq clear`: artisan's queue:clear. Deletes every job of a queue (pending, delayed and reserved) and
// its notify list; asks first on a terminal, and refuses without --force anywhere else.
import { createInterface } from 'readline';
import { configFor, stringFlag, UsageError, type Command } from '../args';
import { redisConnection } from '../config';
import { openQueue, Resources } from './shared';

/** `larq clear`. */
export const clear: Command = {
  name: 'clear',
  summary: 'queue:clear: delete every job of a queue',
  help: `Usage: larq clear [connection] [--queue=QUEUES] [--force]

queue:clear: delete every job of the queue (pending, delayed and reserved) and report how many.

  connection        the Redis queue connection's name (default QUEUE_CONNECTION, else "redis")
  --queue=QUEUES    the queue, or a comma-separated list as in Laravel 13.24+ (default REDIS_QUEUE,
                    else "default")
  --force           do not ask; required when stdin is not a terminal`,
  options: { queue: { type: 'string' }, force: { type: 'boolean' } },
  positionals: { min: 0, max: 1, what: 'one connection name' },
  async run(p, io) {
    const config = configFor(p);
    const connection = redisConnection(config, p.positionals[0]);
    const names = (stringFlag(p, 'queue') ?? config.queue.queue)
      .split(',')
      .map((q) => q.trim())
      .filter(Boolean);
    if (names.length === 0) throw new UsageError(`larq clear: --queue names no queue, got "${stringFlag(p, 'queue')}"`);
    const what = `${names.map((n) => `[${n}]`).join(', ')} on ${connection} (prefix "${config.queue.prefix}")`;
    if (p.values.force !== true) {
      // Without a terminal nobody can answer; clearing must then be asked for explicitly.
      if (!process.stdin.isTTY) {
        io.err(`larq clear: not clearing ${what} without --force (stdin is not a terminal)`);
        return 1;
      }
      if (!(await confirm(`Delete every job of ${what}? (yes/no) [no] `))) {
        io.err('larq clear: cancelled.');
        return 1;
      }
    }
    const resources = new Resources();
    try {
      const queue = await openQueue(config, connection, resources, io);
      for (const name of names) io.out(`Cleared ${await queue.clear(name)} jobs from the [${name}] queue`);
      return 0;
    } finally {
      await resources.close();
    }
  },
};

function confirm(question: string): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  return new Promise((resolve) =>
    rl.question(question, (answer) => (rl.close(), resolve(/^y(es)?$/i.test(answer.trim())))),
  );
}
