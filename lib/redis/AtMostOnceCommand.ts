// A queue write that Redis runs at most once, whatever happens to the connection it was written on.
//
// When a connection closes, ioredis (by default) writes again, on the new connection, every command it
// had written and got no answer for. For a queue write that is a blind replay: Redis may have run the
// first one and only the reply was lost, so a push lands twice, or a pop reserves a job nobody hears of.
// And with that resend turned off, ioredis drops those commands without settling their promises.
//
// A command of this class settles on its own instead: when the socket it was last written to closes
// before its reply came, it rejects with UnconfirmedWriteError (the write may or may not have run), and
// if ioredis writes it again all the same, a PING goes out in its place, so the replay changes nothing
// in Redis and its reply settles nothing. A command redirected to another node (a cluster's MOVED, which
// Redis answered without running it) is written again normally: only a close before the reply counts.
// A READONLY reply under reconnectOnReadOnly takes the first path too: ioredis reconnects and queues the
// command again without settling it, so the close rejects it and what goes out again is a PING.
//
// Everything here is ioredis' public API: a Command subclass, its resolve/reject, and the socket it hands
// to toWritable, whose 'close' event is Node's.
import { Command, ReplyError } from 'ioredis';
import { UnconfirmedWriteError } from '../errors';

// The commands written to a socket that have no reply yet, per socket; and the sockets already watched.
// An array, each command holding its index in it, not a Set: with concurrent pushes the collection never
// empties, and a Set that never empties keeps every member it ever held past each minor collection (see
// support/ArrayMap): 10 to 15% of what a dispatching process allocated (spec/integration/dispatch-garbage).
const unanswered = new WeakMap<object, AtMostOnceCommand[]>();

/** Constructor options of an {@link AtMostOnceCommand}. */
export interface AtMostOnceOptions {
  /**
   * What the command does, for the error (e.g. `the push to queues:default`); null for a write whose replay
   * changes nothing (a ZREM), which ioredis may then resend as it resends any command.
   */
  readonly what: string | null;
  /** Bulk strings of the reply as Buffers rather than strings. */
  readonly buffers?: boolean;
}

export class AtMostOnceCommand extends Command {
  private readonly what: string | null;
  private socket: object | undefined;
  // Where the command sits in its socket's unanswered list while it is there.
  private index = -1;
  private answered = false;
  private lost = false;

  constructor(name: string, args: (string | Buffer | number)[], options: AtMostOnceOptions) {
    super(name, args, { replyEncoding: options.buffers === true ? null : 'utf8' });
    this.what = options.what;
    const resolve = this.resolve;
    const reject = this.reject;
    this.resolve = (result: unknown) => {
      this.settle();
      resolve(result);
    };
    this.reject = (error: Error) => {
      // Written, and failed for any reason but Redis' own answer (the connection closed, ioredis gave up
      // on it, a command timeout): Redis may have run it.
      const unconfirmed =
        this.what !== null &&
        this.socket !== undefined &&
        !this.answered &&
        !(error instanceof ReplyError) &&
        !(error instanceof UnconfirmedWriteError);
      if (unconfirmed) this.lost = true;
      this.settle();
      reject(unconfirmed ? new UnconfirmedWriteError(this.what as string, { cause: error }) : error);
    };
  }

  /** Whether ioredis wrote the command to a connection (so Redis may have run it). */
  get written(): boolean {
    return this.socket !== undefined;
  }

  /** Whether the connection closed before Redis answered: the write may or may not have run. */
  get unconfirmed(): boolean {
    return this.lost;
  }

  // ioredis calls this as it writes the command to `socket`. A replay writes a PING in its place.
  override toWritable(socket: object): string | Buffer {
    if (this.lost) return new Command('ping', []).toWritable(socket);
    if (isSocket(socket)) this.watch(socket);
    return super.toWritable(socket);
  }

  private watch(socket: Closable): void {
    if (this.what === null) {
      this.socket = socket;
      return;
    }
    this.leaveUnanswered();
    this.socket = socket;
    let pending = unanswered.get(socket);
    if (pending === undefined) {
      const list: AtMostOnceCommand[] = [];
      pending = list;
      unanswered.set(socket, list);
      socket.once('close', () => {
        unanswered.delete(socket);
        for (const command of list.slice()) command.connectionClosed();
      });
    }
    this.index = pending.length;
    pending.push(this);
  }

  // Leave the unanswered list of the socket it was written to: the last command takes its place.
  private leaveUnanswered(): void {
    if (this.index < 0) return;
    const pending = unanswered.get(this.socket as object);
    if (pending !== undefined) {
      const last = pending.pop() as AtMostOnceCommand;
      if (last !== this) {
        pending[this.index] = last;
        last.index = this.index;
      }
    }
    this.index = -1;
  }

  private connectionClosed(): void {
    if (this.answered) return;
    this.lost = true;
    this.reject(new UnconfirmedWriteError(this.what as string));
  }

  private settle(): void {
    if (this.answered) return;
    this.answered = true;
    this.leaveUnanswered();
  }
}

/** What a socket is to us: something that says when it closed. */
interface Closable {
  once(event: 'close', listener: () => void): unknown;
}

function isSocket(socket: object | undefined): socket is Closable {
  return typeof (socket as Partial<Closable> | undefined)?.once === 'function';
}
