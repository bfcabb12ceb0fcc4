// Commands sent on one connection in the same turn of the event loop leave in one socket write: what lets
// a hundred callers pushing at once share round trips. The first such command corks the connection's
// socket and the rest of the turn's commands are buffered behind it; the socket is uncorked in a
// process.nextTick, which runs once the turn's promise continuations have run (so a caller whose push
// was answered and who pushes again straight away joins the same write). Redis still receives every
// command as it was sent, in order: only how many socket writes carry them changes.
import type { Cluster, Redis } from 'ioredis';
import { writesDirectly } from './CommandBatch';

// The sockets corked until the end of this turn.
const corkedThisTurn = new WeakSet<object>();

/** Hold `client`'s socket writes until the end of this turn (no-op on a cluster or a connection not ready). */
export function writeAtEndOfTurn(client: Redis | Cluster): void {
  if (!writesDirectly(client)) return;
  const stream = client.stream;
  if (corkedThisTurn.has(stream)) return;
  corkedThisTurn.add(stream);
  stream.cork();
  process.nextTick(uncork, stream);
}

function uncork(stream: Redis['stream']): void {
  corkedThisTurn.delete(stream);
  stream.uncork();
}
