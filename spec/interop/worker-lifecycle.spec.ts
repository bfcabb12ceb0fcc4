// A larq worker whose handler hangs leaves Redis as Laravel's killed worker leaves it, on every Laravel
// line: the attempt stays reserved with its attempt counted, the worker exits with status 1, and after
// retry_after Laravel's own worker takes the job back and runs it as attempt 2.
import { expect } from 'chai';
import { createWorker } from '../../lib/createWorker';
import { Handlers } from '../../lib/handlers/Handlers';
import { RedisQueue } from '../../lib/RedisQueue';
import { LARAVEL_LINES, laravelHarness, requirePhp } from '../support/php';
import { randomPrefix } from '../support/redis';
import { useRedisQueue } from '../support/useRedisQueue';

for (const line of LARAVEL_LINES)
  describe(`interop: a hung larq handler and Laravel ${line}'s worker`, function () {
    this.timeout(60000);
    const redis = useRedisQueue();
    const { major, phpDispatch, runLaravelWorker } = laravelHarness(line);

    before(async function () {
      requirePhp(this, line);
    });

    it('larq exits 1 leaving the job reserved with attempts 1; Laravel runs it after retry_after as attempt 2', async function () {
      const prefix = randomPrefix();
      await phpDispatch('object-basic', { port: redis.port, prefix });
      const queue = new RedisQueue({ connection: { port: redis.port }, prefix, laravel: major, retryAfter: 2 });
      try {
        const handlers = new Handlers().object('App\\Jobs\\SendWelcomeEmail', () => new Promise<void>(() => undefined));
        const worker = createWorker(queue, handlers, {
          timeout: 1,
          timeoutGraceSeconds: 1,
          maxTries: 3,
          sleep: 0.05,
          memory: 4096,
        });
        expect(await worker.daemon('default')).to.deep.equal({ status: 1, reason: 'timed_out' });
      } finally {
        await queue.close();
      }
      const reserved = await redis.client.zrange(`${prefix}queues:default:reserved`, 0, '-1');
      expect(reserved.map((r) => JSON.parse(r).attempts)).to.deep.equal([1]);
      await new Promise((r) => setTimeout(r, 2500)); // retry_after
      const records = await runLaravelWorker({ port: redis.port, prefix, retryAfter: 2, tries: 3 });
      expect(records.map((r) => [r.hook, r.class, r.attempts])).to.deep.equal([
        ['handle', 'App\\Jobs\\SendWelcomeEmail', 2],
      ]);
      expect(await redis.client.keys(`${prefix}queues:*`)).to.deep.equal([]);
    });
  });
