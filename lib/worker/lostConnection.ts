// Laravel stops a worker whose connection is gone (spec §10.14, reason `lost_connection`), deciding by
// substrings of the exception message. This list is larq's own: the phrases Redis, ioredis, Node's
// sockets and the SQL drivers a failed-job store may use put in such messages.
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
  'stream isn\'t writeable',
  'max retries per request',
  'econnrefused',
  'econnreset',
  'epipe',
  'etimedout',
  'ehostunreach',
  'enotconn',
];

/** Whether the error reads like a lost connection (case-insensitive; its `code` counts too). */
export function causedByLostConnection(error: Error): boolean {
  const code = (error as { code?: unknown }).code;
  const text = `${error.message} ${typeof code === 'string' ? code : ''}`.toLowerCase();
  return LOST_CONNECTION_PHRASES.some((phrase) => text.includes(phrase));
}
