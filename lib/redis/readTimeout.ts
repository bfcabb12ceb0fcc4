// How a connection larq opens notices a peer that went silent without closing (a NAT or firewall that
// dropped its state, a hung proxy): ioredis' `socketTimeout` destroys a socket that receives nothing for
// that long while a reply is owed, and the client reconnects; TCP keepalive probes an idle one. A queue
// write left without its reply then rejects with UnconfirmedWriteError (AtMostOnceCommand) and is not sent
// again. phpredis' `read_timeout` in Laravel's redis config is the same bound: a worker whose read times
// out dies with "read error on connection" and its supervisor restarts it.
import type { Cluster, Redis, RedisOptions } from 'ioredis';

/** The ioredis options that bound the wait for a reply to `seconds` (none when null: wait forever). */
export function readTimeoutOptions(seconds: number | null): Pick<RedisOptions, 'socketTimeout' | 'keepAlive'> {
  if (seconds === null) return {};
  return { socketTimeout: seconds * 1000, keepAlive: Math.ceil((seconds * 1000) / 2) };
}

/**
 * The longest BLPOP a connection with this read timeout may send: a blocked connection receives nothing
 * until its timeout, so it must end well inside the read timeout or a quiet queue would look like a dead peer.
 */
export function longestBlockingWait(seconds: number | null): number {
  return seconds === null ? Infinity : Math.max(1, Math.floor(seconds / 2));
}

// The clients whose closes already drop a leftover read-timeout timer.
const watched = new WeakSet<Redis | Cluster>();

/**
 * Make every close of `client`'s socket (each node's, for a cluster) cancel the read-timeout timer armed
 * on it. ioredis 5 keeps one socketTimeout timer per client, cleared only when a reply arrives on the
 * socket it was armed for (ioredis issue 2147: 5.11.1 has it, pull request 2148 fixes it upstream). A
 * socket that closes with a reply owed leaves it running: at that socket's deadline it destroys the
 * client's socket of the moment, connected since and answering, and until then it keeps the new socket
 * from getting a timer of its own. After an outage shorter than the read timeout, that was one more lost
 * connection, and a pop in flight on it reported unconfirmed. Calling it again for the same client
 * changes nothing.
 */
export function dropReadTimeoutOnClose(client: Redis | Cluster): void {
  if (watched.has(client)) return;
  watched.add(client);
  if (client.isCluster) {
    const cluster = client as Cluster;
    for (const node of cluster.nodes()) dropReadTimeoutOnClose(node);
    cluster.on('+node', (node: Redis) => dropReadTimeoutOnClose(node));
    return;
  }
  // ioredis' own field: the timer of the socket that just closed, if it had a reply owed.
  const timed = client as unknown as { socketTimeoutTimer?: ReturnType<typeof setTimeout> };
  client.on('close', () => {
    if (timed.socketTimeoutTimer === undefined) return;
    clearTimeout(timed.socketTimeoutTimer);
    timed.socketTimeoutTimer = undefined;
  });
}
