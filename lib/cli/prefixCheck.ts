// Jobs waiting where this process does not look: the same queue under another key prefix. Either the one
// another Laravel skeleton derives from the same APP_NAME (12 writes `acme_shop_database_`, 13
// `acme-shop-database-`), or any other (a wrong APP_NAME or REDIS_PREFIX), found by a bounded SCAN for
// `*queues:*` keys. A worker on the wrong prefix idles in silence, so the CLI looks and says what it found.
import type { Cluster, default as Redis } from 'ioredis';
import { RedisQueue } from '../RedisQueue';
import { laravelPrefix } from '../redis/keys';
import type { CliConfig } from './config';

/** Jobs of one queue under a prefix other than the configured one. */
export interface JobsElsewhere {
  prefix: string;
  /** Which skeleton derives that prefix, and from which name; or how it was found. */
  why: string;
  /** The settings that would make this process look there. */
  fix: string;
  queue: string;
  /** Waiting, delayed and reserved jobs, as `larq size` counts them. */
  count: number;
}

const VERSION_FIX = 'set LARQ_LARAVEL to its version or REDIS_PREFIX to its prefix';
const NAME_FIX = "set APP_NAME to the PHP app's or REDIS_PREFIX to its prefix";

// The prefixes Laravel skeletons derive from APP_NAME (and from the default name), other than ours.
function otherPrefixes(config: CliConfig): { prefix: string; why: string }[] {
  const names = [...new Set([config.queue.appName, 'Laravel'])];
  const found = new Map<string, string>();
  for (const name of names) {
    for (const [line, skeleton] of [
      [8, '8-12'],
      [13, '13'],
    ] as const) {
      try {
        const prefix = laravelPrefix(name, line);
        if (prefix !== config.queue.prefix && !found.has(prefix))
          found.set(prefix, `the Laravel ${skeleton} skeleton's prefix for APP_NAME "${name}"`);
      } catch {
        // a name larq cannot slug: no candidate (the configuration names the prefix explicitly anyway)
      }
    }
  }
  return [...found].map(([prefix, why]) => ({ prefix, why }));
}

/** Count the jobs of `queues` under the other skeletons' prefixes, through `client` (the app's Redis). */
export async function jobsUnderOtherPrefixes(
  config: CliConfig,
  queues: string[],
  client: Redis | Cluster,
): Promise<JobsElsewhere[]> {
  const found: JobsElsewhere[] = [];
  for (const { prefix, why } of otherPrefixes(config)) {
    const other = new RedisQueue({
      connection: client,
      prefix,
      laravel: config.queue.laravel,
      cluster: config.queue.cluster,
    });
    try {
      for (const queue of queues) {
        const count = await other.size(queue);
        if (count > 0) found.push({ prefix, why, fix: VERSION_FIX, queue, count });
      }
    } finally {
      await other.close();
    }
  }
  return found;
}

/** SCAN calls (COUNT {@link SCAN_COUNT}) one look at the keyspace makes at most, per primary. */
export const SCAN_CALLS = 20;
const SCAN_COUNT = 1000;

/**
 * Looks for jobs of `queues` under any prefix but ours, as often as asked: each look checks the other
 * skeletons' prefixes, then goes on with a SCAN for `*queues:*` from where the last look stopped, at most
 * `scanCalls` calls per primary, so a large keyspace is covered over several looks. Each (prefix, queue)
 * is reported once.
 */
export class OtherPrefixes {
  private readonly cursors = new Map<Redis, string>();
  private readonly reported = new Set<string>();

  constructor(
    private readonly config: CliConfig,
    private readonly queues: readonly string[],
    private readonly client: Redis | Cluster,
  ) {}

  /** The jobs found elsewhere and not reported by an earlier look. */
  async look(scanCalls = SCAN_CALLS): Promise<JobsElsewhere[]> {
    const found = await jobsUnderOtherPrefixes(this.config, [...this.queues], this.client);
    const known = new Set([this.config.queue.prefix, ...found.map((f) => f.prefix)]);
    for (const { prefix, key, queue } of await this.scan(scanCalls)) {
      if (known.has(prefix) || this.reported.has(`${prefix}\0${queue}`)) continue;
      const count = await jobsAt(this.client, key);
      if (count > 0) found.push({ prefix, why: `found by a scan for *queues:${queue}`, fix: NAME_FIX, queue, count });
    }
    const fresh = found.filter((f) => !this.reported.has(`${f.prefix}\0${f.queue}`));
    for (const f of fresh) this.reported.add(`${f.prefix}\0${f.queue}`);
    return fresh;
  }

  // Queue keys of our queues (`queues:NAME`, a 13.x cluster peer's `queues:{NAME}`, or their `:delayed`)
  // under any prefix, from up to `calls` SCAN calls per primary.
  private async scan(calls: number): Promise<{ prefix: string; key: string; queue: string }[]> {
    const nodes = isCluster(this.client) ? this.client.nodes('master') : [this.client];
    const hits: { prefix: string; key: string; queue: string }[] = [];
    for (const node of nodes) {
      for (let i = 0; i < calls; i++) {
        const [next, keys] = await node.scan(this.cursors.get(node) ?? '0', 'MATCH', '*queues:*', 'COUNT', SCAN_COUNT);
        this.cursors.set(node, next);
        for (const key of keys) {
          const hit = this.queueKey(key);
          if (hit) hits.push(hit);
        }
        if (next === '0') break;
      }
    }
    return hits;
  }

  private queueKey(key: string): { prefix: string; key: string; queue: string } | undefined {
    const list = key.endsWith(':delayed') ? key.slice(0, -':delayed'.length) : key;
    for (const queue of this.queues) {
      for (const suffix of [`queues:${queue}`, `queues:{${queue}}`]) {
        if (list.endsWith(suffix)) return { prefix: list.slice(0, -suffix.length), key: list, queue };
      }
    }
    return undefined;
  }
}

function isCluster(client: Redis | Cluster): client is Cluster {
  return client.isCluster;
}

// Waiting, delayed and reserved jobs of the queue whose list is `key`, as Laravel's size() counts them; 0
// when the keys hold something else than a queue's types.
async function jobsAt(client: Redis | Cluster, key: string): Promise<number> {
  try {
    const [waiting, delayed, reserved] = await Promise.all([
      client.llen(key),
      client.zcard(`${key}:delayed`),
      client.zcard(`${key}:reserved`),
    ]);
    return waiting + delayed + reserved;
  } catch {
    return 0;
  }
}

/** One warning line per finding, naming the keys and the settings that decide them. */
export function describeJobsElsewhere(found: JobsElsewhere[], config: CliConfig): string[] {
  return found.map(
    (f) =>
      `${f.count} job(s) of queue [${f.queue}] wait under the prefix "${f.prefix}" (${f.why}), but this process uses "${config.queue.prefix}" ` +
      `(${config.prefixSource}; Laravel ${config.release.version} from ${config.laravelSource}). ` +
      `If the PHP app writes there, ${f.fix}.`,
  );
}
