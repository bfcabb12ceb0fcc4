// Laravel stops a worker whose connection is gone (Worker::stopIfNecessary, reason `lost_connection`, 13.x;
// DetectsLostConnections::causedByLostConnection), deciding by
// substrings of the exception message. This list is larq's own: the phrases Redis, ioredis, Node's
// sockets and the SQL drivers a failed-job store may use put in such messages.
//
// A Redis outage is not one of them: ioredis reconnects by itself, and the worker rides it out. So
// ioredis' "max retries per request" (a command given up while it keeps reconnecting) and larq's own
// UnconfirmedWriteError and RedisUnavailableError do not count; "Connection is closed." (a client that
// stopped reconnecting) still does.
//
// Nor is a Redis Cluster's failover: while a slot's primary is down and before its replica is promoted,
// ioredis' Cluster tries each command against the slot's node a bounded number of times (maxRedirections),
// then gives up on that command with "Too many Cluster redirections", whatever the last try said. The
// client itself keeps refreshing its slot map and finds the promoted replica, so the worker rides it out.
import { RedisUnavailableError, UnconfirmedWriteError } from '../errors';

const LOST_CONNECTION_PHRASES = [
  'server has gone away',
  'went away',
  'connection refused',
  'connection lost',
  'connection reset',
  'connection is closed',
  'connection closed',
  'error while reading',
  'error while sending',
  'broken pipe',
  'socket closed',
  "stream isn't writeable",
  'econnrefused',
  'econnreset',
  'epipe',
  'etimedout',
  'ehostunreach',
  'enotconn',
];

// How ioredis' Cluster words the error of a command it gave up redirecting.
const CLUSTER_GAVE_UP_ON_COMMAND = 'Too many Cluster redirections';

/** Whether the error reads like a lost connection (case-insensitive; its `code` counts too). */
export function causedByLostConnection(error: Error): boolean {
  if (error instanceof UnconfirmedWriteError || error instanceof RedisUnavailableError) return false;
  if (error.message.includes(CLUSTER_GAVE_UP_ON_COMMAND)) return false;
  const code = (error as { code?: unknown }).code;
  const text = `${error.message} ${typeof code === 'string' ? code : ''}`.toLowerCase();
  return LOST_CONNECTION_PHRASES.some((phrase) => text.includes(phrase));
}
