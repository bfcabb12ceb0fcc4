// `larq work --metrics` and `--otel` as a user runs them: a real process serving Prometheus' /metrics, and
// the OpenTelemetry SDK sending its spans over OTLP/HTTP to a collector (here a small HTTP server).
import { expect } from 'chai';
import { spawn, type ChildProcess } from 'child_process';
import { writeFileSync } from 'fs';
import { createServer, type Server } from 'http';
import { join } from 'path';
import { createFailedJobsTable } from '../../lib/failed';
import { compileCli, type CompiledCli } from '../support/compiled';
import { phpTraceparent } from '../support/otel';
import { ChainStep } from '../support/phpJobs';
import { freePort } from '../support/redis';
import { useRedisQueue } from '../support/useRedisQueue';
import { useTempDir } from '../support/useTempDir';

const ROOT = join(__dirname, '..', '..');

describe('larq work --metrics and --otel', function () {
  this.timeout(60000);
  const redis = useRedisQueue();
  const temp = useTempDir('cli-telemetry', 'all');
  let cli: CompiledCli;
  let env: string;

  before(async function () {
    cli = compileCli();
  });
  after(() => {
    cli?.remove();
  });
  beforeEach(async () => {
    const sqlite = join(temp.path, `${redis.prefix}.sqlite`);
    env = join(temp.path, `${redis.prefix}.env`);
    writeFileSync(
      env,
      [
        'APP_NAME="My Shop"',
        'REDIS_HOST=127.0.0.1',
        `REDIS_PORT=${redis.port}`,
        `REDIS_PREFIX=${redis.prefix}`,
        'DB_CONNECTION=sqlite',
        `DB_DATABASE=${sqlite}`,
        'CACHE_STORE=array',
        '',
      ].join('\n'),
    );
    await createFailedJobsTable({ driver: 'sqlite', database: sqlite });
  });

  function start(
    args: string[],
    extraEnv: Record<string, string> = {},
  ): { child: ChildProcess; out: () => string; done: Promise<number | null> } {
    const e: Record<string, string | undefined> = { ...process.env, ...extraEnv };
    for (const name of Object.keys(e))
      if (/^(APP|REDIS|DB|CACHE|QUEUE|LARQ|OTEL)_/.test(name) && !(name in extraEnv)) delete e[name];
    const child = spawn(
      process.execPath,
      [cli.main, 'work', `--env=${env}`, `--handlers=${cli.handlers}`, '--sleep=0.1', ...args],
      { cwd: ROOT, env: e },
    );
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (out += d));
    return { child, out: () => out, done: new Promise((resolve) => child.on('exit', (code) => resolve(code))) };
  }

  async function until(check: () => Promise<boolean> | boolean, what: string, ms = 20000): Promise<void> {
    const deadline = Date.now() + ms;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  async function push(...steps: number[]): Promise<void> {
    const q = redis.open({ laravel: 13 });
    for (const step of steps) await q.push(ChainStep.make({ step }));
    await q.close();
  }

  it('--metrics serves the run on /metrics while the worker runs, and says where in its banner', async function () {
    await push(1, 2, 13, 3);
    const metricsPort = await freePort();
    const run = start([`--metrics=127.0.0.1:${metricsPort}`]);
    try {
      let text = '';
      await until(async () => {
        text = await fetch(`http://127.0.0.1:${metricsPort}/metrics`).then(
          (r) => r.text(),
          () => '',
        );
        return (
          /larq_jobs_failed_total\{queue="default",job="App\\\\Jobs\\\\ChainStep"\} 1/.test(text) &&
          /larq_jobs_processed_total\{[^}]*\} 3/.test(text)
        );
      }, '/metrics to count the four jobs');
      expect(text).to.match(/^larq_queue_pending_jobs\{queue="default"\} 0$/m);
      expect(text).to.match(/^larq_worker_slots 1$/m);
      expect(run.out()).to.include(`http://127.0.0.1:${metricsPort}/metrics`);
    } finally {
      run.child.kill('SIGTERM');
    }
    expect(await run.done).to.equal(0);
  });

  it('--metrics with a value that is no port exits 2 naming the flag', async function () {
    const run = start(['--metrics=metrics.example']);
    expect(await run.done).to.equal(2);
    expect(run.out()).to.equal(
      'larq work: --metrics must be PORT or HOST:PORT (e.g. 9464 or 127.0.0.1:9464), got "metrics.example"\n',
    );
  });

  it('--otel exports each job as a process span over OTLP, continuing the payload trace', async function () {
    const received: unknown[] = [];
    const collector: Server = createServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        if (req.url === '/v1/traces') received.push(JSON.parse(body));
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((r) => collector.listen(0, '127.0.0.1', r));
    const collectorPort = (collector.address() as { port: number }).port;
    try {
      const php = phpTraceparent();
      const q = redis.open({ laravel: 13 });
      await q.push({ command: ChainStep.make({ step: 5 }), extra: { traceparent: php.traceparent } });
      await q.close();
      const run = start(['--otel', '--stop-when-empty'], {
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${collectorPort}`,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_METRICS_EXPORTER: 'none',
        OTEL_LOGS_EXPORTER: 'none',
        OTEL_SERVICE_NAME: 'shop-worker',
      });
      expect(await run.done, run.out()).to.equal(0);
      const spans = JSON.stringify(received);
      expect(spans).to.include('"name":"process default"');
      expect(spans).to.include(`"traceId":"${php.traceId}"`);
      expect(spans).to.include(`"parentSpanId":"${php.spanId}"`);
      expect(spans).to.include('shop-worker');
    } finally {
      await new Promise((r) => collector.close(r));
    }
  });
});
