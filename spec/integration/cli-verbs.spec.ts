// artisan's queue verbs larq lacked: queue:pause / queue:resume (one queue or --all), queue:retry-batch and
// queue:prune-batches, as processes against a Laravel-style .env, a private redis-server and SQLite.
import { expect } from 'chai';
import { writeFileSync } from 'fs';
import { join } from 'path';
import { createCacheTables } from '../../lib/cache';
import { createFailedJobProvider, createFailedJobsTable } from '../../lib/failed';
import { BatchRepository } from '../../lib/features';
import { RedisQueue } from '../../lib/RedisQueue';
import { compileCli, type CompiledCli } from '../support/compiled';
import { runLarq, startLarq } from '../support/larqProcess';
import { ChainStep } from '../support/phpJobs';
import { useRedisQueue } from '../support/useRedisQueue';
import { useTempDir } from '../support/useTempDir';

describe('larq pause, resume, retry-batch and prune-batches', function () {
  this.timeout(60000);
  const redis = useRedisQueue();
  const temp = useTempDir('verbs', 'all');
  let cli: CompiledCli;
  let env: string;
  let sqlite: string;
  let queue: RedisQueue;

  before(async function () {
    cli = compileCli();
  });
  after(() => {
    cli?.remove();
  });
  beforeEach(async () => {
    sqlite = join(temp.path, `${redis.prefix}.sqlite`);
    env = join(temp.path, `${redis.prefix}.env`);
    writeFileSync(sqlite, '');
    await createFailedJobsTable({ driver: 'sqlite', database: sqlite });
    await createCacheTables({ driver: 'sqlite', database: sqlite });
    const lines = [
      'APP_NAME=Shop',
      `REDIS_HOST=127.0.0.1`,
      `REDIS_PORT=${redis.port}`,
      `REDIS_PREFIX=${redis.prefix}`,
      'DB_CONNECTION=sqlite',
      `DB_DATABASE=${sqlite}`,
      'CACHE_STORE=database',
    ];
    writeFileSync(env, lines.join('\n') + '\n');
    queue = redis.open({ laravel: 13 });
  });

  function larq(...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
    return runLarq(cli.main, [...args, `--env=${env}`]);
  }

  const work = () => larq('work', `--handlers=${cli.handlers}`, '--stop-when-empty', '--sleep=0');

  it('pause stops workers taking jobs from one queue, resume lets them, with artisan 13s messages', async function () {
    await queue.push(ChainStep.make({ step: 1 }));
    expect(await larq('pause', 'default')).to.deep.include({
      code: 0,
      stdout: '\n   INFO  Job processing on queue [redis:default] has been paused.\n\n',
    });
    const paused = await work();
    expect(paused.code, paused.stderr).to.equal(0);
    expect(paused.stdout).not.to.include('RUNNING');
    expect(await queue.size('default')).to.equal(1);
    expect(await larq('resume', 'redis:default')).to.deep.include({
      code: 0,
      stdout: '\n   INFO  Job processing on queue [redis:default] has been resumed.\n\n',
    });
    expect((await work()).stdout).to.include('DONE');
    expect(await queue.size('default')).to.equal(0);
  });

  it('pause --all pauses every queue (13.25+), resume --all lifts it; a missing queue name is an error', async function () {
    await queue.push(ChainStep.make({ step: 1 }));
    expect((await larq('pause', '--all')).stdout).to.equal(
      '\n   INFO  Job processing on all queues across all connections has been paused.\n\n',
    );
    expect((await work()).stdout).not.to.include('RUNNING');
    expect(await queue.size('default')).to.equal(1);
    expect((await larq('resume', '--all')).stdout).to.equal(
      '\n   INFO  Job processing on all queues across all connections has been resumed.\n\n',
    );
    expect((await work()).stdout).to.include('DONE');
    expect(await larq('pause')).to.deep.include({
      code: 1,
      stderr: '\n   ERROR  A queue name is required unless the --all option is used.\n\n',
    });
    const old = await larq('pause', '--all', '--laravel=12');
    expect(old.code).to.equal(1);
    expect(old.stderr).to.match(/needs Laravel 13\.25 or later/);
  });

  it("retry-batch pushes a batch's failed jobs back and removes their failed records", async function () {
    const batches = new BatchRepository({ driver: 'sqlite', database: sqlite });
    const store = createFailedJobProvider({
      driver: 'database-uuids',
      database: { driver: 'sqlite', database: sqlite },
    });
    try {
      await batches.createTable();
      const batch = await batches.store('nightly');
      await batches.incrementTotalJobs(batch.id, 1);
      const id = await queue.push(ChainStep.make({ step: 7 }));
      const [job] = await queue.popMany('default', 0, 1, () => undefined);
      await queue.deleteReserved('default', job);
      await store.log('redis', 'default', job.getRawBody(), 'boom');
      const uuid = job.uuid()!;
      await batches.recordFailedJob(batch.id, uuid);
      const run = await larq('retry-batch', batch.id);
      expect(run.code, run.stderr).to.equal(0);
      expect(run.stdout).to.include(`Pushing failed queue jobs of the batch [${batch.id}] back onto the queue.`);
      expect(run.stdout).to.match(new RegExp(`${uuid} \\.+ DONE`));
      expect(await queue.size('default')).to.equal(1);
      expect(await store.find(uuid)).to.equal(null);
      expect(id).to.be.a('string');
      const missing = await larq('retry-batch', 'nope');
      expect(missing).to.deep.include({ code: 1, stderr: '\n   ERROR  Unable to find a batch with ID [nope].\n\n' });
    } finally {
      await store.close();
      await batches.close();
    }
  });

  it('prune-batches deletes finished batches older than --hours, and unfinished or cancelled ones when asked', async function () {
    const now = Math.floor(Date.now() / 1000);
    const batches = new BatchRepository({ driver: 'sqlite', database: sqlite });
    try {
      await batches.createTable();
      const t = batches.sql.quote('job_batches');
      const row = (id: string, created: number, finished: number | null, cancelled: number | null) =>
        batches.sql.execute(
          `INSERT INTO ${t} (id, name, total_jobs, pending_jobs, failed_jobs, failed_job_ids, options, created_at, finished_at, cancelled_at) VALUES (?, '', 0, 0, 0, '[]', 'a:0:{}', ?, ?, ?)`,
          [id, created, finished, cancelled],
        );
      await row('old-finished', now - 50 * 3600, now - 48 * 3600, null);
      await row('new-finished', now - 2 * 3600, now - 3600, null);
      await row('old-unfinished', now - 50 * 3600, null, null);
      await row('old-cancelled', now - 50 * 3600, null, now - 49 * 3600);
      const first = await larq('prune-batches');
      expect(first).to.deep.include({ code: 0, stdout: '\n   INFO  1 entries deleted.\n\n' });
      const second = await larq('prune-batches', '--hours=0', '--unfinished=24', '--cancelled=24');
      expect(second.stdout).to.equal(
        '\n   INFO  1 entries deleted.\n\n\n   INFO  2 unfinished entries deleted.\n\n\n   INFO  0 cancelled entries deleted.\n\n',
      );
      expect(await batches.sql.select(`SELECT id FROM ${t}`)).to.deep.equal([]);
    } finally {
      await batches.close();
    }
  });

  describe("larq work's output, as queue:work 13 prints it", function () {
    function start(args: string[], extraEnv: Record<string, string> = {}) {
      // no colour settings of this process: the spec says when it wants them
      const run = startLarq(cli.main, ['work', `--handlers=${cli.handlers}`, `--env=${env}`, ...args], {
        env: extraEnv,
        unset: ['NO_COLOR', 'FORCE_COLOR'],
      });
      return { child: run.child, run };
    }
    async function until(check: () => boolean, ms = 15000): Promise<void> {
      const deadline = Date.now() + ms;
      while (!check()) {
        if (Date.now() > deadline) throw new Error('timed out');
        await new Promise((r) => setTimeout(r, 50));
      }
    }

    it('says when a queue it works becomes PAUSED and RESUMED', async function () {
      await larq('pause', 'default');
      const { child, run } = start(['--sleep=0.1']);
      try {
        await until(() => /Queue default PAUSED$/m.test(run.stdout));
        expect(run.stdout).to.match(/^ {2}\d{4}-\d\d-\d\d \d\d:\d\d:\d\d Queue default PAUSED$/m);
        await larq('resume', 'default');
        await until(() => /Queue default RESUMED$/m.test(run.stdout));
        await queue.push(ChainStep.make({ step: 1 }));
        await until(() => / DONE$/m.test(run.stdout));
      } finally {
        child.kill('SIGTERM');
        await run.done;
      }
    });

    it("--json prints one object per job event with artisan's fields", async function () {
      await queue.push(ChainStep.make({ step: 1 }));
      await queue.push(ChainStep.make({ step: 13 })); // throws: failed for good under --tries=1
      const { run } = start(['--json', '--stop-when-empty', '--sleep=0']);
      expect(await run.done).to.equal(0);
      const lines = run.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(lines.map((l) => l.status)).to.deep.equal(['starting', 'success', 'starting', 'failed']);
      expect(lines[1]).to.include({
        level: 'info',
        connection: 'redis',
        queue: 'default',
        job: 'App\\Jobs\\ChainStep',
        result: 'deleted',
        attempts: 1,
      });
      expect(lines[1].duration).to.be.a('number');
      // a failed job was deleted by fail(), and artisan's match() asks isDeleted() first
      expect(lines[3]).to.include({ level: 'warning', result: 'deleted', exception: 'Error', message: 'unlucky step' });
      expect(lines[3].uuid).to.match(/^[0-9a-f-]{36}$/);
      expect(lines[0].timestamp).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00$/);
    });

    it('-v adds the job id, connection and queue; colours only on a terminal or with FORCE_COLOR', async function () {
      const id = await queue.push(ChainStep.make({ step: 1 }));
      const verbose = start(['-v', '--stop-when-empty', '--sleep=0']);
      expect(await verbose.run.done).to.equal(0);
      expect(verbose.run.stdout).to.include(`App\\Jobs\\ChainStep ${id} redis default`);
      expect(verbose.run.stdout).to.match(/ \d+(\.\d+)?m?s \d+\.\dMB DONE$/m);
      expect(verbose.run.stdout).not.to.include('\x1b[');
      await queue.push(ChainStep.make({ step: 2 }));
      const colored = start(['--stop-when-empty', '--sleep=0'], { FORCE_COLOR: '1' });
      expect(await colored.run.done).to.equal(0);
      expect(colored.run.stdout).to.include('\x1b[1;32mDONE\x1b[0m');
    });
  });
});
