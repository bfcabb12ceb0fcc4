// One trace across PHP and Node on real Laravel 13.26: a PHP request's trace context rides in the payload
// (top-level traceparent/tracestate, as the Laravel OpenTelemetry packages write them), larq's worker
// continues it, and a job the Node handler dispatches carries it on to Laravel's own worker.
import { expect } from 'chai';
import { SpanKind } from '@opentelemetry/api';
import { createWorker } from '../../lib/createWorker';
import { Handlers } from '../../lib/handlers/Handlers';
import { RedisQueue } from '../../lib/RedisQueue';
import { JobTracing } from '../../lib/telemetry/JobTracing';
import { phpTraceparent, useInMemoryTracing } from '../support/otel';
import { phpJobsFor } from '../support/phpJobs';
import { randomPrefix } from '../support/redis';
import { laravelHarness, requirePhp } from '../support/php';
import { useRedisQueue } from '../support/useRedisQueue';

describe('interop: one trace from a Laravel 13.26 dispatch through a Node job to a Laravel worker', function () {
  this.timeout(60000);
  const redis = useRedisQueue();
  const line = '13.26';
  const { major, phpDispatch, runLaravelWorker } = laravelHarness(line);
  const { SendWelcomeEmail } = phpJobsFor(major);
  const sdk = useInMemoryTracing();

  before(async function () {
    requirePhp(this, line);
  });

  it('continues the PHP trace in larq, and Laravel sees larq as the parent of the job it runs', async function () {
    const prefix = randomPrefix();
    const php = phpTraceparent();
    await phpDispatch('traced', { port: redis.port, prefix, args: [php.traceparent, 'vendor=php', 'node'] });
    const raw = JSON.parse((await redis.client.lrange(`${prefix}queues:node`, 0, -1))[0]) as Record<string, unknown>;
    expect(raw.traceparent).to.equal(php.traceparent);

    const queue = new RedisQueue({
      connection: { port: redis.port },
      prefix,
      laravel: major,
      telemetry: { tracing: new JobTracing() },
    });
    const handlers = new Handlers().object('App\\Jobs\\SendWelcomeEmail', async (c) => {
      await queue.push(SendWelcomeEmail.make({ to: `from node: ${String(c.to)}`, subject: 'Node', meta: null }), 'php');
    });
    try {
      const result = await createWorker(queue, handlers, { sleep: 0, stopWhenEmpty: true, memory: 4096 }).daemon(
        'node',
      );
      expect(result).to.deep.equal({ status: 0, reason: 'empty' });
    } finally {
      await queue.close();
    }

    const spans = sdk.spans();
    const process = spans.find((s) => s.name === 'process node')!;
    const send = spans.find((s) => s.name === 'send php')!;
    expect(process.kind).to.equal(SpanKind.CONSUMER);
    expect(process.spanContext().traceId).to.equal(php.traceId);
    expect(process.parentSpanContext?.spanId).to.equal(php.spanId);
    expect(process.attributes).to.include({
      'messaging.system': 'redis',
      'messaging.destination.name': 'node',
      'messaging.operation.type': 'process',
      'messaging.message.id': raw.uuid,
      'messaging.message.job_name': 'App\\Jobs\\SendWelcomeEmail',
      'messaging.message.attempts': 1,
      'larq.job.outcome': 'processed',
    });
    expect(send.kind).to.equal(SpanKind.PRODUCER);
    expect(send.spanContext().traceId).to.equal(php.traceId);
    expect(send.parentSpanContext?.spanId).to.equal(process.spanContext().spanId);

    // Laravel's worker runs the Node-dispatched job, and the context it would extract is larq's send span.
    const records = await runLaravelWorker({ port: redis.port, prefix, queue: 'php' });
    const ran = records.filter((r) => r.hook === 'handle');
    expect(ran).to.have.length(1);
    expect(ran[0].traceparent).to.equal(`00-${php.traceId}-${send.spanContext().spanId}-01`);
    expect(ran[0].tracestate).to.equal('vendor=php');
  });
});
