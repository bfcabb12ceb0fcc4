// A mixed fleet on one queue, real processes: one Laravel worker and one `larq work`, both honouring the
// middleware PHP put on the jobs. WithoutOverlapping('k'): no two runs overlap in time across the two
// languages. RateLimitedWithRedis('api') at 10 a second: no limiter window (a whole second, as
// DurationLimiter opens them) gives more than 10 runs their slot, counted across both.
import { expect } from 'chai';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import type Redis from 'ioredis';
import { compileCli, type CompiledCli } from '../support/compiled';
import { startLarq } from '../support/larqProcess';
import { laravelEnv, laravelHarness, PHP_DIR, requirePhp, runPhp, type PhpLaravelLine } from '../support/php';
import { randomPrefix, rawClient, requireRedis } from '../support/redis';

interface Run {
  n: number;
  start: number;
  end: number;
  /** The end (Unix seconds) of the RateLimitedWithRedis window the run's slot was taken in; null without one. */
  window: number | null;
  worker: string;
}

const line: PhpLaravelLine = '13.26';

describe(`interop: a mixed fleet (Laravel ${line} + larq work) keeps the middleware PHP put on the jobs`, function () {
  this.timeout(240000);
  const php = laravelHarness(line);
  let port: number;
  let client: Redis;
  let cli: CompiledCli;
  let dir: string;

  before(async function () {
    requirePhp(this, line);
    port = await requireRedis(this);
    client = rawClient(port);
    cli = compileCli(['spec/support/cli/middlewareHandlers.ts']);
    dir = mkdtempSync(join(tmpdir(), 'larq-fleet-'));
  });
  after(() => {
    client?.disconnect();
    cli?.remove();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  async function fleet(jobs: object[], perSecond: number): Promise<Run[]> {
    const prefix = randomPrefix();
    const app = mkdtempSync(join(dir, 'app-'));
    const larqRecord = join(app, 'larq.jsonl');
    const env = {
      APP_NAME: 'Laravel',
      LARQ_LARAVEL: '13',
      REDIS_HOST: '127.0.0.1',
      REDIS_PORT: String(port),
      REDIS_PREFIX: prefix,
      CACHE_STORE: 'redis',
      QUEUE_FAILED_DRIVER: 'null',
      LARQ_SPEC_RECORD: larqRecord,
      LARQ_SPEC_PER_SECOND: String(perSecond),
    };
    writeFileSync(
      join(app, '.env'),
      Object.entries(env)
        .map(([k, v]) => `${k}=${v}`)
        .join('\n') + '\n',
    );
    const sent = await runPhp('middleware.php', [JSON.stringify({ jobs })], {
      ...laravelEnv(line),
      LARQ_REDIS_PORT: String(port),
      LARQ_PREFIX: prefix,
    });
    expect(sent.code, sent.stderr).to.equal(0);
    const laravel = php.startLaravelWorker({
      port,
      prefix,
      stopWhenEmpty: false,
      tries: 0,
      sleep: 0.05,
      maxTime: 180,
      env: {
        LARQ_WORKER_SETUP: join(PHP_DIR, 'middleware.php'),
        LARQ_LIMITERS: JSON.stringify({ api: { max: perSecond, decay: 1 } }),
      },
    });
    const larq = startLarq(
      cli.main,
      [
        'work',
        `--handlers=${cli.compiled('spec/support/cli/middlewareHandlers.ts')}`,
        '--tries=0',
        '--sleep=0.05',
        '--quiet',
      ],
      { cwd: app },
    );
    const larqRuns = (): Run[] =>
      existsSync(larqRecord)
        ? readFileSync(larqRecord, 'utf8')
            .split('\n')
            .filter((l) => l !== '')
            .map((l) => JSON.parse(l) as Run)
        : [];
    // Released jobs wait in :delayed, where a pop does not see them: a worker stopping when a pop finds
    // nothing would stop early. Both run until every job has run, then get SIGTERM (finish, exit 0).
    const deadline = Date.now() + 180000;
    while (laravel.records().length + larqRuns().length < jobs.length && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 100));
    larq.child.kill('SIGTERM');
    const [phpRun, larqCode] = await Promise.all([laravel.stop(), larq.done]);
    expect(phpRun.code, phpRun.stderr).to.equal(0);
    expect(larqCode, larq.stderr).to.equal(0);
    const runs = [...(phpRun.records as unknown as Run[]), ...larqRuns()].sort((a, b) => a.start - b.start);
    // every job ran exactly once, and both languages took part
    expect(runs.map((r) => r.n).sort((a, b) => a - b)).to.deep.equal(jobs.map((_, i) => i + 1));
    expect(new Set(runs.map((r) => r.worker))).to.deep.equal(new Set(['php', 'larq']));
    expect(await client.llen(`${prefix}queues:default`)).to.equal(0);
    return runs;
  }

  it("WithoutOverlapping('k'), 200 jobs: no two runs overlap in time, whichever language ran them", async function () {
    const runs = await fleet(
      Array.from({ length: 200 }, (_, i) => ({
        n: i + 1,
        sleepMs: 5,
        middleware: [{ class: 'WithoutOverlapping', args: ['k'] }],
      })),
      10,
    );
    for (let i = 1; i < runs.length; i++) {
      expect(
        runs[i].start,
        `run ${runs[i].n} (${runs[i].worker}) starts before run ${runs[i - 1].n} (${runs[i - 1].worker}) ends`,
      ).to.be.at.least(runs[i - 1].end);
    }
  });

  it("RateLimitedWithRedis('api') at 10 a second, 200 jobs: at most 10 runs take a slot in any of the limiter's one-second windows", async function () {
    const runs = await fleet(
      Array.from({ length: 200 }, (_, i) => ({
        n: i + 1,
        middleware: [{ class: 'RateLimitedWithRedis', args: ['api'] }],
      })),
      10,
    );
    // A run counts in the window its slot was taken in, as its worker recorded it: its handler may start
    // in a later second (a slot taken at x.999 s, a start at x + 1.001 s).
    const perWindow = new Map<number, number>();
    for (const r of runs) {
      expect(r.window, `run ${r.n} (${r.worker}) took a slot`).to.be.a('number');
      perWindow.set(r.window!, (perWindow.get(r.window!) ?? 0) + 1);
    }
    expect(Math.max(...perWindow.values())).to.be.at.most(10);
  });
});
