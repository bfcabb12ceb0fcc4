// Horizon mode: larq's RedisQueue writing, beside every queue operation, what Horizon's event listeners
// write (Horizon 5.29.1 `RedisQueue` and `EventMap`), under Horizon's prefix, so the dashboard shows
// Node's jobs, failures, metrics and tags as it shows PHP's. Laravel's keys and Lua are untouched.
//
//   push/later/bulk    JobPushed: the payload as `JobPayload::prepare` leaves it, the `pending` record
//                      and monitored tags, sent before the push on the same connection, so no worker
//                      can reserve a job whose record is not there yet (Horizon's own push writes after)
//   pop/popMany        JobsMigrated (payloads moved back by the pop's migrations) then JobReserved
//   deleteReserved     JobDeleted: completed/silenced, the monitored record, the two metrics updates (the
//                      jobs finished in one turn of the event loop in one pipeline: redis/PipelineBatch)
//   deleteAndRelease   JobReleased
//   job failure        JobFailed via the worker's event (see listenTo): the failed record and tags
import { Cluster, type Redis } from 'ioredis';
import { InvalidOptionError, LarqError } from '../errors';
import { formatException } from '../failed/formatException';
import type { RedisJob } from '../jobs/RedisJob';
import type { JobInput } from '../jobs/dispatch';
import { payloadFor, delayAndPayloadFor } from '../jobs/dispatch';
import { PhpObject } from '../php/values';
import { hasHashTag } from '../redis/keys';
import { PipelineBatch } from '../redis/PipelineBatch';
import { RedisQueue, type BulkEntry, type RedisQueueOptions } from '../RedisQueue';
import { randomJobId } from '../payload/createPayload';
import { HorizonKeys } from './HorizonKeys';
import { horizonPrefixFor, resolveHorizonOptions, type HorizonOptions } from './HorizonOptions';
import { JobPayload, jobType } from './JobPayload';
import { systemMicrotime, type Microtime } from './microtime';
import { RedisJobRepository, type Pipe } from './RedisJobRepository';
import { RedisMetricsRepository } from './RedisMetricsRepository';
import { RedisTagRepository } from './RedisTagRepository';
import { tagsFor } from './Tags';

/** The options of a queue in Horizon mode. */
export interface HorizonRedisQueueOptions extends RedisQueueOptions {
  /**
   * Horizon's prefix, trim settings, silenced classes and tags; Horizon's defaults otherwise. With
   * `cluster: true` and Laravel 13.5+ the prefix is used inside a hash tag, `{prefix}`, as Horizon does
   * there (see horizonPrefixFor); on a cluster client it must end up with one.
   */
  horizon?: Partial<HorizonOptions>;
  /** microtime(true) for Horizon's timestamps; default the system clock with sub-millisecond digits. */
  microtime?: Microtime;
}

/** The slice of a Worker Horizon mode listens to (Worker.on('JobFailed', ...)). */
export interface FailureEvents {
  on(
    name: 'JobFailed',
    listener: (event: { connectionName: string; job: RedisJob; exception: Error }) => unknown,
  ): unknown;
}

// larq's errors that stand for Laravel's own exceptions, under the class name PHP would print.
const LARAVEL_CLASS: Record<string, string> = {
  MaxAttemptsExceededError: 'Illuminate\\Queue\\MaxAttemptsExceededException',
  TimeoutExceededError: 'Illuminate\\Queue\\TimeoutExceededException',
  ManuallyFailedError: 'Illuminate\\Queue\\ManuallyFailedException',
  ModelNotFoundError: 'Illuminate\\Database\\Eloquent\\ModelNotFoundException',
};

/** A RedisQueue that keeps Laravel Horizon's dashboard true for the jobs it pushes and runs. */
export class HorizonRedisQueue extends RedisQueue {
  /** Horizon's options in force. */
  readonly horizon: HorizonOptions;
  /** Horizon's keys. */
  readonly horizonKeys: HorizonKeys;
  private readonly jobs: RedisJobRepository;
  private readonly tags: RedisTagRepository;
  private readonly metrics: RedisMetricsRepository;
  private readonly microtime: Microtime;
  // Horizon's Stopwatch: when each job was reserved here (ms, monotonic).
  private readonly reservedAt = new WeakMap<RedisJob, number>();
  // The records of the jobs finished in one turn (JobDeleted), sent as one pipeline.
  private readonly completions: PipelineBatch;
  // Where writes that no caller awaits report their errors (listenTo sets it).
  private reportError: (error: Error) => void = () => undefined;

  constructor(options: HorizonRedisQueueOptions = {}) {
    const { horizon, microtime, ...queue } = options;
    super(queue);
    const resolved = resolveHorizonOptions(horizon);
    const prefix = horizonPrefixFor(resolved.prefix, this.options);
    if (this.client instanceof Cluster && !hasHashTag(prefix))
      throw new InvalidOptionError(
        'horizon.prefix',
        `"${prefix}" has no hash tag, so Horizon's keys would fall in many slots of the cluster and its ` +
          'pipelines and Lua would fail: give the prefix one (such as "{horizon}:"), or set cluster: true with ' +
          'Laravel 13.5+ peers, whose Horizon wraps it in {}',
      );
    this.horizon = { ...resolved, prefix };
    this.horizonKeys = new HorizonKeys(this.horizon.prefix);
    this.jobs = new RedisJobRepository(this.horizonKeys, this.horizon.trim);
    this.tags = new RedisTagRepository(this.horizonKeys);
    this.metrics = new RedisMetricsRepository(this.horizonKeys);
    this.microtime = microtime ?? systemMicrotime;
    this.completions = new PipelineBatch(this.client);
  }

  /** Send the finished jobs' records still gathered, then close as RedisQueue does. */
  override async close(): Promise<void> {
    this.completions.flush();
    await super.close();
  }

  /** Push a job as Horizon's RedisQueue does; resolves to its id, the payload's uuid. */
  override async push(job: JobInput, queue?: string | null): Promise<string> {
    return this.send(queue, 1, async (extra) => {
      const payload = this.prepare(job, payloadFor(job, this.dispatchContext(null, randomJobId(), extra)));
      await this.pushed(queue, payload, () => super.pushRaw(payload.value, queue));
      return payload.id();
    });
  }

  /** Schedule a job as Horizon's RedisQueue does (its pending record is written now); resolves to its uuid. */
  override async later(delay: number | Date, job: JobInput, queue?: string | null): Promise<string> {
    return this.send(queue, 1, async (extra) => {
      const payload = this.prepare(
        job,
        payloadFor(job, this.dispatchContext(this.secondsUntil(delay), randomJobId(), extra)),
      );
      await this.pushed(queue, payload, () => super.laterRaw(delay, payload.value, queue));
      return payload.id();
    });
  }

  /** Push many jobs, each prepared and recorded as `push` does, in one MULTI; resolves to their uuids. */
  override async bulk(jobs: JobInput[], queue?: string | null): Promise<string[]> {
    const honoursDelay = this.options.laravel.atLeast('9.0');
    return this.send(queue, jobs.length, async (extra) => {
      const entries = jobs.map((job) => {
        const { delay, payload } = delayAndPayloadFor(
          job,
          (d) => this.dispatchContext(d ?? null, randomJobId(), extra),
          honoursDelay,
        );
        return { payload: this.prepare(job, payload), delay };
      });
      await this.pushedMany(
        queue,
        entries.map((e) => e.payload),
        () =>
          super.bulkRaw(
            entries.map((e): BulkEntry =>
              e.delay === undefined ? e.payload.value : { payload: e.payload.value, delay: e.delay },
            ),
            queue,
          ),
      );
      return entries.map((e) => e.payload.id());
    });
  }

  /** Push a payload string, prepared as Horizon's pushRaw prepares one with no job object. */
  override async pushRaw(payload: string, queue?: string | null): Promise<string | null> {
    const prepared = this.prepare(null, payload);
    await this.pushed(queue, prepared, () => super.pushRaw(prepared.value, queue));
    return prepared.id();
  }

  /** Schedule a payload string, prepared as `pushRaw` prepares it. */
  override async laterRaw(delay: number | Date, payload: string, queue?: string | null): Promise<string | null> {
    const prepared = this.prepare(null, payload);
    await this.pushed(queue, prepared, () => super.laterRaw(delay, prepared.value, queue));
    return prepared.id();
  }

  /** Push payload strings, each prepared as `pushRaw` prepares it, in one MULTI. */
  override async bulkRaw(entries: BulkEntry[], queue?: string | null): Promise<(string | null)[]> {
    const prepared = entries.map((e) => this.prepare(null, typeof e === 'string' ? e : e.payload));
    await this.pushedMany(queue, prepared, () =>
      super.bulkRaw(
        entries.map((e, i): BulkEntry =>
          typeof e === 'string' ? prepared[i].value : { payload: prepared[i].value, delay: e.delay },
        ),
        queue,
      ),
    );
    return prepared.map((p) => p.id());
  }

  /** Pop as RedisQueue does, then mark the job reserved (JobReserved) and start its timer. */
  override async pop(queue?: string | null, index = 0): Promise<RedisJob | null> {
    const job = await super.pop(queue, index);
    if (job !== null) await this.markReserved([job]);
    return job;
  }

  /** popMany as RedisQueue does, then mark each job reserved (JobReserved) and start its timer. */
  override async popMany(
    queue: string | null | undefined,
    index: number,
    count: number,
    onError: (error: Error) => void,
  ): Promise<RedisJob[]> {
    const jobs = await super.popMany(queue, index, count, onError);
    if (jobs.length > 0) await this.markReserved(jobs);
    return jobs;
  }

  /** Remove the reservation, then what Horizon's JobDeleted listeners write. */
  override async deleteReserved(queue: string | null | undefined, job: RedisJob): Promise<void> {
    // Concurrent: the acknowledgement is batched with others (ZremBatcher), and the two touch no common key.
    await Promise.all([super.deleteReserved(queue, job), this.jobDeleted(job)]);
  }

  /** Move the job to the delayed set, then mark it pending again (JobReleased). */
  override async deleteAndRelease(
    queue: string | null | undefined,
    job: RedisJob,
    delay: number | Date,
  ): Promise<void> {
    await super.deleteAndRelease(queue, job, delay);
    const pipe = this.client.pipeline();
    this.jobs.released(pipe, new JobPayload(job.getReservedJob()), this.microtime());
    await exec(pipe);
  }

  /** larq's failed list takes a failure the store could not: to Horizon that is Laravel's delete. */
  override async moveToFailedList(queue: string | null | undefined, job: RedisJob, entry: Buffer): Promise<void> {
    await super.moveToFailedList(queue, job, entry);
    await this.jobDeleted(job);
  }

  /**
   * Write Horizon's failed record and `failed:{tag}` sets whenever `worker` fails a job (Horizon's
   * MarshalFailedEvent, MarkJobAsFailed, StoreTagsForFailedJob), with the exception as PHP's
   * `(string) $e` reads. Errors go to `onError`.
   */
  listenTo(worker: FailureEvents, onError: (error: Error) => void = () => undefined): void {
    this.reportError = onError;
    worker.on('JobFailed', ({ connectionName, job, exception }) => {
      const pipe = this.client.pipeline();
      const payload = new JobPayload(job.getReservedJob());
      const now = this.microtime();
      const text = formatException(exception, { className: (e) => LARAVEL_CLASS[e.name] });
      this.jobs.failed(pipe, text, connectionName, job.getQueue(), payload, now);
      const failedTags = payload.tags().map((t) => `failed:${t}`);
      this.tags.addTemporary(pipe, this.horizon.trim.failed, payload.id(), failedTags, now);
      return exec(pipe).catch(onError);
    });
  }

  /** What a PHP Horizon master trims each loop (TrimRecentJobs, TrimFailedJobs, TrimMonitoredJobs). */
  async trim(): Promise<void> {
    const pipe = this.client.pipeline();
    const now = this.microtime();
    this.jobs.trimRecentJobs(pipe, now);
    this.jobs.trimFailedJobs(pipe, now);
    this.jobs.trimMonitoredJobs(pipe, now);
    await exec(pipe);
  }

  /** The queue's connection, for Horizon's supervisor records. */
  get connection(): Redis | Cluster {
    return this.client;
  }

  // JobsMigrated: each payload moved back onto the queue is pending again. Sent now, before the pop's
  // reserved records, on the same connection, so Redis applies them in Horizon's order.
  protected override jobsMigrated(queue: string, payloads: string[], expired: boolean): void {
    super.jobsMigrated(queue, payloads, expired);
    if (payloads.length === 0) return;
    const pipe = this.client.pipeline();
    const now = this.microtime();
    for (const payload of payloads) this.jobs.released(pipe, new JobPayload(payload), now);
    exec(pipe).catch((error: Error) =>
      this.reportError(
        new LarqError(`Horizon's records of jobs migrated onto queue "${queue}" were not written: ${error.message}`, {
          cause: error,
        }),
      ),
    );
  }

  // JobPayload::prepare for a job object (type, tags, silenced) or for a raw payload (no job: only the
  // payload's own tags, not silenced).
  private prepare(job: JobInput | null, payload: string): JobPayload {
    const command =
      job instanceof PhpObject
        ? job
        : job !== null && 'command' in job && job.command instanceof PhpObject
          ? job.command
          : undefined;
    const commandName = command?.className;
    return JobPayload.prepare(
      payload,
      {
        type: jobType(commandName),
        tags: command ? tagsFor(command, this.horizon.tags) : [],
        silenced: commandName !== undefined && this.horizon.silenced.includes(commandName),
      },
      this.microtime(),
    );
  }

  // JobPushed's listeners (StoreJob, StoreMonitoredTags), then the push itself, issued back to back on
  // one connection: Redis runs the records first.
  private async pushed<T>(queue: string | null | undefined, payload: JobPayload, push: () => Promise<T>): Promise<T> {
    return (await this.pushedMany(queue, [payload], push)) as T;
  }

  private async pushedMany<T>(
    queue: string | null | undefined,
    payloads: JobPayload[],
    push: () => Promise<T>,
  ): Promise<T> {
    const monitored = await Promise.all(payloads.map((p) => this.tags.monitored(this.client, p.tags())));
    const pipe = this.client.pipeline();
    const now = this.microtime();
    const name = this.queueName(queue);
    payloads.forEach((payload, i) => {
      this.jobs.pushed(pipe, this.connectionName, name, payload, now);
      if (monitored[i].length > 0) this.tags.add(pipe, payload.id(), monitored[i], now);
    });
    const records = exec(pipe);
    const pushing = push();
    const [, result] = await Promise.all([records, pushing]);
    return result;
  }

  private async markReserved(jobs: RedisJob[]): Promise<void> {
    const pipe = this.client.pipeline();
    const now = this.microtime();
    const started = performance.now();
    for (const job of jobs) {
      this.jobs.reserved(pipe, new JobPayload(job.getReservedJob()), now);
      this.reservedAt.set(job, started);
    }
    await exec(pipe);
  }

  // MarkJobAsComplete (completed or silenced, monitored) and UpdateJobMetrics (skipped for a failed job).
  private async jobDeleted(job: RedisJob): Promise<void> {
    const payload = new JobPayload(job.getReservedJob());
    const failed = job.hasFailed();
    const now = this.microtime();
    if (payload.isRetry()) await this.updateRetryInformationOnParent(payload, failed);
    const monitored = failed ? [] : await this.tags.monitored(this.client, payload.tags());
    const started = this.reservedAt.get(job);
    const runtime = started === undefined ? '0' : runtimeText(performance.now() - started);
    this.reservedAt.delete(job);
    // With the other jobs' that finish in this turn, in one pipeline.
    await this.completions.add((pipe) => {
      this.jobs.completed(pipe, payload, payload.isSilenced(), now);
      if (monitored.length > 0) this.jobs.remember(pipe, job.getConnectionName(), job.getQueue(), payload, now);
      if (!failed) {
        this.metrics.incrementQueue(pipe, job.getQueue(), runtime);
        this.metrics.incrementJob(pipe, payload.displayName(), runtime);
      }
    });
  }

  private async updateRetryInformationOnParent(payload: JobPayload, failed: boolean): Promise<void> {
    const parent = this.horizonKeys.job(payload.retryOf() as string);
    const updated = RedisJobRepository.retriedBy(await this.client.hget(parent, 'retried_by'), payload.id(), failed);
    if (updated !== null) await this.client.hset(parent, 'retried_by', updated);
  }
}

// Stopwatch::check: round(ms, 2), as PHP's float text.
function runtimeText(ms: number): string {
  return String(Math.round(ms * 100) / 100);
}

// A pipeline's first failed command, as a rejection.
async function exec(pipe: Pipe): Promise<void> {
  const replies = await pipe.exec();
  const failed = replies?.find(([error]) => error !== null);
  if (failed) throw failed[0] as Error;
}
