// Horizon's tags (Horizon 5.29.1 `RedisTagRepository`): the `monitoring` set of tags the dashboard
// watches, one sorted set per tag of the jobs carrying it (scored by +microtime), and the `failed:{tag}`
// sets that expire.
import type { Cluster, Redis } from 'ioredis';
import type { HorizonKeys } from './HorizonKeys';
import { phpFloatString } from './microtime';
import type { Pipe } from './RedisJobRepository';

/** Horizon's tag sets. */
export class RedisTagRepository {
  constructor(private readonly keys: HorizonKeys) {}

  /** Which of `tags` the dashboard monitors (`monitored`). */
  async monitored(client: Redis | Cluster, tags: readonly string[]): Promise<string[]> {
    if (tags.length === 0) return [];
    const monitoring = new Set(await client.smembers(this.keys.key('monitoring')));
    return tags.filter((t) => monitoring.has(t));
  }

  /** The job `id` under each tag (`add`). */
  add(pipe: Pipe, id: string, tags: readonly string[], now: number): void {
    for (const tag of tags) pipe.zadd(this.keys.key(tag), phpFloatString(now), id);
  }

  /** The job `id` under each tag, each set expiring `minutes` from now (`addTemporary`). */
  addTemporary(pipe: Pipe, minutes: number, id: string, tags: readonly string[], now: number): void {
    for (const tag of tags) {
      pipe.zadd(this.keys.key(tag), phpFloatString(now), id);
      pipe.expire(this.keys.key(tag), minutes * 60);
    }
  }
}
