// How a connection larq opens notices a peer that went silent without closing (a NAT or firewall that
// dropped its state, a hung proxy): ioredis' `socketTimeout` destroys a socket that receives nothing for
// that long while a reply is owed, and the client reconnects; TCP keepalive probes an idle one. A queue
// write left without its reply then rejects with UnconfirmedWriteError (AtMostOnceCommand) and is not sent
// again. phpredis' `read_timeout` in Laravel's redis config is the same bound: a worker whose read times
// out dies with "read error on connection" and its supervisor restarts it.
// The timer is the socket's own: ioredis (6.0.0 on; issue 2147 in 5.x) clears it when that socket closes,
// so one left over from a connection lost with a reply owed never cuts the connection made since.
import type { RedisOptions } from 'ioredis';

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
