// `larq restart`: artisan's queue:restart. Stores "now" under the cache's restart key, so every worker
// watching that cache, larq's and php artisan queue:work's alike, exits after its current job.
import { LarqError } from '../../errors';
import { signalRestart } from '../../cache/signals';
import { configFor, type Command } from '../args';
import { openCache, Resources } from './shared';

/** `larq restart`. */
export const restart: Command = {
  name: 'restart',
  summary: "queue:restart: tell every worker, PHP's too, to exit after its job",
  help: `Usage: larq restart

queue:restart: tell every worker (larq's and php artisan queue:work's) to exit after its current job,
through the app's cache, which must be the redis or database store (CACHE_STORE).`,
  options: {},
  positionals: { min: 0, max: 0, what: 'nothing' },
  async run(p, io) {
    const config = configFor(p);
    // An in-process (array) store would be written and forgotten: no worker could see the signal.
    if (!config.cache || config.cache.driver === 'array')
      throw new LarqError(`${config.cacheNote}; no restart signal sent`);
    const resources = new Resources();
    try {
      const cache = (await openCache(config, resources, io))!;
      await signalRestart(cache, Date.now() / 1000);
      io.out('Broadcasting queue restart signal.');
      return 0;
    } finally {
      await resources.close();
    }
  },
};
