// Jobs waiting where this process does not look: the same queue under the key prefix another Laravel
// skeleton derives from the same APP_NAME (12 writes `acme_shop_database_`, 13 `acme-shop-database-`).
// A worker on the wrong one idles in silence, so the CLI looks there once and says what it found.
import type { Cluster, default as Redis } from 'ioredis';
import { RedisQueue } from '../RedisQueue';
import { laravelPrefix } from '../redis/keys';
import type { CliConfig } from './config';

/** Jobs of one queue under a prefix other than the configured one. */
export interface JobsElsewhere {
  prefix: string;
  /** Which skeleton derives that prefix, and from which name. */
  why: string;
  queue: string;
  /** Waiting, delayed and reserved jobs, as `larq size` counts them. */
  count: number;
}

// The prefixes Laravel skeletons derive from APP_NAME (and from the default name), other than ours.
function otherPrefixes(config: CliConfig): { prefix: string; why: string }[] {
  const names = [...new Set([config.queue.appName, 'Laravel'])];
  const found = new Map<string, string>();
  for (const name of names) {
    for (const [line, skeleton] of [[8, '8-12'], [13, '13']] as const) {
      try {
        const prefix = laravelPrefix(name, line);
        if (prefix !== config.queue.prefix && !found.has(prefix)) found.set(prefix, `the Laravel ${skeleton} skeleton's prefix for APP_NAME "${name}"`);
      } catch {
        // a name larq cannot slug: no candidate (the configuration names the prefix explicitly anyway)
      }
    }
  }
  return [...found].map(([prefix, why]) => ({ prefix, why }));
}

/** Count the jobs of `queues` under the other skeletons' prefixes, through `client` (the app's Redis). */
export async function jobsUnderOtherPrefixes(config: CliConfig, queues: string[], client: Redis | Cluster): Promise<JobsElsewhere[]> {
  const found: JobsElsewhere[] = [];
  for (const { prefix, why } of otherPrefixes(config)) {
    const other = new RedisQueue({ connection: client, prefix, laravel: config.queue.laravel, cluster: config.queue.cluster });
    try {
      for (const queue of queues) {
        const count = await other.size(queue);
        if (count > 0) found.push({ prefix, why, queue, count });
      }
    } finally {
      await other.close();
    }
  }
  return found;
}

/** One warning line per finding, naming the keys and the settings that decide them. */
export function describeJobsElsewhere(found: JobsElsewhere[], config: CliConfig): string[] {
  return found.map(
    (f) =>
      `${f.count} job(s) of queue [${f.queue}] wait under the prefix "${f.prefix}" (${f.why}), but this process uses "${config.queue.prefix}" ` +
      `(${config.prefixSource}; Laravel ${config.release.version} from ${config.laravelSource}). ` +
      'If the PHP app writes there, set LARQ_LARAVEL to its version or REDIS_PREFIX to its prefix.',
  );
}
