// OpenTelemetry traces for jobs, through @opentelemetry/api (an optional peer dependency: larq loads it
// only when a JobTracing is made). Both Laravel OpenTelemetry packages carry the W3C trace context as
// top-level `traceparent`/`tracestate` keys of the queued payload (opentelemetry-auto-laravel injects
// them into what `Queue::createPayloadArray` returns; keepsuit/laravel-opentelemetry merges them through
// `Queue::createPayloadUsing`), and their worker extracts the context from `$job->payload()`. larq reads
// and writes the same keys, through the globally registered propagator, so one trace runs from a PHP
// request through a Node job and on into the jobs that job dispatches, whichever language runs them.
// With no SDK registered the API's tracer and propagator do nothing, and neither does this.
import type * as OtelApi from '@opentelemetry/api';
import type { JobAttempt, JobRunner, WorkerJob } from '../jobs/contracts';
import { loadDriver } from '../sql/loadDriver';
import { ArrayMap } from '../support/ArrayMap';
import type { Worker } from '../Worker';
import { observeAttempts, payloadKeys, type AttemptEnd } from './attemptOutcomes';

/** Options of {@link JobTracing}. */
export interface JobTracingOptions {
  /**
   * Start a job's span as the root of a new trace that links to the payload's context, instead of as its
   * child (what the PHP package does for a job implementing `TracingLinked`). A function decides per job,
   * from its display name. Default false: the span is the payload context's child.
   */
  link?: boolean | ((jobName: string) => boolean);
  /** The tracer's name. Default `larq`. */
  tracerName?: string;
}

/** The attribute `messaging.system` takes on both sides (the PHP package sets `redis` for a Redis queue). */
const MESSAGING_SYSTEM = 'redis';

// Reads only string values: a payload key of another type (a forged `traceparent: 5`) is no context.
const payloadGetter: OtelApi.TextMapGetter<Record<string, unknown>> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => {
    const value = carrier[key];
    return typeof value === 'string' ? value : undefined;
  },
};

interface OpenSpan {
  span: OtelApi.Span;
  context: OtelApi.Context;
}

/**
 * Traces a worker's attempts (a CONSUMER span `process <queue>` each, the handler running inside it)
 * and a queue's pushes (a PRODUCER span `send <queue>` each, its context written into the payload).
 * Give it to a RedisQueue as `telemetry: { tracing }`; createWorker then traces that queue's worker.
 */
export class JobTracing {
  private readonly api: typeof OtelApi;
  private readonly tracer: OtelApi.Tracer;
  // Keyed by the attempt's reserved string: the handler may get the job through the worker's fence.
  // An array, not a Map: see support/ArrayMap.
  private readonly open = new ArrayMap<string, OpenSpan>();

  constructor(private readonly options: JobTracingOptions = {}) {
    this.api = loadDriver<typeof OtelApi>('@opentelemetry/api', 'tracing');
    this.tracer = this.api.trace.getTracer(options.tracerName ?? 'larq');
  }

  /** Trace every attempt `worker` runs: a span from JobProcessing to the attempt's end. */
  observe<J extends WorkerJob>(worker: Worker<J>): void {
    observeAttempts(worker, {
      started: (job) => this.startProcess(job),
      ended: (job, end) => this.endProcess(job, end),
    });
  }

  /** `runner`, with each job's handler running inside its attempt's span, so spans it starts nest under it. */
  wrap<J extends WorkerJob>(runner: JobRunner<J>): JobRunner<J> {
    const { api, open } = this;
    return {
      run(job: J, attempt: JobAttempt): Promise<void> {
        const traced = open.get(job.getReservedJob());
        return traced ? api.context.with(traced.context, () => runner.run(job, attempt)) : runner.run(job, attempt);
      },
      failed: runner.failed && ((job: J, error: Error | null) => runner.failed!(job, error)),
    };
  }

  /**
   * Run `push` inside a PRODUCER span `send <queue>` for `count` jobs, handing it the keys to add to each
   * payload (`traceparent`, and `tracestate` when there is one), or undefined when the propagator wrote none.
   */
  async send<T>(
    queue: string,
    count: number,
    push: (keys: Record<string, string> | undefined) => Promise<T>,
  ): Promise<T> {
    const { api } = this;
    const attributes: OtelApi.Attributes = {
      'messaging.system': MESSAGING_SYSTEM,
      'messaging.destination.name': queue,
      'messaging.operation.type': 'send',
      'messaging.operation.name': 'send',
    };
    if (count !== 1) attributes['messaging.batch.message_count'] = count;
    const span = this.tracer.startSpan(`send ${queue}`, { kind: api.SpanKind.PRODUCER, attributes });
    const carrier: Record<string, string> = {};
    api.propagation.inject(api.trace.setSpan(api.context.active(), span), carrier);
    try {
      return await push(Object.keys(carrier).length === 0 ? undefined : carrier);
    } catch (e) {
      span.setStatus({ code: api.SpanStatusCode.ERROR, message: e instanceof Error ? e.message : String(e) });
      span.setAttribute('error.type', e instanceof Error ? e.name : 'Error');
      throw e;
    } finally {
      span.end();
    }
  }

  private startProcess(job: WorkerJob): void {
    const { api } = this;
    const queue = job.getQueue();
    const name = job.resolveName();
    const raw = job.getRawBody();
    const payload = payloadKeys(job);
    const attributes: OtelApi.Attributes = {
      'messaging.system': MESSAGING_SYSTEM,
      'messaging.destination.name': queue,
      'messaging.operation.type': 'process',
      'messaging.operation.name': 'process',
      'messaging.message.envelope.size': Buffer.byteLength(raw),
      'messaging.message.job_name': name,
      'messaging.message.attempts': job.attempts(),
    };
    const uuid = job.uuid();
    if (uuid !== null) attributes['messaging.message.id'] = uuid;
    const propagated = api.propagation.extract(api.ROOT_CONTEXT, payload, payloadGetter);
    const link = typeof this.options.link === 'function' ? this.options.link(name) : this.options.link === true;
    const remote = api.trace.getSpanContext(propagated);
    let span: OtelApi.Span;
    let context: OtelApi.Context;
    if (link) {
      const links = remote && api.isSpanContextValid(remote) ? [{ context: remote }] : [];
      span = this.tracer.startSpan(
        `process ${queue}`,
        { kind: api.SpanKind.CONSUMER, attributes, links, root: true },
        api.ROOT_CONTEXT,
      );
      context = api.trace.setSpan(api.ROOT_CONTEXT, span);
    } else {
      span = this.tracer.startSpan(`process ${queue}`, { kind: api.SpanKind.CONSUMER, attributes }, propagated);
      context = api.trace.setSpan(propagated, span);
    }
    this.open.set(job.getReservedJob(), { span, context });
  }

  private endProcess(job: WorkerJob, end: AttemptEnd): void {
    const traced = this.open.get(job.getReservedJob());
    if (!traced) return;
    this.open.delete(job.getReservedJob());
    const { span } = traced;
    span.setAttribute('larq.job.outcome', end.outcome);
    if (end.releaseDelay !== null) span.setAttribute('larq.job.release_delay', end.releaseDelay);
    span.setAttribute('messaging.message.deleted', job.isDeleted());
    span.setAttribute('messaging.message.released', job.isReleased());
    if (end.outcome === 'timed_out') {
      span.setAttribute('error.type', 'TimeoutExceededError');
    } else if (end.error) {
      span.recordException(end.error);
      span.setAttribute('error.type', end.error.name);
    }
    if (end.outcome === 'failed' || end.outcome === 'timed_out') {
      span.setStatus({ code: this.api.SpanStatusCode.ERROR, message: end.error?.message ?? end.outcome });
    }
    span.end();
  }
}
