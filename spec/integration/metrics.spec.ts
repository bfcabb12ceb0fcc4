// Metrics on a real redis-server, scraped over HTTP as Prometheus would: every counter against what the
// handlers did, the histograms' counts, and the queue-depth gauges against LLEN and ZCARD.
import { expect } from 'chai';
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics';
import type Redis from 'ioredis';
import { createWorker } from '../../lib/createWorker';
import { Handlers } from '../../lib/handlers/Handlers';
import { RedisQueue } from '../../lib/RedisQueue';
import { JobMetrics } from '../../lib/telemetry/JobMetrics';
import { serveMetrics, type MetricsServer } from '../../lib/telemetry/serveMetrics';
import { SendWelcomeEmail } from '../support/phpJobs';
import { randomPrefix, rawClient, requireRedis } from '../support/redis';

/** Prometheus' text format as name, labels and value per sample. */
function parse(text: string): { name: string; labels: Record<string, string>; value: number }[] {
  return text
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
      if (!m) throw new Error(`not a sample line: ${line}`);
      const labels = Object.fromEntries(
        [...(m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((l) => [l[1], l[2]]),
      );
      return { name: m[1], labels, value: Number(m[3]) };
    });
}

function total(samples: ReturnType<typeof parse>, name: string, where: Record<string, string> = {}): number {
  return samples
    .filter((s) => s.name === name && Object.entries(where).every(([k, v]) => s.labels[k] === v))
    .reduce((sum, s) => sum + s.value, 0);
}

describe('Worker metrics for Prometheus', function () {
  this.timeout(60000);
  let port: number;
  let client: Redis;
  let prefix: string;
  let queue: RedisQueue;
  let metrics: JobMetrics;
  let server: MetricsServer;

  before(async function () {
    port = await requireRedis(this);
    client = rawClient(port);
  });
  after(() => client?.disconnect());
  beforeEach(async () => {
    prefix = randomPrefix();
    metrics = new JobMetrics();
    queue = new RedisQueue({ connection: { port }, prefix, laravel: 13, retryAfter: 90, telemetry: { metrics } });
    server = await serveMetrics(metrics.registry!, { host: '127.0.0.1', port: 0 });
  });
  afterEach(async () => {
    await server.close();
    await queue.close();
  });

  const scrape = async () => {
    const res = await fetch(`http://127.0.0.1:${server.address.port}/metrics`);
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^text\/plain; version=0\.0\.4/);
    return parse(await res.text());
  };

  it('counts 1,000 jobs as they were processed, failed, released and timed out, and reads queue depth from Redis', async function () {
    const jobs = Array.from({ length: 1000 }, (_, i) => ({
      command: SendWelcomeEmail.make({ to: String(i), subject: 's', meta: null }),
      ...(i % 50 === 2 ? { timeout: 1, maxTries: 2 } : {}),
    }));
    for (let i = 0; i < jobs.length; i += 250) await queue.bulk(jobs.slice(i, i + 250));
    for (let i = 0; i < 7; i++)
      await queue.later(3600, SendWelcomeEmail.make({ to: 'later', subject: 's', meta: null }), 'default');

    const handlers = new Handlers().object<{ to: string }>('App\\Jobs\\SendWelcomeEmail', async (c, ctx) => {
      const i = Number(c.to);
      if (i % 10 === 0) throw new TypeError(`job ${i} failed`);
      if (i % 10 === 1) return ctx.release(30);
      if (i % 50 === 2) return new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve()));
    });
    const worker = createWorker(queue, handlers, {
      sleep: 0,
      stopWhenEmpty: true,
      memory: 4096,
      concurrency: 20,
      maxTries: 1,
    });
    const midRun: ReturnType<typeof parse>[] = [];
    let scraping = true;
    const scraper = (async () => {
      while (scraping) {
        midRun.push(await scrape());
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    const result = await worker.daemon('default');
    scraping = false;
    await scraper;
    expect(result).to.deep.equal({ status: 0, reason: 'empty' });
    // Scrapes taken while the run went on saw it under way.
    expect(
      midRun.some(
        (s) =>
          total(s, 'messaging_client_consumed_messages_total') > 0 &&
          total(s, 'messaging_client_consumed_messages_total') < 1000,
      ),
    ).to.equal(true);

    const s = await scrape();
    const job = { queue: 'default', job: 'App\\\\Jobs\\\\SendWelcomeEmail' };
    expect(total(s, 'larq_jobs_processed_total', job)).to.equal(780);
    expect(total(s, 'larq_jobs_failed_total', job)).to.equal(100);
    expect(total(s, 'larq_jobs_released_total', job)).to.equal(100);
    expect(total(s, 'larq_jobs_timed_out_total', job)).to.equal(20);
    const messaging = { messaging_system: 'redis', messaging_destination_name: 'default' };
    expect(total(s, 'messaging_client_consumed_messages_total', messaging)).to.equal(1000);
    expect(total(s, 'messaging_client_sent_messages_total', messaging)).to.equal(1007);
    expect(total(s, 'messaging_process_duration_seconds_count', messaging)).to.equal(1000);
    expect(total(s, 'messaging_process_duration_seconds_count', { ...messaging, error_type: 'TypeError' })).to.equal(
      100,
    );
    expect(
      total(s, 'messaging_process_duration_seconds_count', { ...messaging, error_type: 'TimeoutExceededError' }),
    ).to.equal(20);
    // The timed-out handlers waited for their abort: at least a second each.
    expect(
      total(s, 'messaging_process_duration_seconds_bucket', {
        ...messaging,
        error_type: 'TimeoutExceededError',
        le: '0.5',
      }),
    ).to.equal(0);
    expect(total(s, 'larq_job_wait_seconds_count', { queue: 'default' })).to.equal(1000);

    expect(total(s, 'larq_queue_pending_jobs', { queue: 'default' })).to.equal(
      await client.llen(`${prefix}queues:default`),
    );
    expect(total(s, 'larq_queue_delayed_jobs', { queue: 'default' })).to.equal(
      await client.zcard(`${prefix}queues:default:delayed`),
    );
    expect(total(s, 'larq_queue_reserved_jobs', { queue: 'default' })).to.equal(
      await client.zcard(`${prefix}queues:default:reserved`),
    );
    expect(total(s, 'larq_queue_delayed_jobs', { queue: 'default' })).to.equal(107);
    expect(total(s, 'larq_queue_reserved_jobs', { queue: 'default' })).to.equal(20);
    expect(total(s, 'larq_worker_slots')).to.equal(20);
    expect(total(s, 'larq_worker_slots_busy')).to.equal(0);
    // No reservation outlived retry_after (90 s) in this run.
    expect(total(s, 'larq_reservations_expired_total', { queue: 'default' })).to.equal(0);
  });

  it('counts the reservations that expired by retry_after: the jobs a dead worker held, not the delayed jobs that came due', async function () {
    for (let i = 0; i < 12; i++)
      await queue.push(SendWelcomeEmail.make({ to: String(i), subject: 's', meta: null }), 'default');
    for (let i = 0; i < 3; i++)
      await queue.later(1, SendWelcomeEmail.make({ to: `later ${i}`, subject: 's', meta: null }), 'default');
    // A worker with retry_after 1 reserves five jobs and dies holding them: no delete, no release.
    const dead = new RedisQueue({ connection: { port }, prefix, laravel: 13, retryAfter: 1 });
    for (let i = 0; i < 5; i++) expect(await dead.pop('default')).to.not.equal(null);
    await dead.close();
    await new Promise((r) => setTimeout(r, 2100));
    expect(await client.zcount(`${prefix}queues:default:reserved`, '-inf', String(Date.now() / 1000))).to.equal(5);

    const ran: { to: string; attempts: number }[] = [];
    const handlers = new Handlers().object<{ to: string }>('App\\Jobs\\SendWelcomeEmail', (c, ctx) => {
      ran.push({ to: c.to, attempts: ctx.attempts });
    });
    const worker = createWorker(queue, handlers, {
      sleep: 0,
      stopWhenEmpty: true,
      memory: 4096,
      concurrency: 4,
      maxTries: 3,
    });
    expect(await worker.daemon('default')).to.deep.equal({ status: 0, reason: 'empty' });
    // The five held jobs ran again, as second attempts; the seven others and the three delayed ran once.
    expect(ran).to.have.length(15);
    expect(ran.filter((r) => r.attempts === 2)).to.have.length(5);

    const s = await scrape();
    expect(total(s, 'larq_reservations_expired_total', { queue: 'default' })).to.equal(5);
    expect(total(s, 'larq_reservations_expired_total')).to.equal(5);
    expect(total(s, 'larq_jobs_processed_total')).to.equal(15);
  });

  it('counts expired reservations through an OpenTelemetry Meter too, on a plain pop', async function () {
    const reader = new PeriodicExportingMetricReader({
      exporter: new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE),
      exportIntervalMillis: 3600000,
    });
    const provider = new MeterProvider({ readers: [reader] });
    const otel = new RedisQueue({
      connection: { port },
      prefix,
      laravel: 13,
      retryAfter: 90,
      telemetry: { metrics: new JobMetrics({ meter: provider.getMeter('spec') }) },
    });
    try {
      for (let i = 0; i < 4; i++)
        await otel.push(SendWelcomeEmail.make({ to: String(i), subject: 's', meta: null }), 'emails');
      const dead = new RedisQueue({ connection: { port }, prefix, laravel: 13, retryAfter: 1 });
      for (let i = 0; i < 3; i++) expect(await dead.pop('emails')).to.not.equal(null);
      await dead.close();
      await new Promise((r) => setTimeout(r, 2100));
      // The pop migrates the three held jobs back behind the fourth, then reserves the fourth.
      expect(JSON.parse((await otel.pop('emails'))!.getRawBody()).data.command).to.include('"3"');
      const { resourceMetrics } = await reader.collect();
      const expired = resourceMetrics.scopeMetrics
        .flatMap((m) => m.metrics)
        .find((m) => m.descriptor.name === 'larq.reservations.expired');
      expect(expired?.dataPoints.map((p) => [p.attributes, p.value])).to.deep.equal([
        [{ 'messaging.destination.name': 'emails' }, 3],
      ]);
    } finally {
      await otel.close();
      await provider.shutdown();
    }
  });

  it("reports the oldest waiting job's age from its createdAt", async function () {
    const worker = createWorker(queue, new Handlers(), { sleep: 0, stopWhenEmpty: true, memory: 4096 });
    await worker.daemon('default');
    await client.rpush(
      `${prefix}queues:default`,
      JSON.stringify({
        uuid: 'u',
        job: 'X@handle',
        data: {},
        createdAt: Math.floor(Date.now() / 1000) - 120,
        id: 'i',
        attempts: 0,
      }),
    );
    const s = await scrape();
    expect(total(s, 'larq_queue_pending_jobs', { queue: 'default' })).to.equal(1);
    const age = total(s, 'larq_queue_oldest_pending_age_seconds', { queue: 'default' });
    expect(age).to.be.within(119, 125);
  });

  it('answers 404 off /metrics', async function () {
    const res = await fetch(`http://127.0.0.1:${server.address.port}/`);
    expect(res.status).to.equal(404);
  });
});
