// Metrics for a worker and its queue: what ran and how (processed, failed, released, timed out, by queue
// and job class), how long handlers took and jobs waited, what was sent, and the queues' depth read from
// Redis when the metrics are collected. Two outlets, each an optional peer dependency loaded only when
// asked for: a prom-client Registry (Prometheus' text format, what `larq work --metrics` serves) and an
// OpenTelemetry Meter (any exporter the SDK has). The names follow OpenTelemetry's messaging semantic
// conventions where they define one (`messaging.process.duration`, `messaging.client.consumed.messages`,
// `messaging.client.sent.messages`); the rest are larq's. docs/observability.md lists them all.
import type * as OtelApi from '@opentelemetry/api';
import type * as PromClient from 'prom-client';
import type { WorkerJob } from '../jobs/contracts';
import type { RedisQueue } from '../RedisQueue';
import { loadDriver } from '../sql/loadDriver';
import { ArrayMap } from '../support/ArrayMap';
import type { Worker } from '../Worker';
import { observeAttempts, payloadKeys, type AttemptEnd } from './attemptOutcomes';

/** A prom-client `Registry` (typed loosely so larq's types do not need prom-client installed). */
export interface PrometheusRegistry {
  metrics(): Promise<string>;
  readonly contentType: string;
}

/** Options of {@link JobMetrics}. */
export interface JobMetricsOptions {
  /** Keep the metrics in a prom-client Registry: this one, or a new one with true. Default: true unless `meter` is given. */
  prometheus?: boolean | PrometheusRegistry;
  /** Record through this OpenTelemetry Meter, or through the global MeterProvider's meter `larq` with true. */
  meter?: true | object;
}

/** Seconds: from a quick job to a long batch step. */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];
/** Seconds a job waited from its push to its start. */
const WAIT_BUCKETS = [0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300, 900, 3600];

const MESSAGING_SYSTEM = 'redis';

/** One queue's depth as Redis has it when the metrics are collected. */
interface QueueDepth {
  queue: string;
  pending: number;
  delayed: number;
  reserved: number;
  /** Seconds since the oldest pending job was created, or null when the queue is empty or its payload says not. */
  oldestAge: number | null;
}

/** Counts one outcome of one job class on one queue, in whichever outlets are on. */
interface Recorder {
  started(queue: string, job: string, waitSeconds: number | null): void;
  ended(queue: string, job: string, end: AttemptEnd, seconds: number): void;
  sent(queue: string, count: number): void;
  reservationsExpired(queue: string, count: number): void;
}

/**
 * A worker's metrics. Give it to a RedisQueue as `telemetry: { metrics }` (createWorker then observes that
 * queue's worker), and serve its `registry` (see serveMetrics) or read it through your own Meter.
 */
export class JobMetrics {
  /** The prom-client Registry the metrics are in, or null when only a Meter records them. */
  readonly registry: PrometheusRegistry | null;
  private readonly recorders: Recorder[] = [];
  // An array, not a Map: see support/ArrayMap.
  private readonly started = new ArrayMap<string, number>();
  private queue: RedisQueue | null = null;
  private queues: string[] = [];
  private running = 0;
  private slots = 0;
  private depthRead: Promise<QueueDepth[]> | null = null;

  constructor(options: JobMetricsOptions = {}) {
    const prometheus = options.prometheus ?? options.meter === undefined;
    if (prometheus !== false) {
      const prom = loadDriver<typeof PromClient>('prom-client', 'Prometheus metrics');
      const registry = prometheus === true ? new prom.Registry() : (prometheus as PromClient.Registry);
      this.recorders.push(new PrometheusRecorder(prom, registry, this));
      this.registry = registry;
    } else {
      this.registry = null;
    }
    if (options.meter !== undefined) {
      const api = loadDriver<typeof OtelApi>('@opentelemetry/api', 'OpenTelemetry metrics');
      const meter = options.meter === true ? api.metrics.getMeter('larq') : (options.meter as OtelApi.Meter);
      this.recorders.push(new OtelRecorder(meter, this));
    }
  }

  /** Count what `worker` runs; `queue` is read for the depth of the queues the worker works. */
  observe<J extends WorkerJob>(worker: Worker<J>, queue: RedisQueue): void {
    this.queue = queue;
    worker.on('WorkerStarting', ({ queue: list, options }) => {
      this.queues = [...new Set(list.split(',').filter((q) => q !== ''))];
      this.slots = options.concurrency;
    });
    observeAttempts(worker, {
      started: (job) => {
        this.running++;
        this.started.set(job.getReservedJob(), performance.now());
        const wait = waitSeconds(job);
        for (const r of this.recorders) r.started(job.getQueue(), job.resolveName(), wait);
      },
      ended: (job, end) => {
        this.running--;
        const since = this.started.get(job.getReservedJob());
        this.started.delete(job.getReservedJob());
        const seconds = since === undefined ? 0 : (performance.now() - since) / 1000;
        for (const r of this.recorders) r.ended(job.getQueue(), job.resolveName(), end, seconds);
      },
    });
  }

  /** Count `count` jobs pushed to `queue` (RedisQueue calls this once Redis took them). */
  sent(queue: string, count: number): void {
    for (const r of this.recorders) r.sent(queue, count);
  }

  /**
   * Count `count` reservations of `queue` that outlived retry_after (a worker died or hung holding them)
   * and were moved back onto the queue by a pop's migration (RedisQueue calls this with the script's reply).
   */
  reservationsExpired(queue: string, count: number): void {
    for (const r of this.recorders) r.reservationsExpired(queue, count);
  }

  /**
   * Attempts under way now, and the worker's concurrency (0 before it started).
   * @internal
   */
  slotsInUse(): { running: number; slots: number } {
    return { running: this.running, slots: this.slots };
  }

  /**
   * The observed queues' depth: one read of Redis serves every gauge a collection asks at once.
   * @internal
   */
  depths(): Promise<QueueDepth[]> {
    if (this.depthRead === null) {
      this.depthRead = this.readDepths().finally(() => {
        this.depthRead = null;
      });
    }
    return this.depthRead;
  }

  private async readDepths(): Promise<QueueDepth[]> {
    const queue = this.queue;
    if (queue === null) return [];
    return Promise.all(
      this.queues.map(async (name) => {
        const [pending, delayed, reserved, created] = await Promise.all([
          queue.pendingSize(name),
          queue.delayedSize(name),
          queue.reservedSize(name),
          queue.creationTimeOfOldestPendingJob(name),
        ]);
        return {
          queue: name,
          pending,
          delayed,
          reserved,
          oldestAge: created === null ? null : Math.max(0, Date.now() / 1000 - created),
        };
      }),
    );
  }
}

// When the job was pushed, in seconds: Horizon's `pushedAt` (a float string), else Laravel's `createdAt`
// (12.11+, whole seconds); null when the payload carries neither.
function waitSeconds(job: WorkerJob): number | null {
  const payload = payloadKeys(job);
  const pushed =
    typeof payload.pushedAt === 'string'
      ? Number(payload.pushedAt)
      : typeof payload.createdAt === 'number'
        ? payload.createdAt
        : NaN;
  return Number.isFinite(pushed) ? Math.max(0, Date.now() / 1000 - pushed) : null;
}

/** Labels a series by the pair it counts, made once per pair. */
class PerPair<T> {
  private readonly byQueue = new Map<string, Map<string, T>>();
  constructor(private readonly make: (queue: string, job: string) => T) {}

  get(queue: string, job: string): T {
    let jobs = this.byQueue.get(queue);
    if (jobs === undefined) this.byQueue.set(queue, (jobs = new Map()));
    let value = jobs.get(job);
    if (value === undefined) jobs.set(job, (value = this.make(queue, job)));
    return value;
  }
}

class PrometheusRecorder implements Recorder {
  private readonly outcome: Record<AttemptEnd['outcome'], PromClient.Counter<'queue' | 'job'>>;
  private readonly duration: PromClient.Histogram<
    'messaging_system' | 'messaging_destination_name' | 'messaging_operation_name' | 'job' | 'error_type'
  >;
  private readonly wait: PromClient.Histogram<'queue'>;
  private readonly consumed: PromClient.Counter<'messaging_system' | 'messaging_destination_name'>;
  private readonly sentCount: PromClient.Counter<'messaging_system' | 'messaging_destination_name'>;
  private readonly expired: PromClient.Counter<'queue'>;
  private readonly children: PerPair<{
    duration: PromClient.Histogram.Internal<string>;
    consumed: PromClient.Counter.Internal;
    wait: PromClient.Histogram.Internal<string>;
  }>;

  constructor(prom: typeof PromClient, registry: PromClient.Registry, metrics: JobMetrics) {
    const registers = [registry];
    const counter = (name: string, help: string) =>
      new prom.Counter({ name, help, labelNames: ['queue', 'job'] as const, registers });
    this.outcome = {
      processed: counter(
        'larq_jobs_processed_total',
        'Attempts that ended with the job done (deleted after its handler returned).',
      ),
      failed: counter(
        'larq_jobs_failed_total',
        'Attempts that failed the job (JobFailed: a failure record), timed-out ones included.',
      ),
      released: counter(
        'larq_jobs_released_total',
        'Attempts that released the job back to its queue (by its handler or after an exception).',
      ),
      timed_out: counter(
        'larq_jobs_timed_out_total',
        'Attempts that ran past their timeout (those that failed the job count in failed too).',
      ),
    };
    this.duration = new prom.Histogram({
      name: 'messaging_process_duration_seconds',
      help: 'Duration of processing a job: from the start of its attempt to its end (OpenTelemetry messaging.process.duration).',
      labelNames: [
        'messaging_system',
        'messaging_destination_name',
        'messaging_operation_name',
        'job',
        'error_type',
      ] as const,
      buckets: DURATION_BUCKETS,
      registers,
    });
    this.wait = new prom.Histogram({
      name: 'larq_job_wait_seconds',
      help: "Seconds from a job's push (its payload's pushedAt or createdAt) to the start of its attempt.",
      labelNames: ['queue'] as const,
      buckets: WAIT_BUCKETS,
      registers,
    });
    const messagingLabels = ['messaging_system', 'messaging_destination_name'] as const;
    this.consumed = new prom.Counter({
      name: 'messaging_client_consumed_messages_total',
      help: 'Jobs the worker started an attempt at (OpenTelemetry messaging.client.consumed.messages).',
      labelNames: messagingLabels,
      registers,
    });
    this.sentCount = new prom.Counter({
      name: 'messaging_client_sent_messages_total',
      help: 'Jobs pushed to Redis by this process (OpenTelemetry messaging.client.sent.messages).',
      labelNames: messagingLabels,
      registers,
    });
    this.expired = new prom.Counter({
      name: 'larq_reservations_expired_total',
      help: 'Reserved jobs found older than retry_after (their worker died or hung) and moved back onto the queue.',
      labelNames: ['queue'] as const,
      registers,
    });
    this.children = new PerPair((queue, job) => ({
      duration: this.duration.labels({
        messaging_system: MESSAGING_SYSTEM,
        messaging_destination_name: queue,
        messaging_operation_name: 'process',
        job,
        error_type: '',
      }),
      consumed: this.consumed.labels({ messaging_system: MESSAGING_SYSTEM, messaging_destination_name: queue }),
      wait: this.wait.labels({ queue }),
    }));
    const depthGauge = (name: string, help: string, read: (d: QueueDepth) => number | null) =>
      new prom.Gauge({
        name,
        help,
        labelNames: ['queue'] as const,
        registers,
        async collect() {
          this.reset();
          for (const d of await metrics.depths()) {
            const value = read(d);
            if (value !== null) this.set({ queue: d.queue }, value);
          }
        },
      });
    depthGauge(
      'larq_queue_pending_jobs',
      'Jobs waiting in the queue list (LLEN queues:NAME), read at collection.',
      (d) => d.pending,
    );
    depthGauge(
      'larq_queue_delayed_jobs',
      'Jobs in the delayed set (ZCARD queues:NAME:delayed), read at collection.',
      (d) => d.delayed,
    );
    depthGauge(
      'larq_queue_reserved_jobs',
      'Jobs reserved by a worker (ZCARD queues:NAME:reserved), read at collection.',
      (d) => d.reserved,
    );
    depthGauge(
      'larq_queue_oldest_pending_age_seconds',
      "Age of the oldest waiting job (its payload's createdAt, Laravel 12.11+), read at collection.",
      (d) => d.oldestAge,
    );
    new prom.Gauge({
      name: 'larq_worker_slots_busy',
      help: 'Attempts under way in this worker.',
      registers,
      collect() {
        this.set(metrics.slotsInUse().running);
      },
    });
    new prom.Gauge({
      name: 'larq_worker_slots',
      help: "The worker's concurrency: how many attempts it runs at once at most.",
      registers,
      collect() {
        this.set(metrics.slotsInUse().slots);
      },
    });
  }

  started(queue: string, job: string, waitSeconds: number | null): void {
    const c = this.children.get(queue, job);
    c.consumed.inc();
    if (waitSeconds !== null) c.wait.observe(waitSeconds);
  }

  ended(queue: string, job: string, end: AttemptEnd, seconds: number): void {
    if (end.outcome === 'processed' || end.outcome === 'released')
      this.outcome[end.outcome].labels({ queue, job }).inc();
    if (end.failed) this.outcome.failed.labels({ queue, job }).inc();
    if (end.outcome === 'timed_out') this.outcome.timed_out.labels({ queue, job }).inc();
    if (end.error === null && end.outcome !== 'timed_out') this.children.get(queue, job).duration.observe(seconds);
    else
      this.duration.observe(
        {
          messaging_system: MESSAGING_SYSTEM,
          messaging_destination_name: queue,
          messaging_operation_name: 'process',
          job,
          error_type: errorType(end),
        },
        seconds,
      );
  }

  sent(queue: string, count: number): void {
    this.sentCount.inc({ messaging_system: MESSAGING_SYSTEM, messaging_destination_name: queue }, count);
  }

  reservationsExpired(queue: string, count: number): void {
    this.expired.inc({ queue }, count);
  }
}

class OtelRecorder implements Recorder {
  private readonly outcome: OtelApi.Counter;
  private readonly duration: OtelApi.Histogram;
  private readonly wait: OtelApi.Histogram;
  private readonly consumed: OtelApi.Counter;
  private readonly sentCount: OtelApi.Counter;
  private readonly expired: OtelApi.Counter;

  constructor(meter: OtelApi.Meter, metrics: JobMetrics) {
    this.outcome = meter.createCounter('larq.jobs', {
      description: 'Attempts by outcome (larq.job.outcome: processed, failed, released, timed_out).',
    });
    this.duration = meter.createHistogram('messaging.process.duration', {
      unit: 's',
      description: 'Duration of processing a job.',
      advice: { explicitBucketBoundaries: DURATION_BUCKETS },
    });
    this.wait = meter.createHistogram('larq.job.wait', {
      unit: 's',
      description: "Seconds from a job's push to the start of its attempt.",
      advice: { explicitBucketBoundaries: WAIT_BUCKETS },
    });
    this.consumed = meter.createCounter('messaging.client.consumed.messages', {
      description: 'Jobs the worker started an attempt at.',
    });
    this.sentCount = meter.createCounter('messaging.client.sent.messages', {
      description: 'Jobs pushed to Redis by this process.',
    });
    this.expired = meter.createCounter('larq.reservations.expired', {
      description: 'Reserved jobs found older than retry_after and moved back onto the queue.',
    });
    const gauges = {
      pending: meter.createObservableGauge('larq.queue.pending', { description: 'Jobs waiting in the queue list.' }),
      delayed: meter.createObservableGauge('larq.queue.delayed', { description: 'Jobs in the delayed set.' }),
      reserved: meter.createObservableGauge('larq.queue.reserved', { description: 'Jobs reserved by a worker.' }),
      oldestAge: meter.createObservableGauge('larq.queue.oldest_pending_age', {
        unit: 's',
        description: 'Age of the oldest waiting job.',
      }),
    };
    const busy = meter.createObservableGauge('larq.worker.slots.busy', {
      description: 'Attempts under way in this worker.',
    });
    meter.addBatchObservableCallback(
      async (result) => {
        for (const d of await metrics.depths()) {
          const attrs = { 'messaging.destination.name': d.queue };
          result.observe(gauges.pending, d.pending, attrs);
          result.observe(gauges.delayed, d.delayed, attrs);
          result.observe(gauges.reserved, d.reserved, attrs);
          if (d.oldestAge !== null) result.observe(gauges.oldestAge, d.oldestAge, attrs);
        }
        result.observe(busy, metrics.slotsInUse().running);
      },
      [gauges.pending, gauges.delayed, gauges.reserved, gauges.oldestAge, busy],
    );
  }

  started(queue: string, job: string, waitSeconds: number | null): void {
    this.consumed.add(1, { 'messaging.system': MESSAGING_SYSTEM, 'messaging.destination.name': queue });
    if (waitSeconds !== null) this.wait.record(waitSeconds, { 'messaging.destination.name': queue });
  }

  ended(queue: string, job: string, end: AttemptEnd, seconds: number): void {
    this.outcome.add(1, {
      'messaging.destination.name': queue,
      'messaging.message.job_name': job,
      'larq.job.outcome': end.outcome,
    });
    const attrs: OtelApi.Attributes = {
      'messaging.system': MESSAGING_SYSTEM,
      'messaging.destination.name': queue,
      'messaging.operation.name': 'process',
      'messaging.message.job_name': job,
    };
    const error = errorType(end);
    if (error !== '') attrs['error.type'] = error;
    this.duration.record(seconds, attrs);
  }

  sent(queue: string, count: number): void {
    this.sentCount.add(count, { 'messaging.system': MESSAGING_SYSTEM, 'messaging.destination.name': queue });
  }

  reservationsExpired(queue: string, count: number): void {
    this.expired.add(count, { 'messaging.destination.name': queue });
  }
}

function errorType(end: AttemptEnd): string {
  return end.outcome === 'timed_out' ? 'TimeoutExceededError' : (end.error?.name ?? '');
}
