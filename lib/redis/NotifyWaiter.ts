// The blocking half of a pop with blockFor: BLPOP on the queue's notify list, on a connection of its own
// so that a wait never delays the queue's other commands, and Laravel's pop after the wake-up sent right
// behind it (in the same write, except on a cluster: see CommandBatch; the pop still arrives behind it).
//
// Why behind it: Redis keeps a blocked client's next commands in its input and runs them the moment the
// BLPOP returns. So when a push wakes the wait, the pop has already arrived; Redis runs it at once and
// both replies come back together: from push to job is one round trip instead of two (one wake-up of
// each process instead of two, which is most of the pickup latency on a busy host). Redis runs exactly
// what Laravel's worker runs: BLPOP, then the pop script.
//
// What that costs, and how it is kept exact:
// - The pop's reservation expiry (now + retryAfter, whole seconds) is computed when the pop is sent, not
//   when it runs. When the wait crossed a second, the reservation is moved to the expiry Laravel's pop
//   would have given it (the extendReservation script, on the queue's main connection, ahead of the
//   job's acknowledgement). So that an early expiry can never already be due, a wait is cut into BLPOPs
//   of at most half of retryAfter.
// - When a BLPOP times out, its pop still runs. On an empty list it changes nothing; what it finds (a job
//   pushed without a notify token, or whose token another worker's pop consumed) is handed over like a
//   woken pop's job, never left reserved by nobody.
import type { Cluster, Redis } from 'ioredis';
import type { QueueKeys } from './keys';
import { AtMostOnceCommand } from './AtMostOnceCommand';
import { CommandBatch } from './CommandBatch';
import { whenConnected } from './whenConnected';
import { longestBlockingWait, readTimeoutOptions } from './readTimeout';
import { defineScripts, popReply, scripts, type PopReply } from './scripts';

/** How one wait ended: whether BLPOP took a token, and the reply of the pop that followed it. */
export class Wake {
  constructor(
    /** BLPOP took a notify token (a push woke it), rather than timing out or being cut by close(). */
    readonly woke: boolean,
    private popped: PopReply | Error | undefined,
  ) {}

  /**
   * The reply of the pop that followed the wait, handed to the first caller that claims it; undefined for
   * every other caller sharing the wait (each of those runs its own pop when `woke`, as Laravel retries
   * once after a wake-up), and when close() cut the wait.
   */
  claimPopped(): PopReply | Error | undefined {
    const popped = this.popped;
    this.popped = undefined;
    return popped;
  }
}

/** What the waiter needs of its queue. */
export interface NotifyWaiterOptions {
  /** Seconds to wait in all (may be fractional); 0 = until a push or close(). */
  readonly blockFor: number;
  /** The queue's retryAfter: bounds each BLPOP (see the file's header); null = reservations never expire. */
  readonly retryAfter: number | null;
  /** The queue's readTimeout: the blocking connection's, which bounds each BLPOP too; null = none. */
  readonly readTimeout: number | null;
  /** The expiry a pop issued now gives its reservation (the queue's availableAt(retryAfter)). */
  readonly expiry: () => number;
}

/** A wait that ended without a wake-up and without a pop reply (close() cut it). */
const cutWait = (): Wake => new Wake(false, undefined);

export class NotifyWaiter {
  private connection: Redis | Cluster | undefined;
  private readonly waits = new Map<string, Promise<Wake>>();
  private closed = false;

  constructor(
    private readonly client: Redis | Cluster,
    private readonly options: NotifyWaiterOptions,
  ) {}

  /**
   * Wait on `keys.notify`. Callers waiting on the same list share one wait: a worker with two polling loops
   * would otherwise queue a second BLPOP behind the first on the blocking connection, and a stop could then
   * wait twice as long. The job the wait's pop found goes to exactly one of them (Wake.claimPopped).
   */
  wait(keys: QueueKeys): Promise<Wake> {
    let waiting = this.waits.get(keys.notify);
    if (waiting === undefined) {
      waiting = this.waitInSlices(keys).finally(() => this.waits.delete(keys.notify));
      this.waits.set(keys.notify, waiting);
    }
    return waiting;
  }

  /** Cut the blocking connection: a wait in progress ends not woken. */
  close(): void {
    this.closed = true;
    // disconnect, not quit: QUIT would wait behind a BLPOP that may block forever.
    this.connection?.disconnect();
  }

  private async waitInSlices(keys: QueueKeys): Promise<Wake> {
    const { blockFor, retryAfter, readTimeout } = this.options;
    // Slices are whole seconds, as a BLPOP timeout before Redis 6 had to be.
    const longest = Math.min(
      retryAfter === null ? Infinity : Math.max(1, Math.floor(retryAfter / 2)),
      longestBlockingWait(readTimeout),
    );
    // A wait that fits in one BLPOP sends blockFor as given (0 = forever), as Laravel's worker does.
    if (longest === Infinity || (blockFor !== 0 && blockFor <= longest)) return this.blockOnce(keys, blockFor);
    const started = performance.now();
    const elapsed = () => (performance.now() - started) / 1000;
    for (;;) {
      const timeout = blockFor === 0 ? longest : Math.min(longest, Math.ceil(blockFor - elapsed()));
      const wake = await this.blockOnce(keys, timeout);
      if (wake.woke || this.closed || (blockFor !== 0 && elapsed() >= blockFor)) return wake;
      // The slice timed out: a job (or error) its pop found ends the wait too.
      const popped = wake.claimPopped();
      if (popped instanceof Error || (popped !== undefined && popped.kind !== 'empty')) return new Wake(false, popped);
    }
  }

  // One BLPOP and the pop behind it, on the blocking connection (one write, except on a cluster).
  private async blockOnce(keys: QueueKeys, timeout: number): Promise<Wake> {
    const connection = this.blockingConnection();
    try {
      await whenConnected(connection, `the wait on ${keys.notify}`);
    } catch (error) {
      if (this.closed) return cutWait();
      throw error;
    }
    if (this.closed) return cutWait();
    const sentExpiry = this.options.expiry();
    const write = new CommandBatch(connection);
    // Both at most once: after a reconnect neither is sent again (the BLPOP would hold the connection for
    // its whole timeout, the pop would reserve a job nobody hears of); the pop's error says what happened.
    const blpop = new AtMostOnceCommand('blpop', [keys.notify, timeout], { what: `the wait on ${keys.notify}` });
    write.add((t) => {
      (t as unknown as { sendCommand(command: AtMostOnceCommand): unknown }).sendCommand(blpop);
      return blpop.promise as Promise<unknown>;
    });
    write.add((t) => scripts.popOneInto(t, connection, keys, sentExpiry));
    let replies;
    try {
      replies = await write.send();
    } catch (error) {
      if (this.closed) return cutWait();
      throw error;
    }
    const [[waitError, token], [popError, raw]] = replies;
    const popped: PopReply | Error = popError ?? popReply(raw);
    if (!(popped instanceof Error) && popped.kind === 'reserved') {
      this.fixExpiry(keys, popped.reserved, sentExpiry);
      // A job reserved is handed over whatever else happened: only its owner will ever delete it.
      return new Wake(waitError === null && token !== null, popped);
    }
    if (this.closed) return cutWait();
    // Both lost with the connection: the pop's error is the one that matters (it may have reserved a job).
    if (waitError !== null) throw popError ?? waitError;
    return new Wake(token !== null, popped);
  }

  // The pop ran in a later second than the one its expiry was computed in: move the reservation to what
  // Laravel's pop, run then, would have given it. Sent now on the main connection, so it reaches Redis
  // before the job's acknowledgement or release; not awaited, so the job starts without another round
  // trip. A failure changes nothing for the job: its reservation only stays a few seconds early. With
  // retryAfter null the score is the pop's "now", which nothing migrates by, but inspection shows it.
  private fixExpiry(keys: QueueKeys, reserved: string | Buffer, sentExpiry: number): void {
    const expiry = this.options.expiry();
    if (expiry === sentExpiry) return;
    scripts.extendReservation(this.client, keys, reserved, expiry).catch(() => undefined);
  }

  private blockingConnection(): Redis | Cluster {
    if (this.connection === undefined) {
      // Its own read timeout, whatever the main client has (a BLPOP must end inside it; see readTimeout.ts).
      const { socketTimeout, keepAlive } = readTimeoutOptions(this.options.readTimeout);
      const own = { socketTimeout, ...(keepAlive !== undefined ? { keepAlive } : {}) };
      this.connection = this.client.isCluster
        ? (this.client as Cluster).duplicate([], {
            redisOptions: { ...(this.client as Cluster).options.redisOptions, ...own },
          })
        : (this.client as Redis).duplicate(own);
      // Ours, whoever owns the main client: without a listener ioredis prints every failed reconnect as
      // an unhandled 'error' event. The wait itself rejects with the error.
      this.connection.on('error', () => undefined);
      defineScripts(this.connection);
    }
    return this.connection;
  }
}
