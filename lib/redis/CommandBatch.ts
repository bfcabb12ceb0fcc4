// A few commands that must reach Redis together, in order, in one socket write, each keeping its own
// reply: what the worker's pop sends (its pending acknowledgements, both migrations, the pop itself).
//
// An ioredis pipeline does that, but building one per pop costs noticeably more Node CPU than the
// commands themselves (its constructor defines a method per script on every pipeline). On a plain
// connection that is ready, the commands are sent one by one on the connection with its socket corked
// (the `stream` ioredis exposes, and Node's cork/uncork), so they leave in one write. Correctness does not
// depend on the cork: were ioredis to write a command later than when it is sent, the commands would
// still go out in order, only in more writes. A connection that is not ready (its commands wait in
// ioredis' offline queue) gets a pipeline, which knows how to queue them.
//
// A cluster gets neither: each command is sent on the Cluster client itself, which routes it to its slot's
// node and, when Redis answers MOVED or ASK (it ran nothing there), TRYAGAIN or CLUSTERDOWN, sends it again
// to the node that serves the slot now. A cluster pipeline would not: it resends only when every command
// of it failed with the same redirection, and otherwise hands the redirection back as the command's reply.
// The commands of one batch share a slot, so they still reach one node in the order sent.
import type { ChainableCommander, Cluster, Redis } from 'ioredis';

/** Where a command is issued: the corked connection itself, a cluster client, or a pipeline. */
export type CommandTarget = Redis | Cluster | ChainableCommander;

/** One reply per command, in order: the error, or null and the result (ioredis' pipeline shape). */
export type Replies = [Error | null, unknown][];

export class CommandBatch {
  private readonly pipeline: ChainableCommander | null;
  private readonly corked: Redis | null;
  // A cluster client: commands go to it one by one (see the file's header).
  private readonly cluster: Cluster | null;
  // Per command, in order: its own promise, or undefined when its reply comes from the pipeline's exec().
  private readonly replies: (Promise<[Error | null, unknown]> | undefined)[] = [];
  private sent = false;

  constructor(client: Redis | Cluster) {
    const direct = writesDirectly(client);
    this.corked = direct ? client : null;
    this.cluster = client.isCluster ? (client as Cluster) : null;
    this.pipeline = direct || this.cluster !== null ? null : client.pipeline();
    this.corked?.stream.cork();
  }

  /**
   * Issue one command on the target `send` is given. Its reply comes back from {@link send}, in order: the
   * promise `send` returns when it returns one of its own, else (a pipeline's chained call) the pipeline's.
   */
  add(send: (target: CommandTarget) => unknown): void {
    const target = (this.corked ?? this.cluster ?? this.pipeline) as CommandTarget;
    const issued = send(target);
    const own = issued !== this.pipeline && typeof (issued as { then?: unknown } | null)?.then === 'function';
    this.replies.push(own ? (issued as Promise<unknown>).then(succeeded, failed) : undefined);
  }

  /**
   * Send everything added, in one write, and wait for every reply. Call it exactly once, also when an
   * add threw: a corked socket would otherwise hold every later command of the connection.
   */
  async send(): Promise<Replies> {
    if (this.sent) throw new Error('CommandBatch.send called twice');
    this.sent = true;
    if (this.pipeline === null) {
      this.corked?.stream.uncork();
      return Promise.all(this.replies as Promise<[Error | null, unknown]>[]);
    }
    // A command with a promise of its own settles by it, even if the rest of the pipeline never does.
    const executed = this.pipeline.exec().then((r) => (r ?? []) as Replies, (e: unknown) => e as Error);
    return Promise.all(
      this.replies.map(
        (own, i) =>
          own ?? executed.then((r): [Error | null, unknown] => (r instanceof Error ? [r, undefined] : (r[i] ?? [new Error('no reply from the pipeline'), undefined]))),
      ),
    );
  }
}

/**
 * A plain connection that is ready: a command sent on it goes to its socket at once, in the order sent
 * (a cluster routes it, a connection not ready holds it in ioredis' offline queue).
 */
export function writesDirectly(client: Redis | Cluster): client is Redis {
  return !client.isCluster && (client as Redis).status === 'ready' && (client as Redis).stream?.writable === true;
}

function succeeded(result: unknown): [null, unknown] {
  return [null, result];
}

function failed(error: unknown): [Error, undefined] {
  return [error instanceof Error ? error : new Error(String(error)), undefined];
}
