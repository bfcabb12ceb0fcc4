// A few commands that must reach Redis together, in order, each keeping its own reply: what a blocking
// pop sends (the BLPOP and the pop behind it). The worker's pop needs none: its acknowledgements, both
// migrations and the pop itself are one script call (workerPop-5.lua).
//
// On one connection they go out as an ioredis pipeline: one socket write, and ioredis keeps the commands of
// a connection in the order they were sent, so Redis runs them in that order. A pipeline also knows how to
// wait in ioredis' offline queue when the connection is not ready.
//
// A cluster gets no pipeline: each command is sent on the Cluster client itself, which routes it to its
// slot's node and, when Redis answers MOVED or ASK (it ran nothing there), TRYAGAIN or CLUSTERDOWN, sends it
// again to the node that serves the slot now. A cluster pipeline would not: it resends only when every
// command of it failed with the same redirection, and otherwise hands the redirection back as the command's
// reply. The commands of one batch share a slot, so they still reach one node in the order sent.
import type { ChainableCommander, Cluster, Redis } from 'ioredis';

/** Where a command is issued: a pipeline made from a connection, or a cluster client. */
export type CommandTarget = Cluster | ChainableCommander;

/** One reply per command, in order: the error, or null and the result (ioredis' pipeline shape). */
export type Replies = [Error | null, unknown][];

export class CommandBatch {
  private readonly target: CommandTarget;
  private readonly pipeline: ChainableCommander | null;
  // Per command, in order: its own promise, or undefined when its reply comes from the pipeline's exec().
  private readonly replies: (Promise<[Error | null, unknown]> | undefined)[] = [];
  private sent = false;

  constructor(client: Redis | Cluster) {
    this.pipeline = client.isCluster ? null : client.pipeline();
    this.target = this.pipeline ?? (client as Cluster);
  }

  /**
   * Issue one command on the target `send` is given. Its reply comes back from {@link send}, in order: the
   * promise `send` returns when it returns one of its own, else (a pipeline's chained call) the pipeline's.
   */
  add(send: (target: CommandTarget) => unknown): void {
    const issued = send(this.target);
    const own = issued !== this.pipeline && typeof (issued as { then?: unknown } | null)?.then === 'function';
    this.replies.push(own ? (issued as Promise<unknown>).then(succeeded, failed) : undefined);
  }

  /**
   * Send everything added, in one write on a connection, and wait for every reply. Call it exactly once,
   * also when an add threw: what was added before still goes out.
   */
  async send(): Promise<Replies> {
    if (this.sent) throw new Error('CommandBatch.send called twice');
    this.sent = true;
    if (this.pipeline === null) return Promise.all(this.replies as Promise<[Error | null, unknown]>[]);
    // A command with a promise of its own settles by it, even if the rest of the pipeline never does.
    const executed = this.pipeline.exec().then(
      (r) => (r ?? []) as Replies,
      (e: unknown) => e as Error,
    );
    return Promise.all(
      this.replies.map(
        (own, i) =>
          own ??
          executed.then((r): [Error | null, unknown] =>
            r instanceof Error ? [r, undefined] : (r[i] ?? [new Error('no reply from the pipeline'), undefined]),
          ),
      ),
    );
  }
}

function succeeded(result: unknown): [null, unknown] {
  return [null, result];
}

function failed(error: unknown): [Error, undefined] {
  return [error instanceof Error ? error : new Error(String(error)), undefined];
}
