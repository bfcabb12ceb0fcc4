// Waiting for a connection that is down, for a bounded time: what a pop does before it is sent.
//
// A pop held in ioredis' offline queue through an outage would keep its caller waiting for as long as the
// outage lasts, deaf to a stop. So a pop is sent only on a connection that is up, or that comes back
// within `ms` (the wait ends the moment it does); otherwise RedisUnavailableError, and the caller (the
// worker's loop) asks again after its own checks. Other writes (acknowledgements, releases) wait in the
// offline queue and go out, once, when the connection is back.
import type { Cluster, Redis } from 'ioredis';
import { RedisUnavailableError } from '../errors';

/** How long a pop waits for a lost connection to come back before saying Redis is unavailable. */
export const CONNECTION_WAIT_MS = 1000;

/** Resolves once `client` is ready (at once when it is); RedisUnavailableError after `ms` without it. */
export function whenConnected(client: Redis | Cluster, what: string, ms = CONNECTION_WAIT_MS): Promise<void> {
  // 'wait': a lazy client connects on its first command; 'end': ioredis gave up, the command fails at
  // once with its own error. A cluster routes per node and has no single state to wait on.
  if (client.isCluster || client.status === 'ready' || client.status === 'wait' || client.status === 'end')
    return Promise.resolve();
  return new Promise<void>((resolve, reject) => {
    const ready = (): void => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => {
      client.off('ready', ready);
      reject(new RedisUnavailableError(ms / 1000, what));
    }, ms);
    client.once('ready', ready);
  });
}
