// Against real Laravel, on every line of LARAVEL_LINES (8.83, 12.67, 13.26), with the payload another
// producer pushes with Queue::pushRaw (no uuid) (issue 21, findings 8 and 12):
// - `"attempts":"0"` (a string): Laravel's own worker runs it as attempt 1, and so does larq;
// - when it fails under larq, it is recorded (under a generated uuid) in the database-uuids table, Laravel's
//   DatabaseUuidFailedJobProvider reads the row, and Laravel's queue:retry pushes it back.
import { expect } from 'chai';
import { writeFileSync } from 'fs';
import { join } from 'path';
import { createWorker } from '../../lib/createWorker';
import { createFailedJobProvider } from '../../lib/failed';
import { Handlers } from '../../lib/handlers/Handlers';
import { RedisQueue } from '../../lib/RedisQueue';
import { randomPrefix } from '../support/redis';
import { LARAVEL_LINES, laravelHarness, requirePhp } from '../support/php';
import { useRedisQueue } from '../support/useRedisQueue';
import { useTempDir } from '../support/useTempDir';

for (const line of LARAVEL_LINES)
  describe(`interop: uuid-less and string-attempts payloads with Laravel ${line}`, function () {
    this.timeout(60000);
    const redis = useRedisQueue();
    const temp = useTempDir('interop-failed', 'all');
    const { major, phpDispatch, runLaravelWorkerDetailed, runPhp } = laravelHarness(line);

    before(async function () {
      requirePhp(this, line);
    });

    /** Laravel's Queue::pushRaw of a hand-written string job (no uuid), with `"attempts":0` turned into `"attempts":"0"`. */
    async function rawJobWithStringAttempts(prefix: string): Promise<string> {
      await phpDispatch('raw', { port: redis.port, prefix });
      const key = `${prefix}queues:default`;
      const [payload] = await redis.client.lrange(key, 0, -1);
      expect(JSON.parse(payload)).to.not.have.property('uuid');
      const edited = payload.replace('"attempts":0', '"attempts":"0"');
      expect(edited).to.not.equal(payload);
      await redis.client.lset(key, 0, edited);
      return edited;
    }

    it('Laravel runs a job whose attempts is "0" as attempt 1, and so does larq', async function () {
      const prefix = randomPrefix();
      await rawJobWithStringAttempts(prefix);
      const laravel = await runLaravelWorkerDetailed({ port: redis.port, prefix, maxJobs: 1 });
      expect(laravel.records.map((r) => [r.hook, r.attempts])).to.deep.equal([['handle', 1]]);
      expect(laravel.failed).to.deep.equal([]);

      const prefix2 = randomPrefix();
      await rawJobWithStringAttempts(prefix2);
      const queue = new RedisQueue({
        connection: { port: redis.port },
        prefix: prefix2,
        laravel: major,
        retryAfter: 90,
      });
      const seen: number[] = [];
      const handlers = new Handlers().string('App\\Handlers\\RawHandler@handle', async (_data, ctx) => {
        seen.push(ctx.attempts);
        await ctx.delete();
      });
      try {
        await createWorker(queue, handlers, { sleep: 0, stopWhenEmpty: true, memory: 4096 }).daemon('default');
      } finally {
        await queue.close();
      }
      expect(seen).to.deep.equal([1]);
    });

    it("records a failing uuid-less job where Laravel's provider reads it and Laravel's queue:retry pushes it back", async function () {
      const prefix = randomPrefix();
      const sqlite = join(temp.path, `${prefix}.sqlite`);
      writeFileSync(sqlite, '');
      const created = await runPhp('failed-provider.php', ['create-table', JSON.stringify({ uuid: true })], {
        LARQ_SQLITE: sqlite,
      });
      expect(created.code, created.stderr).to.equal(0);
      const pushed = await rawJobWithStringAttempts(prefix);

      const queue = new RedisQueue({ connection: { port: redis.port }, prefix, laravel: major, retryAfter: 90 });
      const failed = createFailedJobProvider({
        driver: 'database-uuids',
        database: { driver: 'sqlite', database: sqlite },
      });
      const handlers = new Handlers().string('App\\Handlers\\RawHandler@handle', () =>
        Promise.reject(new Error('boom')),
      );
      try {
        await createWorker(
          queue,
          handlers,
          { sleep: 0, stopWhenEmpty: true, memory: 4096, maxTries: 1 },
          { failed },
        ).daemon('default');
      } finally {
        await failed.close();
        await queue.close();
      }
      expect(await redis.client.llen(`${prefix}queues:default`)).to.equal(0);

      const listed = await runPhp('failed-provider.php', ['all'], { LARQ_SQLITE: sqlite });
      expect(listed.code, listed.stderr).to.equal(0);
      const rows = JSON.parse(listed.stdout) as { id: string; payload: string }[];
      expect(rows).to.have.length(1);
      expect(rows[0].payload).to.equal(pushed);
      expect(rows[0].id).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);

      const retry = await runPhp('retry.php', [rows[0].id], {
        LARQ_SQLITE: sqlite,
        LARQ_REDIS_PORT: String(redis.port),
        LARQ_PREFIX: prefix,
      });
      expect(retry.code, retry.stderr + retry.stdout).to.equal(0);
      const [back] = await redis.client.lrange(`${prefix}queues:default`, 0, -1);
      expect(JSON.parse(back)).to.deep.include({
        job: 'App\\Handlers\\RawHandler@handle',
        data: { raw: true },
        attempts: 0,
      });
      const after = await runPhp('failed-provider.php', ['all'], { LARQ_SQLITE: sqlite });
      expect(JSON.parse(after.stdout)).to.deep.equal([]);
    });
  });
