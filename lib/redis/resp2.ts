// The Redis protocol version larq's connections speak: RESP2, as phpredis and Predis (Laravel's Redis
// clients) do. CLIENT LIST then shows a larq worker (resp=2) as it shows a PHP one, and Redis before 6,
// which has no RESP3, serves it. ioredis 6 asks for RESP3 (HELLO 3) on connect unless told `protocol: 2`.
import type { RedisOptions } from 'ioredis';

/** `options` with `protocol: 2`, unless they name a protocol of their own (the user's choice wins). */
export function speakingResp2<T extends RedisOptions>(options: T): T {
  return { ...options, protocol: options.protocol ?? 2 };
}
