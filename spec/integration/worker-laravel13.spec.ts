// Laravel 13's worker rules on a real redis-server: the global pause flag of `Queue::pauseAll()` /
// `queue:pause --all` (13.25+), `JobReleased` after a handler released its job (13.26+), and `fail()`
// without an exception, whose `failed` hook gets null as PHP's `failed(null)` does (all versions).
import { expect } from 'chai';
import { join } from 'path';
import { RedisCacheStore } from '../../lib/cache/RedisCacheStore';
import { globalPausedKey } from '../../lib/cache/signals';
import { createWorker } from '../../lib/createWorker';
import { FileFailedJobProvider } from '../../lib/failed/FileFailedJobProvider';
import { Handlers } from '../../lib/handlers/Handlers';
import type { LaravelVersion } from '../../lib/LaravelLine';
import { RedisQueue } from '../../lib/RedisQueue';
import type { WorkerOptions } from '../../lib/WorkerOptions';
import { ChainStep } from '../support/phpJobs';
import { useRedisQueue } from '../support/useRedisQueue';
import { useTempDir } from '../support/useTempDir';

describe('Worker: Laravel 13 rules on Redis', function () {
  this.timeout(30000);
  const redis = useRedisQueue();
  const temp = useTempDir('worker13', 'all');
  let queue: RedisQueue;
  let cache: RedisCacheStore;
  let failed: FileFailedJobProvider;

  beforeEach(() => {
    queue = redis.open({ laravel: '13.26', retryAfter: 90 });
    cache = new RedisCacheStore({
      connection: { port: redis.port, host: '127.0.0.1' },
      database: 0,
      prefix: redis.prefix,
      laravel: 13,
    });
    failed = new FileFailedJobProvider(join(temp.path, `${redis.prefix}failed.json`));
  });
  afterEach(async () => {
    await cache.close();
  });

  function worker(handlers: Handlers, options: Partial<WorkerOptions> = {}) {
    return createWorker(
      queue,
      handlers,
      { sleep: 0, stopWhenEmpty: true, memory: 4096, ...options },
      { failed, cache },
    );
  }

  describe('global pause (13.25+)', function () {
    it('takes no job from any queue while illuminate:queues:paused is set, and resumes once it is forgotten', async function () {
      await queue.push(ChainStep.make({ step: 1 }), 'default');
      await queue.push(ChainStep.make({ step: 2 }), 'low');
      // what QueueManager::pauseAll() stores: true, forever (`b:1;` under the cache prefix)
      await cache.forever(globalPausedKey, true);
      expect(await redis.client.get(cache.key(globalPausedKey))).to.equal('b:1;');
      const ran: unknown[] = [];
      const handlers = new Handlers().object('App\\Jobs\\ChainStep', (c) => void ran.push(c.step));
      expect((await worker(handlers).daemon('default,low')).reason).to.equal('empty');
      expect(ran).to.deep.equal([]);
      expect(await queue.size('default')).to.equal(1);
      expect(await queue.size('low')).to.equal(1);

      await cache.forget(globalPausedKey); // QueueManager::resumeAll()
      await worker(handlers).daemon('default,low');
      expect(ran).to.deep.equal([1, 2]);
    });

    it('is not read for a peer older than 13.25, whose workers never read it', async function () {
      await queue.close();
      queue = redis.open({ laravel: '13.24', retryAfter: 90 });
      await queue.push(ChainStep.make({ step: 1 }));
      await cache.forever(globalPausedKey, true);
      const ran: unknown[] = [];
      await worker(new Handlers().object('App\\Jobs\\ChainStep', (c) => void ran.push(c.step))).daemon('default');
      expect(ran).to.deep.equal([1]);
    });
  });

  describe('JobReleased (13.26+)', function () {
    it('fires after JobProcessed when the handler released its job, and only then', async function () {
      await queue.push(ChainStep.make({ step: 1 }));
      await queue.push(ChainStep.make({ step: 2 }));
      await queue.push(ChainStep.make({ step: 3 }));
      const events: string[] = [];
      const handlers = new Handlers().object('App\\Jobs\\ChainStep', async (c, ctx) => {
        if (c.step === 1) await ctx.release(30);
        if (c.step === 3) throw new Error('boom');
      });
      const w = worker(handlers, { maxJobs: 3, maxTries: 3 });
      for (const name of ['JobProcessed', 'JobReleased', 'JobReleasedAfterException'] as const) {
        w.on(name, (e) => void events.push(`${name} ${(e.job.command().get('step') as bigint).toString()}`));
      }
      await w.daemon('default');
      expect(events).to.deep.equal([
        'JobProcessed 1',
        'JobReleased 1',
        'JobProcessed 2',
        'JobReleasedAfterException 3',
      ]);
      expect((await queue.delayedJobs()).map((j) => j.attempts)).to.deep.equal([1, 1]);
    });
  });

  // Job::fail(null) calls failed(null) on every line; the record and JobFailed get ManuallyFailedException.
  describe('fail() without an exception', function () {
    async function failedManually(options: { laravel: LaravelVersion }) {
      await queue.close();
      queue = redis.open({ retryAfter: 90, ...options });
      await queue.push(ChainStep.make({ step: 1 }));
      const hooked: unknown[] = [];
      const jobFailed: string[] = [];
      const handlers = new Handlers().object('App\\Jobs\\ChainStep', (_c, ctx) => ctx.fail(), {
        failed: (error) => void hooked.push(error),
      });
      const w = worker(handlers);
      w.on('JobFailed', (e) => void jobFailed.push(e.exception.name));
      await w.daemon('default');
      expect(hooked).to.deep.equal([null]);
      expect(jobFailed).to.deep.equal(['ManuallyFailedError']);
      const [record] = await failed.all();
      expect(record.exception).to.match(/^Illuminate\\Queue\\ManuallyFailedException in /);
    }

    it("gives the job's failed hook null, and records Laravel's ManuallyFailedException (8.x)", () =>
      failedManually({ laravel: 8 }));
    it("gives the job's failed hook null, and records Laravel's ManuallyFailedException (12.x)", () =>
      failedManually({ laravel: '12.67' }));
    it("gives the job's failed hook null, and records Laravel's ManuallyFailedException (13.x)", () =>
      failedManually({ laravel: '13.26' }));

    it('gives the hook the exception when one was given', async function () {
      await queue.push(ChainStep.make({ step: 1 }));
      const hooked: unknown[] = [];
      const boom = new Error('boom');
      await worker(
        new Handlers().object('App\\Jobs\\ChainStep', (_c, ctx) => ctx.fail(boom), {
          failed: (error) => void hooked.push(error),
        }),
      ).daemon('default');
      expect(hooked).to.deep.equal([boom]);
    });
  });
});
