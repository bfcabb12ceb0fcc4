// A larq worker in a Laravel shop, on every line of LARAVEL_LINES (8.83, 12.67, 13.26): a job Laravel dispatched with tries = 3 and backoff [1, 2] that
// throws is run by larq three times at the right times, lands in Laravel's failed_jobs table, is read by
// Laravel's own DatabaseUuidFailedJobProvider, pushed back by Laravel's queue:retry, and run by Laravel.
import { expect } from 'chai';
import { writeFileSync } from 'fs';
import { join } from 'path';
import { unixSeconds } from '../../lib/clock';
import { createWorker } from '../../lib/createWorker';
import { createFailedJobProvider } from '../../lib/failed';
import { Handlers } from '../../lib/handlers/Handlers';
import type { RedisJob } from '../../lib/jobs/RedisJob';
import { RedisQueue } from '../../lib/RedisQueue';
import { IdleTime } from '../support/idleTime';
import { dumpKeys, randomPrefix } from '../support/redis';
import { LARAVEL_LINES, laravelHarness, requirePhp } from '../support/php';
import { useRedisQueue } from '../support/useRedisQueue';
import { useTempDir } from '../support/useTempDir';

for (const line of LARAVEL_LINES)
  describe(`interop: a larq worker fails a Laravel ${line} job the way Laravel does`, function () {
    this.timeout(60000);
    const redis = useRedisQueue();
    const temp = useTempDir('interop-worker', 'all');
    const { major, phpDispatch, runLaravelWorkerDetailed, runPhp } = laravelHarness(line);

    before(async function () {
      requirePhp(this, line);
    });

    async function laravelFailedJobs(
      sqlite: string,
    ): Promise<{ id: string; connection: string; queue: string; payload: string; exception: string }[]> {
      const res = await runPhp('failed-provider.php', ['all'], { LARQ_SQLITE: sqlite });
      expect(res.code, res.stderr).to.equal(0);
      return JSON.parse(res.stdout);
    }

    it('tries=3, backoff [1,2]: three runs, failed_jobs, Laravel reads it, queue:retry, a Laravel worker runs it', async function () {
      const prefix = randomPrefix();
      const sqlite = join(temp.path, `${prefix}.sqlite`);
      writeFileSync(sqlite, ''); // Laravel's SQLite connector wants the file to exist
      const created = await runPhp('failed-provider.php', ['create-table', JSON.stringify({ uuid: true })], {
        LARQ_SQLITE: sqlite,
      });
      expect(created.code, created.stderr).to.equal(0);

      const sent = await phpDispatch('object-failing', { port: redis.port, prefix, args: [3, 'boom', '1,2'] });

      // Virtual time: only the worker's idle sleep moves the shared clock, so "due at" is checked exactly. Its
      // deadline timer (stop checks while the job runs) waits on the clock without moving it, and the clock
      // stands still while a pop, the handler or the release is on its way to Redis, however long that takes.
      const time = new IdleTime();
      const { clock } = time;
      const queue = new RedisQueue({ connection: { port: redis.port }, prefix, laravel: major, retryAfter: 90, clock });
      const failed = createFailedJobProvider({
        driver: 'database-uuids',
        database: { driver: 'sqlite', database: sqlite },
      });
      const runs: { at: number; attempts: number; state: unknown }[] = [];
      const releases: { at: number; backoff: number; state: Promise<unknown>; reserved: string }[] = [];
      let last: RedisJob | undefined;
      const handlers = new Handlers().object('App\\Jobs\\FailingJob', async (command, ctx) => {
        last = ctx.job;
        runs.push({ at: unixSeconds(clock), attempts: ctx.attempts, state: await dumpKeys(redis.client, prefix) });
        throw new Error(String(command.reason));
      });
      const worker = createWorker(
        queue,
        handlers,
        { sleep: 0.25, stopWhenEmpty: false, maxJobs: 3, timeout: 0, memory: 4096 },
        { failed, clock, sleep: time.sleep },
      );
      // Each release's Redis state is read before time moves on and the next pop takes the job back.
      time.drive(worker, () => Promise.all(releases.map((r) => r.state)));
      worker.on('JobReleasedAfterException', (e) => {
        releases.push({
          at: unixSeconds(clock),
          backoff: e.backoff,
          reserved: e.job.getReservedJob(),
          state: dumpKeys(redis.client, prefix),
        });
      });
      try {
        expect(await worker.daemon('default')).to.deep.equal({ status: 0, reason: 'max_jobs' });
      } finally {
        await queue.close();
      }

      // Three runs; attempts 1 and 2 released with backoff 1 and 2 into :delayed, each next run exactly when due.
      expect(runs.map((r) => r.attempts)).to.deep.equal([1, 2, 3]);
      expect(releases.map((r) => r.backoff)).to.deep.equal([1, 2]);
      for (const [i, release] of releases.entries()) {
        const due = release.at + release.backoff;
        expect(await release.state).to.deep.equal({
          [`${prefix}queues:default:delayed`]: { type: 'zset', items: [{ member: release.reserved, score: due }] },
        });
        expect(runs[i + 1].at, `run ${i + 2} not before it is due`).to.equal(due);
      }
      // While running, a job is only in :reserved, as Laravel's pop leaves it.
      for (const run of runs)
        expect(Object.keys(run.state as object)).to.deep.equal([`${prefix}queues:default:reserved`]);
      // Failed for good: nothing left in Redis, one row in failed_jobs holding the raw body of attempt 3.
      expect(await redis.client.keys(`${prefix}*`)).to.deep.equal([]);
      const rows = await laravelFailedJobs(sqlite);
      expect(rows).to.have.length(1);
      // DatabaseUuidFailedJobProvider::all() reports the uuid as the record's id, as queue:failed shows it.
      expect(rows[0]).to.include({
        id: last!.uuid(),
        connection: 'redis',
        queue: 'default',
        payload: last!.getRawBody(),
      });
      expect(JSON.parse(rows[0].payload).attempts).to.equal(2);
      expect(rows[0].exception).to.match(/^Error: boom in \S+:\d+\nStack trace:\n#0 /);
      await failed.close();

      // Laravel's queue:retry pushes it back with attempts reset, and removes the row.
      const retry = await runPhp('retry.php', ['all'], {
        LARQ_SQLITE: sqlite,
        LARQ_REDIS_PORT: String(redis.port),
        LARQ_PREFIX: prefix,
      });
      expect(retry.code, retry.stderr + retry.stdout).to.equal(0);
      expect(await laravelFailedJobs(sqlite)).to.deep.equal([]);
      const [pushed] = await redis.client.lrange(`${prefix}queues:default`, 0, -1);
      expect(JSON.parse(pushed)).to.include({ uuid: last!.uuid(), attempts: 0, id: sent.ids[0] });

      // And a Laravel worker runs it (it throws again, as the job always does: attempt 1 of 3, released).
      const run = await runLaravelWorkerDetailed({ port: redis.port, prefix, maxJobs: 1 });
      expect(run.records.map((r) => [r.hook, r.uuid, r.attempts])).to.deep.equal([['handle', last!.uuid(), 1]]);
    });
  });
