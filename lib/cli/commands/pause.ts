// `larq pause` and `larq resume`: artisan's queue:pause and queue:resume (Laravel 11+; --all 13.25+).
// They write the cache keys every worker reads before it pops (larq's and php artisan queue:work's):
// `illuminate:queue:paused:{connection}:{queue}`, and `illuminate:queues:paused` for all queues at once.
import { globalPausedKey, pauseQueue, resumeQueue } from '../../cache/signals';
import type { CacheStore } from '../../cache';
import { LarqError } from '../../errors';
import { configFor, type Command, type Io, type Parsed } from '../args';
import type { CliConfig } from '../config';
import { openCache, Resources } from './shared';

const QUEUE_REQUIRED = 'A queue name is required unless the --all option is used.';

// ParsesQueue::parseQueue: "connection:queue" split at the first colon; the default connection and
// queue "default" where a part is missing.
function parseQueue(text: string, config: CliConfig): [string, string] {
  const colon = text.indexOf(':');
  const connection = colon < 0 ? config.defaultConnection : text.slice(0, colon);
  const queue = colon < 0 ? text : text.slice(colon + 1);
  return [connection, queue === '' ? 'default' : queue];
}

async function withCache(
  p: Parsed,
  io: Io,
  fn: (cache: CacheStore, config: CliConfig) => Promise<number>,
): Promise<number> {
  const config = configFor(p);
  // An in-process (array) store would be written and forgotten: no worker could see the flag.
  if (!config.cache || config.cache.driver === 'array')
    throw new LarqError(`${config.cacheNote}; workers cannot see a pause`);
  const resources = new Resources();
  try {
    return await fn((await openCache(config, resources, io))!, config);
  } finally {
    await resources.close();
  }
}

function info(io: Io, message: string): void {
  io.out(`\n   INFO  ${message}\n`);
}

function error(io: Io, message: string): number {
  io.err(`\n   ERROR  ${message}\n`);
  return 1;
}

/** `larq pause`. */
export const pause: Command = {
  name: 'pause',
  summary: 'queue:pause <[connection:]queue|--all>: workers take no jobs from it until resumed',
  help: `Usage: larq pause [connection:]queue | --all

queue:pause: workers (larq's and php artisan queue:work's) stop taking jobs from the queue until
larq resume (or php artisan queue:resume). The flag lives in the app's cache (CACHE_STORE redis or
database). --all pauses every queue of every connection (Laravel 13.25+ workers read it).`,
  options: { all: { type: 'boolean' } },
  positionals: { min: 0, max: 1, what: 'one [connection:]queue' },
  async run(p, io) {
    return withCache(p, io, async (cache, config) => {
      if (p.values.all) {
        if (!config.release.has('globalPause'))
          throw new LarqError(
            `queue:pause --all needs Laravel 13.25 or later; this app runs ${config.release.major}.${config.release.minor}, whose workers would not see it`,
          );
        await cache.forever(globalPausedKey, true);
        info(io, 'Job processing on all queues across all connections has been paused.');
        return 0;
      }
      if (p.positionals[0] === undefined) return error(io, QUEUE_REQUIRED);
      const [connection, queue] = parseQueue(p.positionals[0], config);
      await pauseQueue(cache, connection, queue);
      info(io, `Job processing on queue [${connection}:${queue}] has been paused.`);
      return 0;
    });
  },
};

/** `larq resume`. */
export const resume: Command = {
  name: 'resume',
  summary: 'queue:resume <[connection:]queue|--all>: workers take jobs from it again',
  help: `Usage: larq resume [connection:]queue | --all

queue:resume: workers take jobs from a paused queue again. --all lifts queue:pause --all (queues
paused one by one stay paused).`,
  options: { all: { type: 'boolean' } },
  positionals: { min: 0, max: 1, what: 'one [connection:]queue' },
  async run(p, io) {
    return withCache(p, io, async (cache, config) => {
      if (p.values.all) {
        await cache.forget(globalPausedKey);
        info(io, 'Job processing on all queues across all connections has been resumed.');
        return 0;
      }
      if (p.positionals[0] === undefined) return error(io, QUEUE_REQUIRED);
      const [connection, queue] = parseQueue(p.positionals[0], config);
      await resumeQueue(cache, connection, queue);
      info(io, `Job processing on queue [${connection}:${queue}] has been resumed.`);
      return 0;
    });
  },
};
