// Acknowledging a job is a ZREM of its reserved string. A worker running many jobs at once finishes many
// of them in the same turn of the event loop; sending one ZREM per job costs Redis one command and the
// socket one write each. This gathers the members asked for during one turn of the event loop and sends a
// single `ZREM key m1 m2 ...` per key: Redis ends in exactly the state the separate ZREMs would leave (removing
// members of a sorted set commutes), and each caller's promise settles with that command's reply. More
// members than one command may carry (MAX_COMMAND_ARGUMENTS) go out as several ZREMs of the key.
import type { Cluster, Redis } from 'ioredis';
import { MAX_COMMAND_ARGUMENTS, slices } from './argumentLimit';
import type { CommandBatch, Replies } from './CommandBatch';

// One promise per batch, shared by every caller in it: they all learn the same reply, and a promise, an
// executor and two resolving functions per job would be garbage for every job the worker runs.
interface Pending {
  members: (string | Buffer)[];
  done: Promise<void>;
  resolve: () => void;
  reject: (error: unknown) => void;
}

const NOTHING_MOVED = { commands: 0, settle: (): void => undefined };

/** Coalesces the ZREMs asked for within one turn of the event loop into one ZREM per key. */
export class ZremBatcher {
  private pending = new Map<string, Pending>();
  private scheduled = false;

  constructor(private readonly client: Redis | Cluster) {}

  /** ZREM `member` from `key`; resolves once Redis has done it (the promise is the whole batch's: callers share it). */
  zrem(key: string, member: string | Buffer): Promise<void> {
    let batch = this.pending.get(key);
    if (batch === undefined) {
      batch = newBatch();
      this.pending.set(key, batch);
    }
    batch.members.push(member);
    if (!this.scheduled) {
      this.scheduled = true;
      // setImmediate runs after the I/O of this turn of the event loop: every job settled in it joins the
      // batch, and a worker whose next pop waits for a reply that came in the same turn (its stop and pause
      // reads, on the cache connection) sends the batch with that pop (moveInto) instead of alone.
      setImmediate(() => this.flush());
    }
    return batch.done;
  }

  /**
   * Put what is gathered for `key` into `write`, ahead of what the caller adds next, instead of sending
   * it on its own: the pop that follows goes out behind it on the same connection (in the same write,
   * except on a cluster), so Redis runs the ZREM before it. Only that key's batch moves, so the batch
   * keeps to one cluster slot; other keys go out with the turn's flush. Returns how many commands went in
   * (0 unless a batch was waiting) and a function to call with the write's replies (or with the error that
   * failed the whole write), which settles each caller's promise.
   */
  moveInto(write: CommandBatch, key: string): { commands: number; settle(replies: Replies | Error): void } {
    const batch = this.pending.get(key);
    if (batch === undefined) return NOTHING_MOVED;
    this.pending.delete(key);
    const commands = slicesOf(batch.members);
    for (const members of commands) write.add((target) => target.zrem(key, ...members));
    return {
      commands: commands.length,
      settle: (replies) => {
        const error = replies instanceof Error ? replies : replies.slice(0, commands.length).find(([e]) => e)?.[0];
        if (error) batch.reject(error);
        else batch.resolve();
      },
    };
  }

  /** Send what is gathered now (close() calls this so nothing waits for a turn that never comes). */
  flush(): void {
    this.scheduled = false;
    const batches = this.pending;
    if (batches.size === 0) return;
    this.pending = new Map();
    for (const [key, { members, resolve, reject }] of batches) {
      Promise.all(slicesOf(members).map((slice) => this.client.zrem(key, ...slice))).then(() => resolve(), reject);
    }
  }
}

// The members of one ZREM each: as many as fit in a command beside `ZREM key`.
function slicesOf(members: (string | Buffer)[]): (string | Buffer)[][] {
  return slices(members, MAX_COMMAND_ARGUMENTS - 2);
}

function newBatch(): Pending {
  let resolve!: () => void;
  let reject!: (error: unknown) => void;
  const done = new Promise<void>((yes, no) => {
    resolve = yes;
    reject = no;
  });
  return { members: [], done, resolve, reject };
}
