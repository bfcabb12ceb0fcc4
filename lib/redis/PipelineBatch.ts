// Writes asked for within one turn of the event loop, sent as one pipeline at the end of that turn. A
// worker that finishes fifty jobs in a turn then builds one ioredis Pipeline for their records, not
// fifty: a Pipeline costs microseconds to build, and each one holds a getter that closes over it
// (ioredis 6.0.0 `built/Pipeline.js`), which kept each pipeline and everything its commands reference
// alive through minor collections (see support/ArrayMap).
//
// Each caller still learns only its own commands' fate: it is told the first error among the replies to
// the commands it added, not another caller's. The commands of one turn go out in the order they were
// added, on the client's one connection (or, on a cluster, to the node of their one slot).
import type { ChainableCommander, Cluster, Redis } from 'ioredis';

interface Batch {
  readonly pipe: ChainableCommander;
  readonly replies: Promise<[Error | null, unknown][] | null>;
  send(): void;
}

/** One pipeline per turn of the event loop for the writes added to it. */
export class PipelineBatch {
  private open: Batch | null = null;

  constructor(private readonly client: Redis | Cluster) {}

  /**
   * Add the commands `write` puts on the pipeline to this turn's batch; resolves once Redis ran them, or
   * rejects with the first error among their replies (or the pipeline's own, when it could not be sent).
   */
  add(write: (pipe: ChainableCommander) => void): Promise<void> {
    const batch = this.open ?? this.start();
    const from = batch.pipe.length;
    write(batch.pipe);
    const to = batch.pipe.length;
    return batch.replies.then((replies) => {
      for (let i = from; i < to; i++) {
        const error = replies?.[i]?.[0];
        if (error) throw error;
      }
    });
  }

  /** Send the open batch now (a queue that closes calls this, so its writes leave before its QUIT). */
  flush(): void {
    this.open?.send();
  }

  private start(): Batch {
    const pipe = this.client.pipeline();
    let exec!: () => void;
    const replies = new Promise<[Error | null, unknown][] | null>((resolve) => (exec = () => resolve(pipe.exec())));
    // Sent once: by the end of the turn, or earlier by flush().
    const batch: Batch = {
      pipe,
      replies,
      send: () => {
        if (this.open !== batch) return;
        this.open = null;
        exec();
      },
    };
    this.open = batch;
    setImmediate(batch.send);
    return batch;
  }
}
