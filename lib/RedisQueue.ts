// Laravel's RedisQueue over raw payload strings (`Illuminate\Queue\RedisQueue`, 8.x-13.x): same keys, same scripts, same order of Redis
// commands, so Node and PHP workers can share one queue. Method names follow Laravel's.
import Redis, { Cluster } from 'ioredis';
import { unixSeconds } from './clock';
import {
  BulkPartlyPushedError,
  InvalidOptionError,
  InvalidPayloadError,
  LarqError,
  UnconfirmedWriteError,
} from './errors';
import { delayAndPayloadFor, payloadFor, type DispatchContext, type JobInput } from './jobs/dispatch';
import { randomJobId } from './payload/createPayload';
import { RedisJob, type ReservedJobStore } from './jobs/RedisJob';
import type { Encrypter } from './php/Encrypter';
import { KeySpace, type QueueKeys } from './redis/keys';
import { defineScripts, scripts, workerPopReply, type PopReply, type WorkerPopReply } from './redis/scripts';
import { MAX_COMMAND_ARGUMENTS } from './redis/argumentLimit';
import { BulkTransaction } from './redis/BulkTransaction';
import { AtMostOnceCommand } from './redis/AtMostOnceCommand';
import { ZremBatcher } from './redis/ZremBatcher';
import { whenConnected } from './redis/whenConnected';
import { NotifyWaiter } from './redis/NotifyWaiter';
import { readTimeoutOptions } from './redis/readTimeout';
import { speakingResp2 } from './redis/resp2';
import {
  isClient,
  reconnectDelay,
  reconnectOnReadOnly,
  resolveOptions,
  type RedisQueueOptions,
  type ResolvedRedisQueueOptions,
} from './RedisQueueOptions';

export { DEFAULT_REDIS_QUEUE_OPTIONS, type RedisConnection, type RedisQueueOptions } from './RedisQueueOptions';

// Payloads per RPUSH in bulkRaw: keeps each command's argument list (and Redis' reply buffer) bounded.
const BULK_CHUNK = 1000;
// The finished jobs' reservations one worker pop removes, at most: what fits in its EVALSHA beside the
// SHA, the key count, its 5 keys and 5 arguments. Any more go out just ahead of it as ZREMs of their own.
const MAX_ACKS_PER_POP = MAX_COMMAND_ARGUMENTS - 13;
// Payload characters per RPUSH in bulkRaw: ioredis joins a command's string arguments into one string,
// whose length V8 caps, so a payload that would take a run past this starts the next RPUSH.
const BULK_CHUNK_CHARS = 256 * 1024;

/** One entry of {@link RedisQueue.bulkRaw}: a payload, or a payload with a delay (seconds or a date). */
export type BulkEntry = string | { payload: string; delay?: number | Date };

/** A job as the inspection methods list it (Laravel 13's InspectedJob, plus the sorted-set score). */
export interface InspectedJob {
  uuid: string | null;
  queue: string;
  /** The payload's `displayName`. */
  name: string | null;
  /** The payload's `attempts` (0 when missing). */
  attempts: number;
  /** The payload string as stored. */
  payload: string;
  createdAt: number | null;
  /** Delayed jobs: when it becomes due (Unix seconds). */
  availableAt?: number;
  /** Reserved jobs: when the reservation expires (Unix seconds). */
  reservedUntil?: number;
}

/** A Laravel-compatible Redis queue connection working on payload strings. */
export class RedisQueue implements ReservedJobStore {
  /** The validated options in force. */
  readonly options: Readonly<ResolvedRedisQueueOptions>;
  /** The key builder (prefix, Laravel line, cluster mode). */
  readonly keys: KeySpace;
  /** The queue's connection (subclasses such as Horizon mode write beside the queue on it). @internal */
  protected readonly client: Redis | Cluster;
  private readonly ownsClient: boolean;
  private readonly acks: ZremBatcher;
  // The BLPOP of a blocking pop, on a connection of its own, with the pop that follows a wake-up.
  private readonly waiter: NotifyWaiter | undefined;
  // 11.27+: a job found on a lower-priority queue makes the next pass over the first queue non-blocking.
  private secondaryQueueHadJob = false;
  private closed = false;

  constructor(options: RedisQueueOptions = {}) {
    this.options = Object.freeze(resolveOptions(options));
    this.keys = new KeySpace(
      this.options.prefix,
      this.options.laravel.line,
      this.options.cluster && this.options.laravel.has('clusterQueueKeys'),
    );
    const c = this.options.connection;
    this.ownsClient = !isClient(c);
    const reconnect = {
      retryStrategy: reconnectDelay,
      reconnectOnError: reconnectOnReadOnly,
      ...readTimeoutOptions(this.options.readTimeout),
    };
    this.client = isClient(c)
      ? c
      : typeof c === 'string'
        ? new Redis(c, speakingResp2(reconnect))
        : new Redis(speakingResp2({ ...reconnect, ...c }));
    // Without a listener ioredis prints every failed reconnect as an unhandled 'error' event; the commands
    // themselves still reject with the error, which is where callers learn of it.
    if (this.ownsClient) this.client.on('error', () => undefined);
    defineScripts(this.client);
    this.acks = new ZremBatcher(this.client);
    const { blockFor, retryAfter, readTimeout } = this.options;
    if (blockFor !== null)
      this.waiter = new NotifyWaiter(this.client, {
        blockFor,
        retryAfter,
        readTimeout,
        expiry: () => this.availableAt(retryAfter ?? 0),
      });
  }

  /** The queue connection's name as PHP knows it (`redis`): what events and failed-job records carry. */
  get connectionName(): string {
    return this.options.connectionName;
  }

  /** The encrypter for ShouldBeEncrypted commands, if the queue was given one. */
  get encrypter(): Encrypter | null {
    return this.options.encrypter;
  }

  /** Push a job (a PHP object, an object job, or a string job); resolves to the payload's `id`. */
  async push(job: JobInput, queue?: string | null): Promise<string> {
    const id = randomJobId();
    await this.send(queue, 1, (extra) =>
      this.pushPayload(payloadFor(job, this.dispatchContext(null, id, extra)), queue),
    );
    return id;
  }

  /** Push a job to become available `delay` seconds from now (or at a date); resolves to its `id`. */
  async later(delay: number | Date, job: JobInput, queue?: string | null): Promise<string> {
    const id = randomJobId();
    await this.send(queue, 1, (extra) =>
      this.schedule(delay, payloadFor(job, this.dispatchContext(this.secondsUntil(delay), id, extra)), queue),
    );
    return id;
  }

  /**
   * Push many jobs in one round trip, in one MULTI (see bulkRaw for what an error means); a job object
   * whose `delay` property is set goes to the delayed set, as Laravel 9+ does (Laravel 8's bulk ignores the
   * delay and pushes it for now, and so does this with `laravel: 8`). Resolves to the ids in order.
   */
  async bulk(jobs: JobInput[], queue?: string | null): Promise<string[]> {
    const ids: string[] = [];
    const honoursDelay = this.options.laravel.atLeast('9.0');
    // Each payload is built as the MULTI takes it: an entry that throws stops the call before anything is sent.
    await this.send(queue, jobs.length, (extra) =>
      this.sendBulk(
        jobs.length,
        (i) => {
          const id = randomJobId();
          ids.push(id);
          const { delay, payload } = delayAndPayloadFor(
            jobs[i],
            (d) => this.dispatchContext(d ?? null, id, extra),
            honoursDelay,
          );
          return delay === undefined ? payload : { payload, delay };
        },
        queue,
      ),
    );
    return ids;
  }

  /** Push a payload string; resolves to its `id`, or null when it has none. */
  async pushRaw(payload: string, queue?: string | null): Promise<string | null> {
    await this.pushPayload(payload, queue);
    return this.payloadId(payload);
  }

  // Laravel's pushRaw: the push script, then the job counted as sent.
  private async pushPayload(payload: string, queue: string | null | undefined): Promise<void> {
    await scripts.push(this.client, this.keysFor(queue), payload);
    this.options.telemetry?.metrics?.sent(this.queueName(queue), 1);
  }

  /** Schedule a payload string `delay` seconds from now (or at a date); resolves to its `id` or null. */
  async laterRaw(delay: number | Date, payload: string, queue?: string | null): Promise<string | null> {
    await this.schedule(delay, payload, queue);
    return this.payloadId(payload);
  }

  // Laravel's laterRaw: the delayed set takes the payload, due at `delay`, and it is counted as sent.
  private async schedule(delay: number | Date, payload: string, queue: string | null | undefined): Promise<void> {
    await scripts.later(this.client, this.keysFor(queue), this.availableAt(delay), payload);
    this.options.telemetry?.metrics?.sent(this.queueName(queue), 1);
  }

  /**
   * Push (or schedule) many payloads in one MULTI: one round trip, and no other client sees a partial
   * batch. Laravel runs its push script once per job; here each run of consecutive pushes goes out as
   * one RPUSH of the payloads and one RPUSH of as many notify tokens, which leaves the lists exactly as
   * those push scripts would (same items, same order). A delayed entry is a ZADD in its place in the
   * order, which is what Laravel's later script runs. When the connection closes before EXEC's reply, the
   * call rejects with UnconfirmedWriteError (all of it ran or none) and is not sent again. When a command
   * fails while EXEC runs (a key of the wrong type), Redis still runs the others, as under Laravel's bulk:
   * the call rejects with BulkPartlyPushedError, whose `landed` and `notLanded` are indexes of the entries.
   * Any other error: nothing ran.
   */
  async bulkRaw(entries: BulkEntry[], queue?: string | null): Promise<(string | null)[]> {
    await this.sendBulk(entries.length, (i) => entries[i], queue);
    return entries.map((e) => this.payloadId(typeof e === 'string' ? e : e.payload));
  }

  // bulkRaw's MULTI, over `count` entries asked for in order. An entry that throws sends nothing. A
  // command that fails while EXEC runs leaves the others done (Laravel's bulk, one MULTI, does the same):
  // the error then names the entries that landed.
  private async sendBulk(
    count: number,
    entryAt: (index: number) => BulkEntry,
    queue: string | null | undefined,
  ): Promise<void> {
    if (count === 0) return;
    const keys = this.keysFor(queue);
    const what = `the bulk push to ${keys.queue}`;
    const tx = new BulkTransaction(this.client, what);
    // The entries each command carries, in the order sent (none for a run's notify tokens).
    const carried: number[][] = [];
    let run: string[] = [];
    let runEntries: number[] = [];
    let runChars = 0;
    // A run of pushes goes in as one RPUSH of the payloads and one of as many tokens.
    const endRun = (): void => {
      if (run.length === 0) return;
      tx.send(new AtMostOnceCommand('rpush', [keys.queue, ...run], { what }));
      tx.send(new AtMostOnceCommand('rpush', [keys.notify, ...new Array<string>(run.length).fill('1')], { what }));
      carried.push(runEntries, []);
      run = [];
      runEntries = [];
      runChars = 0;
    };
    for (let i = 0; i < count; i++) {
      const e = entryAt(i);
      if (typeof e === 'string' || e.delay === undefined) {
        const payload = typeof e === 'string' ? e : e.payload;
        if (runChars + payload.length > BULK_CHUNK_CHARS) endRun();
        run.push(payload);
        runEntries.push(i);
        runChars += payload.length;
        if (run.length === BULK_CHUNK) endRun();
      } else {
        endRun();
        tx.send(new AtMostOnceCommand('zadd', [keys.delayed, this.availableAt(e.delay), e.payload], { what }));
        carried.push([i]);
      }
    }
    endRun();
    const errors = await tx.exec();
    const firstError = errors.find((e) => e !== null);
    if (firstError == null) return this.options.telemetry?.metrics?.sent(this.queueName(queue), count);
    const landed: number[] = [];
    const notLanded: number[] = [];
    carried.forEach((entries, c) => (errors[c] === null ? landed : notLanded).push(...entries));
    throw new BulkPartlyPushedError(what, landed, notLanded, firstError);
  }

  /**
   * Migrate due delayed jobs (and expired reservations unless retryAfter is null), then reserve the next
   * job. `index` is the queue's position in a worker's list: only index 0 may block (11.27+ semantics).
   * Throws InvalidPayloadError when the head payload could not be reserved; it is kept in `<Q>:larq:invalid`.
   */
  async pop(queue?: string | null, index = 0): Promise<RedisJob | null> {
    const name = this.queueName(queue);
    const keys = this.keys.forQueue(name);
    await whenConnected(this.client, `the pop from ${keys.queue}`);
    await this.migrate(keys, name);
    const next = await this.retrieveNextJob(name, keys, this.mayBlock(index));
    this.noteFound(index, next !== null);
    return next === null ? null : this.reservedJob(name, next);
  }

  /**
   * Reserve up to `count` jobs in one round trip: one script call (workerPop-5.lua) that runs the
   * migrations (delayed, then expired reservations, as `pop` runs them) and the pop script for `count`
   * jobs. Each job's effect on Redis is exactly that of a `pop`; only the migrations run once for the batch
   * instead of before every job. Fewer jobs than `count` means the queue ran dry. When none was found and
   * `index` is 0, waits on the notify list for `blockFor` seconds (if set) like `pop`, then tries once more.
   *
   * A payload the pop script had to quarantine, or a part of the script that failed, does not cost the
   * jobs reserved alongside it: the error goes to `onError` and the reserved jobs are returned. Only when no
   * job was reserved at all is the first error thrown (the others still go to `onError`).
   */
  async popMany(
    queue: string | null | undefined,
    index: number,
    count: number,
    onError: (error: Error) => void,
  ): Promise<RedisJob[]> {
    if (!Number.isSafeInteger(count) || count < 1)
      throw new InvalidOptionError('count', `must be a positive integer, got ${String(count)}`);
    const name = this.queueName(queue);
    const keys = this.keys.forQueue(name);
    await whenConnected(this.client, `the pop from ${keys.queue}`);
    // This queue's acknowledgements not sent yet are the script's first part: Redis removes those
    // reservations before it adds new ones, so a worker that refills a slot as soon as its handler
    // returns still never has more than its concurrency reserved.
    const acks = this.acks.take(keys.reserved, MAX_ACKS_PER_POP);
    const { retryAfter, migrationBatchSize } = this.options;
    let reply: WorkerPopReply;
    try {
      const raw = await scripts.workerPop(
        this.client,
        keys,
        { now: this.now(), limit: migrationBatchSize, reserved: retryAfter !== null },
        this.availableAt(retryAfter ?? 0),
        count,
        acks?.members ?? [],
      );
      reply = workerPopReply(raw);
    } catch (error) {
      // The reply was lost with the connection: whether the script ran is unknown, and the removals are
      // sent again on their own. Any other error is Redis' answer: it ran nothing.
      if (error instanceof UnconfirmedWriteError) acks?.resend();
      else acks?.settle(error as Error);
      throw error;
    }
    acks?.settle(reply.removed instanceof Error ? reply.removed : null);

    const failed = (part: string, error: Error) =>
      new LarqError(`queue "${name}": ${part} failed: ${error.message}`, { cause: error });
    const errors: Error[] = [];
    const { delayedMoved, expiredMoved, popped } = reply;
    if (delayedMoved instanceof Error) errors.push(failed('migration', delayedMoved));
    else this.jobsMigrated(name, delayedMoved, false);
    if (expiredMoved instanceof Error) errors.push(failed('migration', expiredMoved));
    else this.jobsMigrated(name, expiredMoved, true);
    const jobs: RedisJob[] = [];
    if (popped instanceof Error) errors.push(failed('pop', popped));
    else
      for (const one of popped) {
        if (one.kind === 'reserved') jobs.push(this.reservedJob(name, one));
        else if (one.kind === 'invalid') errors.push(this.quarantined(name, keys, one));
      }
    if (jobs.length === 0 && errors.length > 0) {
      // Nothing to return alongside: the first error is thrown, any others still reach onError.
      for (const error of errors.slice(1)) onError(error);
      throw errors[0];
    }
    for (const error of errors) onError(error);

    const block = this.mayBlock(index);
    if (jobs.length === 0 && block && this.waiter !== undefined) {
      const next = await this.popAfterWait(this.waiter, name, keys);
      if (next !== null) jobs.push(this.reservedJob(name, next));
    }
    this.noteFound(index, jobs.length > 0);
    return jobs;
  }

  /** Move due members of the sorted set `from` to the list `to` (un-prefixed keys, as Laravel takes them). */
  async migrateExpiredJobs(from: string, to: string): Promise<string[]> {
    return this.migrateKeys(this.keys.key(from), this.keys.key(to), this.keys.notifyOf(to));
  }

  /** Remove a job's reservation (ZREM of its reserved string). */
  deleteReserved(queue: string | null | undefined, job: RedisJob): Promise<void> {
    // Batched with the other acknowledgements of this turn of the event loop (ZremBatcher): same commands' effect, fewer writes.
    // Not an async function: it runs for every job, and the batch's promise is all the caller needs.
    try {
      return this.acks.zrem(this.keysFor(queue).reserved, job.reservedMember());
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** Move a reserved job to the delayed set, due `delay` seconds from now (or at a date). */
  async deleteAndRelease(queue: string | null | undefined, job: RedisJob, delay: number | Date): Promise<void> {
    await scripts.release(this.client, this.keysFor(queue), job.reservedMember(), this.availableAt(delay));
  }

  /**
   * larq's fallback when the failed-job store cannot take a failure: append `entry` (its reason, then its
   * exact payload; see lib/failed/FailedList) to `<queue>:larq:failed`, then remove the job's reservation.
   * In that order, as two steps: a MULTI would still run the ZREM when the RPUSH fails (WRONGTYPE), and
   * lose the job; here a failure at any point leaves it in the list, still reserved, or both, never neither.
   */
  async moveToFailedList(queue: string | null | undefined, job: RedisJob, entry: Buffer): Promise<void> {
    const keys = this.keysFor(queue);
    await this.client.rpush(keys.failed, entry);
    // No reservation was left (it expired and the job is back on its queue, where it fails again and is
    // recorded then): the entry would be a second copy, so it goes.
    if ((await this.client.zrem(keys.reserved, job.reservedMember())) === 0)
      await this.client.lrem(keys.failed, -1, entry);
  }

  /**
   * Push a running job's reservation to `until` (Unix seconds), only while it is still reserved: larq's
   * heartbeat, so a long job is not migrated back and started twice. False when it is no longer reserved.
   */
  async extendReservation(job: RedisJob, until: number): Promise<boolean> {
    return scripts.extendReservation(this.client, this.keysFor(job.getQueue()), job.reservedMember(), until);
  }

  /** Waiting + delayed + reserved jobs. */
  async size(queue?: string | null): Promise<number> {
    return scripts.size(this.client, this.keysFor(queue));
  }

  /** Jobs waiting in the list. */
  async pendingSize(queue?: string | null): Promise<number> {
    return this.client.llen(this.keysFor(queue).queue);
  }

  /**
   * Laravel's creationTimeOfOldestPendingJob (12.11+ payloads carry `createdAt`): the Unix time the job at
   * the head of the list was created, or null when the list is empty or the payload has no createdAt.
   */
  async creationTimeOfOldestPendingJob(queue?: string | null): Promise<number | null> {
    const payload = await this.client.lindex(this.keysFor(queue).queue, 0);
    if (payload === null) return null;
    try {
      const createdAt = (JSON.parse(payload) as { createdAt?: unknown }).createdAt;
      return typeof createdAt === 'number' ? createdAt : null;
    } catch {
      return null; // an undecodable payload: Laravel's json_decode gives null too
    }
  }

  /** Jobs in the delayed set. */
  async delayedSize(queue?: string | null): Promise<number> {
    return this.client.zcard(this.keysFor(queue).delayed);
  }

  /** Jobs in the reserved set. */
  async reservedSize(queue?: string | null): Promise<number> {
    return this.client.zcard(this.keysFor(queue).reserved);
  }

  /** Delete every job of the queue, reserved ones included; resolves to how many there were. */
  async clear(queue?: string | null): Promise<number> {
    return scripts.clear(this.client, this.keysFor(queue));
  }

  /** The waiting jobs, head first. */
  async pendingJobs(queue?: string | null): Promise<InspectedJob[]> {
    const name = this.queueName(queue);
    const items = await this.client.lrange(this.keys.forQueue(name).queue, 0, -1);
    return items.map((payload) => inspect(payload, name));
  }

  /** The delayed jobs, soonest first, with `availableAt`. */
  async delayedJobs(queue?: string | null): Promise<InspectedJob[]> {
    const name = this.queueName(queue);
    const pairs = await this.scored(this.keys.forQueue(name).delayed);
    return pairs.map(([payload, score]) => ({ ...inspect(payload, name), availableAt: score }));
  }

  /** The reserved jobs, earliest expiry first, with `reservedUntil`. */
  async reservedJobs(queue?: string | null): Promise<InspectedJob[]> {
    const name = this.queueName(queue);
    const pairs = await this.scored(this.keys.forQueue(name).reserved);
    return pairs.map(([payload, score]) => ({ ...inspect(payload, name), reservedUntil: score }));
  }

  /** Close the connections larq opened; a client passed in by the caller stays open. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.acks.flush();
    this.waiter?.close();
    if (!this.ownsClient) return;
    // A lazy client that never connected has nothing to QUIT; one whose connection broke cannot send it.
    if (this.client.status === 'wait') this.client.disconnect();
    else await this.client.quit().catch(() => this.client.disconnect());
  }

  private async retrieveNextJob(
    name: string,
    keys: QueueKeys,
    block: boolean,
  ): Promise<{ job: string | Buffer; reserved: string | Buffer } | null> {
    const next = await this.popReserved(name, keys);
    if (next !== null) return next;
    return block && this.waiter !== undefined ? this.popAfterWait(this.waiter, name, keys) : null;
  }

  // Wait on the notify list, then Laravel's one more pop: the one that followed the BLPOP (see
  // NotifyWaiter), or, for a caller that shared a wait another caller's pop answered, one of its own.
  private async popAfterWait(
    waiter: NotifyWaiter,
    name: string,
    keys: QueueKeys,
  ): Promise<{ job: string | Buffer; reserved: string | Buffer } | null> {
    const wake = await waiter.wait(keys);
    const popped = wake.claimPopped();
    if (popped === undefined) return wake.woke ? this.popReserved(name, keys) : null;
    if (popped instanceof Error) throw popped;
    if (popped.kind === 'invalid') throw this.quarantined(name, keys, popped);
    return popped.kind === 'reserved' ? popped : null;
  }

  // One run of the pop script: the reserved job, null when the list was empty, InvalidPayloadError when
  // the head could not be reserved.
  private async popReserved(
    name: string,
    keys: QueueKeys,
  ): Promise<{ job: string | Buffer; reserved: string | Buffer } | null> {
    // Laravel's availableAt(null) is plain "now" when retryAfter is null; nothing reads that score anyway.
    const reply = await scripts.pop(this.client, keys, this.availableAt(this.options.retryAfter ?? 0));
    if (reply.kind === 'invalid') throw this.quarantined(name, keys, reply);
    return reply.kind === 'reserved' ? reply : null;
  }

  // 11.27+: only the first queue of a pass may block, and not right after a lower-priority queue had a job.
  private mayBlock(index: number): boolean {
    const block = index === 0 && !this.secondaryQueueHadJob;
    if (index === 0) this.secondaryQueueHadJob = false;
    return block;
  }

  private noteFound(index: number, found: boolean): void {
    if (found && index > 0) this.secondaryQueueHadJob = true;
  }

  private reservedJob(name: string, popped: { job: string | Buffer; reserved: string | Buffer }): RedisJob {
    return new RedisJob(this, popped.job, popped.reserved, this.options.connectionName, name);
  }

  private quarantined(
    name: string,
    keys: QueueKeys,
    reply: Extract<PopReply, { kind: 'invalid' }>,
  ): InvalidPayloadError {
    return new InvalidPayloadError(
      `queue "${name}": the head payload is not a JSON object with a numeric attempts (${reply.reason}); ` +
        `it was moved to ${keys.invalid} instead of being lost`,
      reply.job,
    );
  }

  // Delayed first, then reserved, as every Laravel pop does (`RedisQueue::migrate`, 8.x-13.x).
  private async migrate(keys: QueueKeys, name: string): Promise<void> {
    this.jobsMigrated(name, await this.migrateKeys(keys.delayed, keys.queue, keys.notify), false);
    if (this.options.retryAfter !== null)
      this.jobsMigrated(name, await this.migrateKeys(keys.reserved, keys.queue, keys.notify), true);
  }

  /**
   * Called with the payloads a pop's migrations moved back onto `queue` (delayed jobs now due, or
   * reservations older than retry_after when `expired`), before the pop's jobs are handed out: Horizon's
   * RedisQueue::migrateExpiredJobs hook. The migration script's reply is the moved payloads, so counting
   * the expired reservations costs no command.
   * @internal
   */
  protected jobsMigrated(queue: string, payloads: string[], expired: boolean): void {
    if (expired && payloads.length > 0) this.options.telemetry?.metrics?.reservationsExpired(queue, payloads.length);
  }

  private migrateKeys(from: string, to: string, notify: string): Promise<string[]> {
    return scripts.migrateExpiredJobs(this.client, from, to, notify, this.now(), this.options.migrationBatchSize);
  }

  // ZRANGE WITHSCORES replies [member, score, ...], or [member, score] pairs (the score a number) through
  // a user's ioredis 6 client that maps replies the RESP3 way (replyMapping 'resp3').
  private async scored(key: string): Promise<[string, number][]> {
    const reply: unknown[] = await this.client.zrange(key, 0, '-1', 'WITHSCORES');
    if (Array.isArray(reply[0]))
      return (reply as [string, string | number][]).map(([member, score]) => [member, Number(score)]);
    const flat = reply as string[];
    const out: [string, number][] = [];
    for (let i = 0; i < flat.length; i += 2) out.push([flat[i], Number(flat[i + 1])]);
    return out;
  }

  // PHP's `$queue ?: $this->default`: null, '' and also '0' (falsy in PHP) mean the default queue.
  /** @internal */
  protected queueName(queue: string | null | undefined): string {
    return queue === undefined || queue === null || queue === '' || queue === '0' ? this.options.queue : queue;
  }

  /** @internal */
  protected keysFor(queue: string | null | undefined): QueueKeys {
    return this.keys.forQueue(this.queueName(queue));
  }

  private now(): number {
    return unixSeconds(this.options.clock);
  }

  // Laravel's availableAt: a date gives its timestamp, a number of seconds is added to now (as an integer).
  private availableAt(delay: number | Date): number {
    if (delay instanceof Date) return Math.floor(delay.getTime() / 1000);
    if (!Number.isFinite(delay)) throw new InvalidOptionError('delay', 'must be a finite number of seconds or a Date');
    return this.now() + Math.trunc(delay);
  }

  /** @internal */
  protected dispatchContext(delay: number | null, id: string, extra?: Record<string, string>): DispatchContext {
    return {
      line: this.options.laravel,
      clock: this.options.clock,
      encrypter: this.options.encrypter,
      delay,
      id,
      extra,
    };
  }

  /**
   * A push of `count` jobs built here, under the queue's tracing: inside a `send` span whose context
   * `push` writes into each payload (`extra`). Sent jobs are counted where Redis takes them.
   * @internal
   */
  protected async send<T>(
    queue: string | null | undefined,
    count: number,
    push: (extra?: Record<string, string>) => Promise<T>,
  ): Promise<T> {
    const tracing = this.options.telemetry?.tracing;
    return tracing ? tracing.send(this.queueName(queue), count, push) : push();
  }

  // Laravel's secondsUntil: a date gives the seconds from now (never negative), a number is truncated.
  /** @internal */
  protected secondsUntil(delay: number | Date): number {
    if (delay instanceof Date) return Math.max(0, Math.floor(delay.getTime() / 1000) - this.now());
    return Math.trunc(delay);
  }

  // What pushRaw returns: the payload's `id`, or null when it has none or is not JSON (as PHP's json_decode).
  private payloadId(payload: string): string | null {
    try {
      const id: unknown = (JSON.parse(payload) as { id?: unknown } | null)?.id;
      return id === undefined || id === null ? null : String(id);
    } catch {
      return null;
    }
  }
}

// One payload as the inspection methods report it; payloads that are not JSON objects give nulls.
function inspect(payload: string, queue: string): InspectedJob {
  let f: Record<string, unknown> = {};
  try {
    const v: unknown = JSON.parse(payload);
    if (v !== null && typeof v === 'object') f = v as Record<string, unknown>;
  } catch {
    // keep the defaults: inspection must list what is there, even garbage
  }
  const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
  const num = (v: unknown): number | null =>
    typeof v === 'number' ? v : typeof v === 'string' && v !== '' && Number.isFinite(Number(v)) ? Number(v) : null;
  return {
    uuid: str(f.uuid),
    queue,
    name: str(f.displayName),
    attempts: num(f.attempts) ?? 0,
    payload,
    createdAt: num(f.createdAt),
  };
}
