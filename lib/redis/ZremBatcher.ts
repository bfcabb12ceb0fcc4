// Acknowledging a job is a ZREM of its reserved string. A worker running many jobs at once finishes many
// of them in the same turn of the event loop; sending one ZREM per job costs Redis one command and the
// socket one write each. This gathers the members asked for during one turn of the event loop and sends a
// single `ZREM key m1 m2 ...` per key: Redis ends in exactly the state the separate ZREMs would leave (removing
// members of a sorted set commutes), and each caller's promise settles with that command's reply. More
// members than one command may carry (MAX_COMMAND_ARGUMENTS) go out as several ZREMs of the key.
import type { Cluster, Redis } from 'ioredis';
import { MAX_COMMAND_ARGUMENTS, slices } from './argumentLimit';

// One promise per batch, shared by every caller in it: they all learn the same reply, and a promise, an
// executor and two resolving functions per job would be garbage for every job the worker runs.
interface Pending {
  members: (string | Buffer)[];
  done: Promise<void>;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * A key's gathered members, taken out of the turn's flush by a caller that sends them in a write of its
 * own. Exactly one of its functions must be called, once the write's fate is known.
 */
export interface TakenMembers {
  /** The members to remove: they must go to Redis as a ZREM of the key, or through {@link resend}. */
  readonly members: readonly (string | Buffer)[];
  /** Redis ran the write: settle the callers with its ZREM's outcome (null when it succeeded). */
  settle(error: Error | null): void;
  /** The write may not have run (its reply was lost): send the ZREM again on its own, then settle. */
  resend(): void;
}

const DONE = Promise.resolve();

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
      // reads, on the cache connection) sends the batch with that pop (take) instead of alone.
      setImmediate(() => this.flush());
    }
    return batch.done;
  }

  /**
   * Take what is gathered for `key` (null when nothing is), for the caller to send at the head of its own
   * write: the worker's pop removes the finished jobs' reservations in the same script call, before it
   * reserves new ones. At most `max` members are handed over; any before them are sent now as ZREMs of
   * their own on the same connection, so they still reach Redis first. Only that key's members move, so
   * the write keeps to one cluster slot; other keys go out with the turn's flush. Removing a member twice
   * changes nothing (a reserved string is never reserved again: the next pop of that job carries one
   * more attempt), which is what makes {@link TakenMembers.resend} safe.
   */
  take(key: string, max: number): TakenMembers | null {
    const batch = this.pending.get(key);
    if (batch === undefined) return null;
    this.pending.delete(key);
    const all = batch.members;
    const members = all.length > max ? all.slice(all.length - max) : all;
    const ahead = all.length > max ? this.send(key, all.slice(0, all.length - max)) : DONE;
    return {
      members,
      settle: (error) => {
        ahead.then(() => (error === null ? batch.resolve() : batch.reject(error)), batch.reject);
      },
      resend: () => {
        Promise.all([ahead, this.send(key, members)]).then(() => batch.resolve(), batch.reject);
      },
    };
  }

  /** Send what is gathered now (close() calls this so nothing waits for a turn that never comes). */
  flush(): void {
    this.scheduled = false;
    const batches = this.pending;
    if (batches.size === 0) return;
    this.pending = new Map();
    for (const [key, { members, resolve, reject }] of batches) this.send(key, members).then(resolve, reject);
  }

  // ZREM `members` from `key`, in as many commands as they need.
  private send(key: string, members: (string | Buffer)[]): Promise<void> {
    return Promise.all(slicesOf(members).map((slice) => this.client.zrem(key, ...slice))).then(() => undefined);
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
