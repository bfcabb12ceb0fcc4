// In-memory stand-ins for the Worker's dependencies, modelling what Redis would hold: a queue with its
// pending list, `:delayed` and `:reserved` sorted sets (pop migrates due delayed and expired reserved
// jobs first, then reserves with attempts + 1), Laravel's array cache store, a failed-job log, and virtual
// time: sleeps wait on a FakeClock that jumps to the next due sleep whenever everything else is idle,
// so specs about seconds, minutes and retry_after run instantly.
import { ArrayCacheStore } from '../../lib/cache/ArrayCacheStore';
import type { CacheValue } from '../../lib/cache/CacheStore';
import { FakeClock, unixSeconds } from '../../lib/clock';
import type { FailedJobLogger, WorkerCache, WorkerJob, WorkerQueue } from '../../lib/jobs/contracts';

/** Virtual time: a FakeClock plus a sleep that resolves in due order once the process is idle. */
export class VirtualTime {
  readonly clock: FakeClock;
  /** Every sleep asked for, in ms. */
  readonly sleeps: number[] = [];
  private waiters: { at: number; seq: number; resolve: () => void }[] = [];
  private seq = 0;
  private scheduled = false;

  constructor(startSeconds = 1_767_225_600) {
    this.clock = new FakeClock(startSeconds * 1000);
  }

  /** UNIX seconds now. */
  now(): number {
    return unixSeconds(this.clock);
  }

  /** The Worker's `sleep` dependency. */
  readonly sleep = (ms: number, signal?: AbortSignal): Promise<void> => {
    this.sleeps.push(ms);
    if (signal?.aborted) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const aborted = (): void => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        resolve();
      };
      const waiter = {
        at: this.clock.nowMs() + ms,
        seq: this.seq++,
        resolve: () => {
          signal?.removeEventListener('abort', aborted);
          resolve();
        },
      };
      this.waiters.push(waiter);
      signal?.addEventListener('abort', aborted, { once: true });
      this.schedule();
    });
  };

  // setImmediate runs after every pending promise reaction: nothing else can happen before the next sleep ends.
  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      if (this.waiters.length === 0) return;
      this.waiters.sort((a, b) => a.at - b.at || a.seq - b.seq);
      const next = this.waiters.shift()!;
      if (next.at > this.clock.nowMs()) this.clock.setSeconds(next.at / 1000);
      next.resolve();
      this.schedule();
    });
  }
}

/** The fields a spec sets on a payload; everything else gets Laravel's defaults. */
export interface FakePayload {
  job?: string;
  displayName?: string;
  uuid?: string | null;
  maxTries?: number | null;
  maxExceptions?: number | null;
  failOnTimeout?: boolean;
  backoff?: string | null;
  timeout?: number | null;
  retryUntil?: number | null;
  delay?: number | null;
  data?: unknown;
  attempts?: number;
  id?: string;
}

/** One reserved job, as RedisJob holds it: the original string and the reserved copy. */
export class FakeJob implements WorkerJob {
  private deleted = false;
  private released = false;
  private failed = false;
  private readonly decoded: Record<string, unknown>;

  constructor(
    private readonly store: FakeQueue,
    private readonly body: string,
    private readonly reserved: string,
    private readonly queue: string,
  ) {
    this.decoded = JSON.parse(body) as Record<string, unknown>;
  }

  getRawBody(): string {
    return this.body;
  }
  getReservedJob(): string {
    return this.reserved;
  }
  attempts(): number {
    return Number(this.decoded.attempts ?? 0) + 1;
  }
  uuid(): string | null {
    return (this.decoded.uuid as string | undefined) ?? null;
  }
  getJobId(): string | null {
    return (this.decoded.id as string | undefined) ?? null;
  }
  getQueue(): string {
    return this.queue;
  }
  getConnectionName(): string {
    return this.store.connectionName;
  }
  getName(): string {
    return this.decoded.job as string;
  }
  resolveName(): string {
    return (this.decoded.displayName as string | undefined) || this.getName();
  }
  payload(): Record<string, unknown> {
    return JSON.parse(this.body) as Record<string, unknown>;
  }
  maxTries(): number | null {
    return (this.decoded.maxTries as number | undefined) ?? null;
  }
  maxExceptions(): number | null {
    return (this.decoded.maxExceptions as number | undefined) ?? null;
  }
  timeout(): number | null {
    return (this.decoded.timeout as number | undefined) ?? null;
  }
  retryUntil(): number | null {
    return (this.decoded.retryUntil as number | undefined) ?? null;
  }
  backoff(): string | null {
    const { backoff, delay } = this.decoded;
    if (backoff !== undefined && backoff !== null) return String(backoff);
    return delay === undefined || delay === null ? null : String(delay);
  }
  shouldFailOnTimeout(): boolean {
    return this.decoded.failOnTimeout === true;
  }
  async delete(): Promise<void> {
    this.deleted = true;
    this.store.deleteReserved(this);
  }
  async release(delaySeconds: number): Promise<void> {
    this.released = true;
    this.store.deleteAndRelease(this, delaySeconds);
  }
  isDeleted(): boolean {
    return this.deleted;
  }
  isReleased(): boolean {
    return this.released;
  }
  isDeletedOrReleased(): boolean {
    return this.deleted || this.released;
  }
  markAsFailed(): void {
    this.failed = true;
  }
  hasFailed(): boolean {
    return this.failed;
  }
}

interface QueueState {
  pending: string[];
  delayed: Map<string, number>;
  reserved: Map<string, number>;
}

/** An in-memory Redis queue connection with Laravel's pop/release/delete semantics. */
export class FakeQueue implements WorkerQueue<FakeJob> {
  /** Every operation, e.g. `pop:default`, `delete:default`, `release:default:5`. */
  readonly log: string[] = [];
  /** Thrown by the next pops (one per entry). */
  readonly popErrors: Error[] = [];
  popMany?: (queue: string, index: number, count: number) => Promise<FakeJob[]>;
  extendReservation?: (job: FakeJob, until: number) => Promise<boolean>;
  private readonly queues = new Map<string, QueueState>();
  private ids = 0;

  constructor(
    private readonly time: VirtualTime,
    readonly retryAfter = 90,
    readonly connectionName = 'redis',
    options: { popMany?: boolean; extendReservation?: boolean } = {},
  ) {
    if (options.popMany) {
      this.popMany = async (queue, index, count) => {
        this.log.push(`popMany:${queue}:${count}`);
        const jobs: FakeJob[] = [];
        for (let job = this.popOne(queue); job !== null; job = jobs.length < count ? this.popOne(queue) : null)
          jobs.push(job);
        return jobs;
      };
    }
    if (options.extendReservation) {
      this.extendReservation = async (job, until) => {
        this.log.push(`extend:${job.getQueue()}:${until}`);
        const reserved = this.state(job.getQueue()).reserved;
        if (!reserved.has(job.getReservedJob())) return false;
        reserved.set(job.getReservedJob(), until);
        return true;
      };
    }
  }

  /** Push a payload built from `fields` (Laravel's key order); returns the raw string. */
  push(queue: string, fields: FakePayload = {}): string {
    const id = fields.id ?? `id-${++this.ids}`;
    const payload = {
      uuid: fields.uuid === undefined ? `uuid-${id}` : fields.uuid,
      displayName: fields.displayName ?? 'App\\Jobs\\Example',
      job: fields.job ?? 'Illuminate\\Queue\\CallQueuedHandler@call',
      maxTries: fields.maxTries ?? null,
      maxExceptions: fields.maxExceptions ?? null,
      failOnTimeout: fields.failOnTimeout ?? false,
      backoff: fields.backoff ?? null,
      timeout: fields.timeout ?? null,
      retryUntil: fields.retryUntil ?? null,
      data: fields.data ?? { commandName: fields.displayName ?? 'App\\Jobs\\Example', command: 'O:0:"":0:{}' },
      ...(fields.delay === undefined ? {} : { delay: fields.delay }),
      id,
      attempts: fields.attempts ?? 0,
    };
    const raw = JSON.stringify(payload);
    this.state(queue).pending.push(raw);
    return raw;
  }

  async pop(queue: string, _index: number): Promise<FakeJob | null> {
    this.log.push(`pop:${queue}`);
    const error = this.popErrors.shift();
    if (error) throw error;
    return this.popOne(queue);
  }

  /** Waiting payloads, head first. */
  pending(queue: string): string[] {
    return [...this.state(queue).pending];
  }

  /** Delayed payloads with their due time (UNIX seconds). */
  delayed(queue: string): [string, number][] {
    return [...this.state(queue).delayed];
  }

  /** Reserved payloads with their expiry (UNIX seconds). */
  reserved(queue: string): [string, number][] {
    return [...this.state(queue).reserved];
  }

  /** ZREM :reserved. */
  deleteReserved(job: FakeJob): void {
    this.log.push(`delete:${job.getQueue()}`);
    this.state(job.getQueue()).reserved.delete(job.getReservedJob());
  }

  /** The release script: ZREM :reserved, ZADD :delayed now+delay with the reserved string. */
  deleteAndRelease(job: FakeJob, delay: number): void {
    this.log.push(`release:${job.getQueue()}:${delay}`);
    const state = this.state(job.getQueue());
    state.reserved.delete(job.getReservedJob());
    state.delayed.set(job.getReservedJob(), this.time.now() + delay);
  }

  // migrate(:delayed), migrate(:reserved), then the pop script.
  private popOne(queue: string): FakeJob | null {
    const state = this.state(queue);
    this.migrate(state.delayed, state.pending);
    this.migrate(state.reserved, state.pending);
    const body = state.pending.shift();
    if (body === undefined) return null;
    const decoded = JSON.parse(body) as { attempts: number };
    decoded.attempts += 1;
    const reserved = JSON.stringify(decoded);
    state.reserved.set(reserved, this.time.now() + this.retryAfter);
    return new FakeJob(this, body, reserved, queue);
  }

  private migrate(from: Map<string, number>, to: string[]): void {
    const due = [...from].filter(([, score]) => score <= this.time.now()).sort((a, b) => a[1] - b[1]);
    for (const [payload] of due) {
      from.delete(payload);
      to.push(payload);
    }
  }

  private state(queue: string): QueueState {
    let state = this.queues.get(queue);
    if (state === undefined) this.queues.set(queue, (state = { pending: [], delayed: new Map(), reserved: new Map() }));
    return state;
  }
}

/**
 * The worker's cache: lib/cache's ArrayCacheStore on virtual time, recording each call the worker makes
 * as e.g. `put job-exceptions:u-1 0 86400`. Specs arrange and inspect through `store`, unrecorded.
 */
export class FakeCache implements WorkerCache {
  readonly calls: string[] = [];
  readonly store: ArrayCacheStore;

  constructor(time: VirtualTime) {
    this.store = new ArrayCacheStore({ clock: time.clock });
  }

  get(key: string): Promise<CacheValue> {
    this.calls.push(`get ${key}`);
    return this.store.get(key);
  }

  put(key: string, value: CacheValue, ttlSeconds: number): Promise<boolean> {
    this.calls.push(`put ${key} ${value} ${ttlSeconds}`);
    return this.store.put(key, value, ttlSeconds);
  }

  increment(key: string, by?: number): Promise<number> {
    this.calls.push(by === undefined ? `increment ${key}` : `increment ${key} ${by}`);
    return this.store.increment(key, by);
  }

  forget(key: string): Promise<boolean> {
    this.calls.push(`forget ${key}`);
    return this.store.forget(key);
  }
}

/** A failed-job store that keeps what it was given. */
export class FakeFailer implements FailedJobLogger {
  readonly records: { connection: string; queue: string; payload: string; exception: Error }[] = [];

  async log(connection: string, queue: string, payload: string, exception: Error): Promise<string> {
    this.records.push({ connection, queue, payload, exception });
    return String(this.records.length);
  }
}

/** A promise with its resolve and reject. */
export function deferred<T = void>(): {
  promise: Promise<T>;
  resolve: (value: T) => void;
  reject: (error: unknown) => void;
} {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Let pending promise reactions (and a few virtual-time steps) run. */
export async function tick(rounds = 5): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise((resolve) => setImmediate(resolve));
}
