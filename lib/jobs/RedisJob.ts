// One job reserved from a Redis queue (Laravel's Jobs\RedisJob, 13.x). It carries two strings: the original payload as popped
// (what the job runs from and what a failed-job record stores) and the reserved string re-encoded by the
// pop script (the only valid argument for deleting or releasing the reservation; never rebuilt from JSON).
// The worker's pop hands both over as the Buffers Redis' reply was read into: the payload is decoded once
// to be parsed, the reserved bytes go back to Redis untouched, and neither sits on the JS heap while the
// job runs. Either is turned into a string only when asked for.
// Decoding is lazy and never touches Redis: a payload or command that cannot be read throws a typed error
// from payload() or command(), and the job stays reserved where a person can find it.
import { LarqError } from '../errors';
import { parsePayload } from '../payload/Payload';
import { phpJsonDecode } from '../payload/json';
import type { JobPayload } from '../payload/types';
import type { Encrypter } from '../php/Encrypter';
import type { PhpObject } from '../php/values';
import { decodeCommand } from './command';

/** The queue operations a reserved job needs: implemented by RedisQueue. */
export interface ReservedJobStore {
  /** ZREM the job's reserved string from the queue's reserved set. */
  deleteReserved(queue: string, job: RedisJob): Promise<void>;
  /** Move the job's reserved string to the delayed set, due in `delaySeconds`. */
  deleteAndRelease(queue: string, job: RedisJob, delaySeconds: number): Promise<void>;
  /** Append `entry` to larq's failed list of the queue, then remove the job's reservation (two steps: a refused append leaves the job reserved). */
  moveToFailedList?(queue: string, job: RedisJob, entry: Buffer): Promise<void>;
  /** Decrypts ShouldBeEncrypted commands; null when the queue has no APP_KEY. */
  readonly encrypter?: Encrypter | null;
}

/** The envelope fields this class reads itself. */
interface Envelope {
  attempts: number;
  id: string | null;
  uuid: string | null;
}

/** A job popped from a Redis queue and held in its `:reserved` set until deleted or released. */
export class RedisJob {
  private readonly envelope: Envelope;
  private readonly parsed: JobPayload | undefined;
  private readonly payloadError: unknown;
  private decodedCommand: PhpObject | undefined;
  private deleted = false;
  private released = false;
  private failed = false;

  constructor(
    private readonly store: ReservedJobStore,
    private readonly job: string | Buffer,
    private readonly reserved: string | Buffer,
    private readonly connectionName: string,
    private readonly queue: string,
  ) {
    // One strict parse per job; a payload it rejects still gets its envelope read leniently, so the job
    // can be deleted, released or failed, and payload() throws the reason.
    const body = typeof job === 'string' ? job : job.toString('utf8');
    try {
      this.parsed = parsePayload(body);
      this.envelope = { attempts: this.parsed.attempts, id: this.parsed.id, uuid: this.parsed.uuid };
    } catch (error) {
      this.payloadError = error;
      this.envelope = RedisJob.decodeLeniently(body);
    }
  }

  // The pop script proved cjson can read the body, but cjson also takes a few non-JSON forms (hex
  // numbers...); like PHP's json_decode returning null, those give attempts 0 and no id.
  private static decodeLeniently(body: string): Envelope {
    let value: unknown = null;
    try {
      value = phpJsonDecode(body);
    } catch {
      // fall through to the defaults below
    }
    const fields = (value !== null && typeof value === 'object' ? value : {}) as Record<string, unknown>;
    const text = (v: unknown): string | null => (v === undefined || v === null ? null : String(v));
    // A numeric string also counts, as Lua and PHP arithmetic accept one.
    const attempts = Number(fields.attempts ?? 0);
    return { attempts: Number.isFinite(attempts) ? attempts : 0, id: text(fields.id), uuid: text(fields.uuid) };
  }

  /** The payload exactly as it was popped from the queue (not the reserved copy). */
  getRawBody(): string {
    return typeof this.job === 'string' ? this.job : this.job.toString('utf8');
  }

  /** The payload's length as popped, without decoding it (the worker's memory budget reads it for every job). */
  payloadLength(): number {
    return this.job.length;
  }

  /** The payload exactly as popped: the Buffer the pop read (invalid UTF-8 kept byte for byte), or the string. */
  getRawBytes(): string | Buffer {
    return this.job;
  }

  /** The reserved string as Redis returned it: what delete and release must send. */
  getReservedJob(): string {
    return typeof this.reserved === 'string' ? this.reserved : this.reserved.toString('utf8');
  }

  /** The reserved string in the form it was popped in (bytes when the pop read Buffers): what the queue sends back. */
  reservedMember(): string | Buffer {
    return this.reserved;
  }

  /** The number of this attempt, counting from 1: the payload's `attempts` plus one. */
  attempts(): number {
    return this.envelope.attempts + 1;
  }

  /** The payload's `id` (what push returned), or null. */
  getJobId(): string | null {
    return this.envelope.id;
  }

  /** The payload's `uuid`, or null. */
  uuid(): string | null {
    return this.envelope.uuid;
  }

  // The envelope accessors below never throw: for a payload payload() rejects they give Laravel's
  // defaults, so the worker can still count attempts and fail the job with the reason instead of looping.

  /** The decoded payload (parsed once). Throws InvalidPayloadError naming what is wrong with it. */
  payload(): JobPayload {
    if (this.parsed === undefined) throw this.payloadError;
    return this.parsed;
  }

  /**
   * The job object of an object job (`data.command`), decrypted when it was encrypted. Throws a typed
   * error (InvalidPayloadError, UnserializeError, DecryptError, MissingEncrypterError) naming the problem.
   */
  command(): PhpObject {
    this.decodedCommand ??= decodeCommand(this.payload(), this.store.encrypter);
    return this.decodedCommand;
  }

  /** The payload's `job`: `Illuminate\Queue\CallQueuedHandler@call` or a string job's `Class@method`. */
  getName(): string {
    return this.parsed?.job ?? '';
  }

  /** Laravel's resolveName(): `displayName` when non-empty, else `job`. */
  resolveName(): string {
    return this.parsed?.name ?? `invalid payload ${this.envelope.id ?? this.envelope.uuid ?? ''}`.trim();
  }

  /** The payload's `maxTries`, or null. */
  maxTries(): number | null {
    return this.parsed?.maxTries ?? null;
  }

  /** The payload's `maxExceptions`, or null. */
  maxExceptions(): number | null {
    return this.parsed?.maxExceptions ?? null;
  }

  /** The payload's `timeout` in seconds, or null. */
  timeout(): number | null {
    return this.parsed?.timeout ?? null;
  }

  /** The payload's `retryUntil` in Unix seconds, or null. */
  retryUntil(): number | null {
    return this.parsed?.retryUntil ?? null;
  }

  /** The payload's `backoff`, else its `delay` (12.11+ payloads), as a comma-separated string, or null. */
  backoff(): string | null {
    const p = this.parsed;
    return p?.backoff ?? (p?.delay == null ? null : String(p.delay));
  }

  /** The payload's `failOnTimeout`. */
  shouldFailOnTimeout(): boolean {
    return this.parsed?.failOnTimeout ?? false;
  }

  /** The bare queue name the job was popped from (no `queues:`, no prefix). */
  getQueue(): string {
    return this.queue;
  }

  /** The name of the queue connection (Laravel's `queue.connections` key, e.g. `redis`). */
  getConnectionName(): string {
    return this.connectionName;
  }

  /** Marks the job deleted, then removes its reservation. */
  delete(): Promise<void> {
    this.deleted = true;
    // The store's promise as it is (it may be shared by a batch of acknowledgements): no async wrapper
    // per job, but a store that throws still gives a rejected promise.
    try {
      return this.store.deleteReserved(this.queue, this);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * Removes the reservation and keeps the job in larq's failed list in Redis as `entry` (see
   * lib/failed/FailedList), for a failure the failed-job store could not record. Marks it deleted after.
   */
  async moveToFailedList(entry: Buffer): Promise<void> {
    if (this.store.moveToFailedList === undefined) throw new LarqError('this queue keeps no failed list');
    await this.store.moveToFailedList(this.queue, this, entry);
    this.deleted = true;
  }

  /** Marks the job released, then moves it (attempts already counted) to the delayed set for `delay` seconds. */
  async release(delay = 0): Promise<void> {
    this.released = true;
    await this.store.deleteAndRelease(this.queue, this, delay);
  }

  /** Whether delete() was called on this object. */
  isDeleted(): boolean {
    return this.deleted;
  }

  /** Whether release() was called on this object. */
  isReleased(): boolean {
    return this.released;
  }

  /** Whether delete() or release() was called on this object. */
  isDeletedOrReleased(): boolean {
    return this.deleted || this.released;
  }

  /** Sets the failed flag only; failing the job (delete, hooks, events) is the worker's business. */
  markAsFailed(): void {
    this.failed = true;
  }

  /** Whether markAsFailed() was called on this object. */
  hasFailed(): boolean {
    return this.failed;
  }
}
