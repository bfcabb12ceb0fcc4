// The MULTI ... EXEC of bulk(), written to the socket in chunks while it is built instead of in one piece
// at the end.
//
// Why, from the profile of bulk() on 1,000-job calls (2-vCPU VM under nested virtualization, where the
// first touch of a fresh page costs about 14 us): the whole call went into one buffer of about a megabyte,
// which ioredis' MULTI then copied into another for its single write. With the same job objects reused
// from call to call (so that none of the garbage was the caller's), those buffers still cost 36-110 page
// faults per call, and Redis read nothing of the call before it was all built. Sent in chunks of
// CHUNK_BYTES, the buffers are small enough for malloc to hand the same memory back call after call (no
// faults left in the same test, 100-147k -> 167-187k jobs/s), and Redis reads and queues one chunk while
// the next is built; running the RPUSHes still waits for EXEC, as a MULTI must.
//
// Streaming is safe only where each command goes to the socket when it is sent and nothing else can be
// written between MULTI and EXEC: a plain connection that is ready, without auto-pipelining. bulk() issues
// every command of the transaction in one synchronous run, so no other caller's command lands inside it.
// A cluster, or a connection that is not ready (its commands wait in ioredis' offline queue), keeps
// ioredis' MULTI pipeline, which routes and replays it as a whole.
import { Command, type ChainableCommander, type Cluster, type Pipeline, type Redis } from 'ioredis';
import { writesDirectly, type Replies } from './OneWrite';

/** Chunk size: the commands of a bulk call go to the socket whenever this many bytes are waiting. */
export const CHUNK_BYTES = 64 * 1024;

/** Where bulk() issues its commands: a command object, or a call of a defined script. */
export interface BulkTransaction {
  /** Queue a command object in the transaction. */
  send(command: Command): void;
  /** Queue whatever `issue` sends on the target (a script call from lib/redis/scripts). */
  issue(issue: (target: Redis | ChainableCommander) => unknown): void;
  /** A chunk is complete: write what is queued (a no-op for a pipeline, which writes at exec). */
  flush(): void;
  /** EXEC; resolves to each command's reply, as an ioredis pipeline's exec() does. */
  exec(): Promise<Replies>;
  /** Give up: DISCARD what was sent, so Redis is left untouched. */
  discard(): void;
}

/** The transaction for `client`: streamed on a plain ready connection, ioredis' MULTI pipeline otherwise. */
export function bulkTransaction(client: Redis | Cluster): BulkTransaction {
  // auto-pipelining defers a script call to the next tick, which would take it out of the transaction
  return writesDirectly(client) && client.options.enableAutoPipelining !== true ? new StreamedTransaction(client) : new PipelinedTransaction(client);
}

class StreamedTransaction implements BulkTransaction {
  private readonly socket: Redis['stream'];
  // The first error a queued command got (Redis refuses a command at queue time, e.g. out of memory): EXEC
  // then fails with a bare EXECABORT, and this is the reason worth reporting.
  private refused: Error | undefined;
  private readonly noteRefusal = (error: Error): void => {
    this.refused ??= error;
  };
  // Each command of the transaction is numbered as ioredis numbers a pipeline's. When the connection closes,
  // ioredis resends the commands that got no reply; a run of them that does not start at 0 is a transaction
  // whose MULTI already answered, and ioredis rejects it instead, where resending it would run the
  // RPUSHes outside any MULTI on the new connection.
  private index = 0;
  // What issue() gives a script call: the client, but each command it sends is numbered first.
  private readonly numbering: Redis;

  constructor(private readonly client: Redis) {
    this.socket = client.stream;
    this.numbering = Object.create(client, {
      sendCommand: { value: (command: Command, stream?: unknown) => client.sendCommand(this.number(command), stream as never) },
    }) as Redis;
    this.socket.cork();
    this.queue(new Command('multi', []));
  }

  send(command: Command): void {
    this.queue(command);
  }

  issue(issue: (target: Redis | ChainableCommander) => unknown): void {
    (Promise.resolve(issue(this.numbering)) as Promise<unknown>).catch(this.noteRefusal);
  }

  flush(): void {
    // uncork writes everything corked so far in one writev; cork again for the next chunk
    this.socket.uncork();
    this.socket.cork();
  }

  async exec(): Promise<Replies> {
    const exec = this.client.sendCommand(this.number(new Command('exec', []))) as Promise<unknown>;
    this.socket.uncork();
    let results: unknown;
    try {
      results = await exec;
    } catch (error) {
      throw this.refused ?? error;
    }
    return ((results ?? []) as unknown[]).map((r): [Error | null, unknown] => (r instanceof Error ? [r, undefined] : [null, r]));
  }

  discard(): void {
    (this.client.sendCommand(this.number(new Command('discard', []))) as Promise<unknown>).catch(() => undefined);
    this.socket.uncork();
  }

  private queue(command: Command): void {
    (this.client.sendCommand(this.number(command)) as Promise<unknown>).catch(this.noteRefusal);
  }

  private number(command: Command): Command {
    command.pipelineIndex = this.index++;
    command.inTransaction = true;
    return command;
  }
}

class PipelinedTransaction implements BulkTransaction {
  // a MULTI is an ioredis Pipeline, which takes a command object as it is
  private readonly multi: Pipeline;

  constructor(client: Redis | Cluster) {
    this.multi = client.multi() as unknown as Pipeline;
  }

  send(command: Command): void {
    this.multi.sendCommand(command);
  }

  issue(issue: (target: Redis | ChainableCommander) => unknown): void {
    issue(this.multi);
  }

  flush(): void {
    // a pipeline is written whole by exec()
  }

  async exec(): Promise<Replies> {
    return ((await this.multi.exec()) ?? []) as Replies;
  }

  discard(): void {
    // nothing was written: dropping the pipeline leaves Redis untouched
  }
}
