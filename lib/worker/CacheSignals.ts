// The worker's side of Laravel's cache signals: `queue:restart` (Worker::queueShouldRestart, 13.x),
// `queue:pause` per queue (12.40+) and for every queue (`queue:pause --all`, 13.25+; Worker::getNextJob
// reads them through QueueManager::isPaused). Keys, reads and PHP comparisons are lib/cache/signals'; what
// is kept here is the worker's own bookkeeping: the restart baseline and what a failed read means.
import type { CacheStore, CacheValue } from '../cache/CacheStore';
import { isPaused, isPausedGlobally, readRestart, restartRequested } from '../cache/signals';
import type { WorkerCache } from '../jobs/contracts';
import { type Clock, systemClock } from '../clock';
import type { LaravelRelease } from '../LaravelLine';
import { type Ahead, PREFETCH_FRESH_MS, RecentRead, started } from './RecentRead';

export { PREFETCH_FRESH_MS, REFRESH_AFTER_MS } from './RecentRead';

/** How CacheSignals reads; every field is optional. */
export interface CacheSignalsOptions {
  /** The PHP side's release, whose signals the worker honours (default: 13.25+ ones included). */
  laravel?: LaravelRelease;
  /** The time source deciding whether a read started ahead is still fresh. */
  clock?: Clock;
  /**
   * Read ahead (what the Worker does): a check takes the newest read that answered and was started at
   * most PREFETCH_FRESH_MS before it, so a check rarely waits for Redis and the pop after it leaves with
   * the last job's acknowledgement; once that read is REFRESH_AFTER_MS old the check starts the next one
   * beside it. About one read per REFRESH_AFTER_MS, however many checks. Without it: one read per check.
   */
  readAhead?: boolean;
}

/** Reads the restart and pause signals; without a cache there are none. */
export class CacheSignals {
  // undefined: not read successfully yet; the first good read becomes the baseline.
  private lastRestart: CacheValue | undefined;
  private restartSeen: RestartSignal | undefined;
  private readonly globalPause: boolean;
  // Reads started ahead of the check that uses them (see prefetch), with when each was started: a check
  // takes one at most once, and only while it is fresh.
  private restartAhead: Ahead<CacheValue> | undefined;
  private readonly pausedAhead = new Map<string, Ahead<boolean>>();
  // With readAhead: the reads a check may take, one per signal (see RecentRead); the pause flags' by
  // connection, then queue: the worker's own name strings, found without building a key each pass.
  private readonly restartRecent = new RecentRead<CacheValue>();
  private readonly pausedRecent = new Map<string, Map<string, RecentRead<boolean>>>();

  private readonly clock: Clock;
  private readonly readAhead: boolean;
  // What the reads started ahead go through: their GETs of one turn as one `many` (see AheadReads).
  private readonly ahead: Pick<CacheStore, 'get'> | undefined;

  constructor(
    private readonly cache: WorkerCache | undefined,
    private readonly report: (error: unknown) => void,
    options: CacheSignalsOptions = {},
  ) {
    this.globalPause = options.laravel?.has('globalPause') ?? true;
    this.clock = options.clock ?? systemClock;
    this.readAhead = options.readAhead ?? false;
    this.ahead = cache === undefined ? undefined : aheadReads(cache);
  }

  /** Remember the restart timestamp as the worker starts (Laravel's getTimestampOfLastQueueRestart). */
  async start(): Promise<void> {
    this.lastRestart = undefined;
    this.restartSeen = undefined;
    if (this.cache === undefined) return;
    try {
      this.lastRestart = await readRestart(this.cache);
    } catch (e) {
      this.report(e);
    }
  }

  /** Whether `queue:restart` ran since start (restartRequested). A failed read is reported and never taken for a restart. */
  async shouldRestart(): Promise<boolean> {
    if (this.cache === undefined) return false;
    let read: Promise<CacheValue>;
    if (this.readAhead) read = this.restartRecent.take(this.clock.nowMs(), this.readRestartAhead);
    else {
      read = this.fresh(this.restartAhead) ?? readRestart(this.cache);
      this.restartAhead = undefined;
    }
    try {
      const current = await read;
      if (this.lastRestart === undefined) this.lastRestart = current;
      if (!restartRequested(this.lastRestart, current)) return false;
      this.restartSeen = { atStart: this.lastRestart, now: current };
      return true;
    } catch (e) {
      this.report(e);
      return false;
    }
  }

  /** The values that made the last shouldRestart() true: the restart key at start and as it was read then. */
  get restartSignal(): RestartSignal | undefined {
    return this.restartSeen;
  }

  /**
   * Whether `queue:pause` holds the queue (12.40+), or `queue:pause --all` holds every queue (13.25+), as
   * 13.x's QueueManager::isPaused reads them; the global flag only for a 13.25+ peer, as older workers
   * never read it. The flags are read side by side (one round trip on a pipelined connection). Errors
   * propagate: getNextJob reports them.
   */
  async isPaused(connection: string, queue: string): Promise<boolean> {
    if (this.cache === undefined) return false;
    if (this.readAhead)
      return this.pausedRecentFor(connection, queue).take(this.clock.nowMs(), () =>
        this.readPaused(this.ahead!, connection, queue),
      );
    const key = `${connection}\0${queue}`;
    const ahead = this.fresh(this.pausedAhead.get(key));
    this.pausedAhead.delete(key);
    return ahead ?? this.readPaused(this.cache, connection, queue);
  }

  /**
   * Start, in this turn, the reads the worker's next stop check and pass make that are not started yet:
   * the restart signal, then each queue's pause flags, in the order the checks make them. Sent together
   * they share one round trip, instead of one after the other, and overlap whatever else is
   * in flight. Each read is taken once, by the next check for it, and only within
   * {@link PREFETCH_FRESH_MS} of being started: a check that comes later (after a sleep, or a long job)
   * reads afresh, so no check acts on a value older than that. Reads change nothing, and only a PHP
   * command writes these keys.
   */
  prefetch(connection: string, queues: readonly string[]): void {
    const cache = this.ahead;
    if (cache === undefined) return;
    const at = this.clock.nowMs();
    if (this.readAhead) {
      this.restartRecent.refresh(at, this.readRestartAhead);
      for (const queue of queues)
        this.pausedRecentFor(connection, queue).refresh(at, () => this.readPaused(cache, connection, queue));
      return;
    }
    if (this.fresh(this.restartAhead) === undefined) this.restartAhead = started(readRestart(cache), at);
    for (const queue of queues) {
      const key = `${connection}\0${queue}`;
      if (this.fresh(this.pausedAhead.get(key)) === undefined)
        this.pausedAhead.set(key, started(this.readPaused(cache, connection, queue), at));
    }
  }

  /** Forget the reads prefetch() started that no check took. */
  dropPrefetched(): void {
    this.restartAhead = undefined;
    this.pausedAhead.clear();
    this.restartRecent.clear();
    this.pausedRecent.clear();
  }

  private readonly readRestartAhead = (): Promise<CacheValue> => readRestart(this.ahead!);

  private pausedRecentFor(connection: string, queue: string): RecentRead<boolean> {
    let queues = this.pausedRecent.get(connection);
    if (queues === undefined) this.pausedRecent.set(connection, (queues = new Map()));
    let recent = queues.get(queue);
    if (recent === undefined) queues.set(queue, (recent = new RecentRead()));
    return recent;
  }

  private fresh<T>(read: Ahead<T> | undefined): Promise<T> | undefined {
    return read !== undefined && this.clock.nowMs() - read.at <= PREFETCH_FRESH_MS ? read.value : undefined;
  }

  private async readPaused(cache: Pick<CacheStore, 'get'>, connection: string, queue: string): Promise<boolean> {
    if (!this.globalPause) return isPaused(cache, connection, queue);
    const [all, one] = await Promise.all([isPausedGlobally(cache), isPaused(cache, connection, queue)]);
    return all || one;
  }
}

/**
 * A `queue:restart` the worker stopped for: the restart key's value when it started and when it changed
 * (RestartCommand::handle writes the Unix seconds; null: no key).
 */
export interface RestartSignal {
  atStart: CacheValue;
  now: CacheValue;
}

// The reads started ahead of their checks, as a store whose `get`s of one turn of the event loop go to the
// cache as one `many` (one MGET on Redis: one command and one write instead of one per key) once that
// turn's promise jobs have run. A store without `many` is read key by key, at once, as before.
function aheadReads(cache: WorkerCache): Pick<CacheStore, 'get'> {
  const many = cache.many?.bind(cache);
  if (many === undefined) return cache;
  let pending: Map<string, Deferred[]> | undefined;
  const send = (): void => {
    const batch = pending!;
    pending = undefined;
    const keys = [...batch.keys()];
    let read: Promise<Map<string, CacheValue>>;
    try {
      read = keys.length === 1 ? cache.get(keys[0]).then((v) => new Map([[keys[0], v]])) : many(keys);
    } catch (e) {
      read = Promise.reject(e);
    }
    read.then(
      (values) => {
        for (const [key, waiting] of batch) for (const d of waiting) d.resolve(values.get(key) ?? null);
      },
      (error: unknown) => {
        for (const waiting of batch.values()) for (const d of waiting) d.reject(error);
      },
    );
  };
  return {
    get: (key) =>
      new Promise<CacheValue>((resolve, reject) => {
        if (pending === undefined) {
          pending = new Map();
          process.nextTick(send);
        }
        const waiting = pending.get(key);
        if (waiting === undefined) pending.set(key, [{ resolve, reject }]);
        else waiting.push({ resolve, reject });
      }),
  };
}

interface Deferred {
  resolve(value: CacheValue): void;
  reject(error: unknown): void;
}
