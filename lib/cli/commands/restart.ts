// `larq restart`: artisan's queue:restart. Larq and PHP workers alike exit after their current job.
import { createCacheStore } from '../../cache';
import { signalRestart } from '../../cache/signals';
import { configFor, parse, UsageError } from '../args';

/** What `larq restart --help` prints. */
export const RESTART_HELP = `Usage: larq restart

queue:restart: tell every worker (larq's and php artisan queue:work's) to exit after its current job,
through Laravel's cache (CACHE_STORE redis or database).`;

/** Run `larq restart`. */
export async function restart(argv: string[], out: (line: string) => void): Promise<number> {
  const p = parse('restart', argv, {});
  if (p.values.help) return out(RESTART_HELP), 0;
  const config = configFor(p);
  if (!config.cache) throw new UsageError(`larq restart: ${config.cacheNote}`);
  const cache = createCacheStore(config.cache);
  try {
    await signalRestart(cache, Math.floor(Date.now() / 1000));
    out('Broadcasting queue restart signal.');
    return 0;
  } finally {
    await cache.close();
  }
}
