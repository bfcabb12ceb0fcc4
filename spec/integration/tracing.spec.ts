// Traces through @opentelemetry/api on a real redis-server: a job's attempt is a CONSUMER span under the
// payload's W3C context, the handler runs inside it, and what it pushes carries the trace on.
import { expect } from 'chai';
import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type Redis from 'ioredis';
import { createWorker } from '../../lib/createWorker';
import { Handlers } from '../../lib/handlers/Handlers';
import { RedisQueue } from '../../lib/RedisQueue';
import { JobTracing } from '../../lib/telemetry/JobTracing';
import type { WorkerOptions } from '../../lib/WorkerOptions';
import { phpTraceparent, useInMemoryTracing } from '../support/otel';
import { SendWelcomeEmail } from '../support/phpJobs';
import { randomPrefix, rawClient, requireRedis } from '../support/redis';

describe('Job tracing with OpenTelemetry', function () {
  this.timeout(30000);
  const sdk = useInMemoryTracing();
  let port: number;
  let client: Redis;
  let prefix: string;
  let queue: RedisQueue;

  before(async function () {
    port = await requireRedis(this);
    client = rawClient(port);
  });
  after(() => client?.disconnect());
  beforeEach(() => {
    prefix = randomPrefix();
    queue = new RedisQueue({ connection: { port }, prefix, laravel: 13, telemetry: { tracing: new JobTracing() } });
  });
  afterEach(async () => queue.close());

  const run = (handlers: Handlers, options: Partial<WorkerOptions> = {}) =>
    createWorker(queue, handlers, { sleep: 0, stopWhenEmpty: true, memory: 4096, ...options }).daemon('default');
  const welcome = () => SendWelcomeEmail.make({ to: 'ada@example.com', subject: 'Hi', meta: null });

  it('runs the handler inside a process span that continues the payload traceparent, and pushes carry it on', async function () {
    const php = phpTraceparent();
    await queue.push({ command: welcome(), extra: { traceparent: php.traceparent, tracestate: 'php=1' } });
    let handlerSpan: string | undefined;
    const handlers = new Handlers().object('App\\Jobs\\SendWelcomeEmail', async () => {
      handlerSpan = trace.getActiveSpan()?.spanContext().spanId;
      await trace.getTracer('app').startActiveSpan('render email', async (span) => span.end());
      await queue.push(welcome(), 'mail');
    });
    expect(await run(handlers)).to.deep.equal({ status: 0, reason: 'empty' });

    const spans = sdk.spans();
    const process = spans.find((s) => s.name === 'process default')!;
    expect(process.kind).to.equal(SpanKind.CONSUMER);
    expect(process.spanContext().traceId).to.equal(php.traceId);
    expect(process.parentSpanContext?.spanId).to.equal(php.spanId);
    expect(handlerSpan).to.equal(process.spanContext().spanId);
    expect(process.attributes).to.include({
      'messaging.system': 'redis',
      'messaging.destination.name': 'default',
      'messaging.operation.type': 'process',
      'messaging.message.job_name': 'App\\Jobs\\SendWelcomeEmail',
      'messaging.message.attempts': 1,
      'larq.job.outcome': 'processed',
    });
    const pushed = JSON.parse((await client.lrange(`${prefix}queues:mail`, 0, -1))[0]) as Record<string, unknown>;
    expect(process.attributes['messaging.message.id']).to.be.a('string');

    const own = spans.find((s) => s.name === 'render email')!;
    expect(own.parentSpanContext?.spanId).to.equal(process.spanContext().spanId);
    const send = spans.find((s) => s.name === 'send mail')!;
    expect(send.kind).to.equal(SpanKind.PRODUCER);
    expect(send.parentSpanContext?.spanId).to.equal(process.spanContext().spanId);
    expect(send.attributes).to.include({
      'messaging.system': 'redis',
      'messaging.destination.name': 'mail',
      'messaging.operation.type': 'send',
    });
    // The pushed payload carries the send span's context where the PHP packages read it: top-level keys.
    expect(pushed.traceparent).to.equal(`00-${php.traceId}-${send.spanContext().spanId}-01`);
    expect(pushed.tracestate).to.equal('php=1');
    expect(Object.keys(pushed).slice(-5)).to.deep.equal(['traceparent', 'tracestate', 'id', 'attempts', 'delay']);
  });

  it('starts a root span when the payload traceparent is malformed, and still runs the job', async function () {
    await queue.push({ command: welcome(), extra: { traceparent: '00-zzzz-not-a-context-01' } });
    await queue.push({ command: welcome(), extra: { traceparent: 5 } });
    let ran = 0;
    expect(await run(new Handlers().object('App\\Jobs\\SendWelcomeEmail', () => void ran++))).to.deep.equal({
      status: 0,
      reason: 'empty',
    });
    expect(ran).to.equal(2);
    const spans = sdk.spans().filter((s) => s.name === 'process default');
    expect(spans).to.have.length(2);
    for (const s of spans) {
      expect(s.parentSpanContext).to.equal(undefined);
      expect(s.attributes['larq.job.outcome']).to.equal('processed');
    }
  });

  it('links instead of parenting when asked, as the PHP package does for TracingLinked jobs', async function () {
    await queue.close();
    queue = new RedisQueue({
      connection: { port },
      prefix,
      laravel: 13,
      telemetry: { tracing: new JobTracing({ link: (name) => name.endsWith('SendWelcomeEmail') }) },
    });
    const php = phpTraceparent();
    await queue.push({ command: welcome(), extra: { traceparent: php.traceparent } });
    await run(new Handlers().object('App\\Jobs\\SendWelcomeEmail', () => undefined));
    const span = sdk.spans().find((s) => s.name === 'process default')!;
    expect(span.parentSpanContext).to.equal(undefined);
    expect(span.spanContext().traceId).to.not.equal(php.traceId);
    expect(span.links.map((l) => l.context.spanId)).to.deep.equal([php.spanId]);
  });

  it('records the outcome: released with its delay, failed with error.type, timed out', async function () {
    await queue.push({ command: welcome(), maxTries: 2, backoff: 7 });
    const handlers = new Handlers().object('App\\Jobs\\SendWelcomeEmail', () => {
      throw new TypeError('boom');
    });
    await run(handlers, { maxTries: 2 });
    const processSpan = () => sdk.spans().filter((s) => s.name === 'process default')[0];
    let span = processSpan();
    expect(span.attributes).to.include({
      'larq.job.outcome': 'released',
      'larq.job.release_delay': 7,
      'error.type': 'TypeError',
    });
    expect(span.status.code).to.not.equal(SpanStatusCode.ERROR);

    sdk.reset();
    await client.del(`${prefix}queues:default:delayed`);
    await queue.push({ command: welcome(), maxTries: 1 });
    await run(handlers);
    span = processSpan();
    expect(span.attributes).to.include({ 'larq.job.outcome': 'failed', 'error.type': 'TypeError' });
    expect(span.status.code).to.equal(SpanStatusCode.ERROR);
    expect(span.events.map((e) => e.name)).to.include('exception');

    sdk.reset();
    await queue.push({ command: welcome(), timeout: 1, maxTries: 1 });
    await run(
      new Handlers().object(
        'App\\Jobs\\SendWelcomeEmail',
        (_c, ctx) => new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve())),
      ),
    );
    span = processSpan();
    expect(span.attributes).to.include({ 'larq.job.outcome': 'timed_out', 'error.type': 'TimeoutExceededError' });
    expect(span.status.code).to.equal(SpanStatusCode.ERROR);
  });

  it('gives a bulk push one send span whose context every payload carries', async function () {
    await trace.getTracer('app').startActiveSpan('request', async (request) => {
      await queue.bulk([welcome(), welcome(), welcome()]);
      request.end();
    });
    const send = sdk.spans().find((s) => s.name === 'send default')!;
    expect(send.attributes['messaging.batch.message_count']).to.equal(3);
    const request = sdk.spans().find((s) => s.name === 'request')!;
    expect(send.parentSpanContext?.spanId).to.equal(request.spanContext().spanId);
    const payloads = (await client.lrange(`${prefix}queues:default`, 0, -1)).map(
      (p) => JSON.parse(p) as { traceparent: string },
    );
    expect(payloads.map((p) => p.traceparent)).to.deep.equal(
      Array(3).fill(`00-${send.spanContext().traceId}-${send.spanContext().spanId}-01`),
    );
  });
});

describe('Job tracing without an OpenTelemetry SDK', function () {
  it('writes no trace keys and changes no byte of a payload', async function () {
    const port = await requireRedis(this);
    const client = rawClient(port);
    const prefix = randomPrefix();
    const clock = { nowMs: () => 1_700_000_000_000 };
    const traced = new RedisQueue({
      connection: { port },
      prefix,
      laravel: 13,
      clock,
      telemetry: { tracing: new JobTracing() },
    });
    const plain = new RedisQueue({ connection: { port }, prefix, laravel: 13, clock });
    try {
      const job = SendWelcomeEmail.make({ to: 'a@b.c', subject: 's', meta: null });
      await traced.push(job);
      await plain.push(job);
      const [a, b] = (await client.lrange(`${prefix}queues:default`, 0, -1)).map(
        (p) => JSON.parse(p) as Record<string, unknown>,
      );
      expect(a).to.not.have.property('traceparent');
      expect({ ...a, uuid: '', id: '' }).to.deep.equal({ ...b, uuid: '', id: '' });
    } finally {
      await traced.close();
      await plain.close();
      client.disconnect();
    }
  });
});
