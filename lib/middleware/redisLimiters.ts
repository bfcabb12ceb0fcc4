// The Redis connection Laravel's `Redis::throttle`, `Redis::funnel` and the *WithRedis middleware use:
// the `default` connection, whose client prefixes every key (EVAL's KEYS too) with `database.redis.options.prefix`.
import type { Cluster, Redis } from 'ioredis';

/** A Redis client and the prefix PHP's connection adds to each key (the queue's prefix in the skeleton). */
export interface RedisLimiterConnection {
  readonly client: Redis | Cluster;
  readonly prefix: string;
}
