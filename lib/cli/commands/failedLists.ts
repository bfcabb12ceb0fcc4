// What larq failed, retry, forget, flush, size and monitor share about larq's failed and quarantine lists
// in Redis: opening them on the app's queue Redis, and the payload `larq retry` pushes back.
import type { Cluster, default as Redis } from 'ioredis';
import { isUtf8 } from 'buffer';
import { RedisFailedLists } from '../../failed/RedisFailedLists';
import { resetAttemptsInBytes } from '../../failed/resetAttempts';
import { retryPayload } from '../../payload/Payload';
import { RedisQueue } from '../../RedisQueue';
import type { Io } from '../args';
import type { CliConfig } from '../config';
import { openRedis, type Resources } from './shared';

/** larq's failed and quarantine lists on the app's queue Redis, with the queue for the same keys. */
export async function openFailedLists(
  config: CliConfig,
  resources: Resources,
  io: Io,
): Promise<{ lists: RedisFailedLists; queue: RedisQueue; client: Redis | Cluster }> {
  const client = await openRedis(config.queue.connection, resources, io, {
    tls: config.redisTls,
    readTimeout: config.queue.readTimeout,
  });
  const queue = new RedisQueue({ ...config.queue, connection: client, connectionName: config.defaultConnection });
  resources.add(() => queue.close());
  return { lists: new RedisFailedLists(client, queue.keys, config.defaultConnection), queue, client };
}

/**
 * What queue:retry pushes for a payload: attempts reset to 0, re-encoded as Laravel does for text; for
 * bytes that are not valid UTF-8 (which PHP's json_decode refuses) only the attempts value is rewritten.
 */
export function retryBytes(payload: string | Buffer): string | Buffer {
  if (typeof payload === 'string') return retryPayload(payload);
  return isUtf8(payload) ? retryPayload(payload.toString('utf8')) : resetAttemptsInBytes(payload);
}
