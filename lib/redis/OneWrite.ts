// A few commands that must reach Redis together, in order, in one socket write, each keeping its own
// reply: what the worker's pop sends (its pending acknowledgements, both migrations, the pop itself).
//
// An ioredis pipeline does that, but a profile of the worker at concurrency 50 put about 40 us of Node
// CPU per pop into building one (its constructor defines a method per script on every pipeline) and
// collecting its replies: more than a microsecond per job. On a plain connection that is ready, corking
// the socket and sending the commands one by one gives the same single write for less than half that.
// A cluster, or a connection that is not ready (its commands wait in ioredis' offline queue), still gets
// a pipeline, which knows how to route and replay them.
import type { ChainableCommander, Cluster, Redis } from 'ioredis';

/** Where a command is issued: the corked connection itself, or a pipeline. */
export type CommandTarget = Redis | ChainableCommander;

/** One reply per command, in order: the error, or null and the result (ioredis' pipeline shape). */
export type Replies = [Error | null, unknown][];

export class OneWrite {
  private readonly pipeline: ChainableCommander | null;
  private readonly corked: Redis | null;
  private readonly replies: Promise<[Error | null, unknown]>[] = [];
  private sent = false;

  constructor(client: Redis | Cluster) {
    const direct = writesDirectly(client);
    this.corked = direct ? client : null;
    this.pipeline = direct ? null : client.pipeline();
    this.corked?.stream.cork();
  }

  /** Issue one command on the target `send` is given; its reply comes back from {@link send}, in order. */
  add(send: (target: CommandTarget) => unknown): void {
    if (this.pipeline !== null) {
      send(this.pipeline);
      return;
    }
    // A command called on the connection answers with its own promise.
    this.replies.push(Promise.resolve(send(this.corked as Redis)).then(succeeded, failed));
  }

  /**
   * Send everything added, in one write, and wait for every reply. Call it exactly once, also when an
   * add threw: a corked socket would otherwise hold every later command of the connection.
   */
  async send(): Promise<Replies> {
    if (this.sent) throw new Error('OneWrite.send called twice');
    this.sent = true;
    if (this.pipeline !== null) return (await this.pipeline.exec()) ?? [];
    (this.corked as Redis).stream.uncork();
    return Promise.all(this.replies);
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
