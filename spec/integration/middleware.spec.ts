// Laravel's job middleware run by larq's worker on a real redis-server: the locks and counters under
// Laravel's keys, and what each does to the attempt (run, release, delete, fail), as CallQueuedHandler
// and each middleware's handle() do it.
import { expect } from 'chai';
import { join } from 'path';
import { RedisCacheStore } from '../../lib/cache/RedisCacheStore';
import { createWorker } from '../../lib/createWorker';
import { FileFailedJobProvider } from '../../lib/failed/FileFailedJobProvider';
import { Handlers, type HandlerHooks, type MiddlewareOptions } from '../../lib/handlers/Handlers';
import { failOnException, limit, rateLimited, Release, withoutOverlapping } from '../../lib/middleware';
import { md5 } from '../../lib/middleware/RateLimited';
import { phpClass } from '../../lib/php/builder';
import { RedisQueue } from '../../lib/RedisQueue';
import { xxh128 } from '../../lib/features/xxh128';
import { ChainStep } from '../support/phpJobs';
import { useRedisQueue } from '../support/useRedisQueue';
import { useTempDir } from '../support/useTempDir';

// The shapes 13.26 serializes (public and protected properties in declaration order).
export const laravelMiddleware = {
  WithoutOverlapping: phpClass('Illuminate\\Queue\\Middleware\\WithoutOverlapping', {
    key: 'public',
    releaseAfter: 'public',
    expiresAfter: 'public',
    prefix: 'public',
    shareKey: 'public',
  }),
  Skip: phpClass('Illuminate\\Queue\\Middleware\\Skip', { skip: 'protected' }),
  Release: phpClass('Illuminate\\Queue\\Middleware\\Release', { release: 'protected', releaseAfter: 'protected' }),
  SkipIfBatchCancelled: phpClass('Illuminate\\Queue\\Middleware\\SkipIfBatchCancelled', {}),
  RateLimited: phpClass('Illuminate\\Queue\\Middleware\\RateLimited', {
    limiterName: 'protected',
    releaseAfter: 'public',
    shouldRelease: 'public',
  }),
  RateLimitedWithRedis: phpClass('Illuminate\\Queue\\Middleware\\RateLimitedWithRedis', {
    limiterName: 'protected',
    releaseAfter: 'public',
    shouldRelease: 'public',
    connectionName: 'protected',
  }),
  ThrottlesExceptions: phpClass('Illuminate\\Queue\\Middleware\\ThrottlesExceptions', {
    key: 'protected',
    byJob: 'protected',
    maxAttempts: 'protected',
    decaySeconds: 'protected',
    retryAfterMinutes: 'protected',
    reportCallback: 'protected',
    whenCallback: 'protected',
    deleteWhenCallbacks: 'protected',
    failWhenCallbacks: 'protected',
    prefix: 'protected',
    limiter: 'protected',
  }),
};
const throttle = (name: 'ThrottlesExceptions', more: Record<string, unknown> = {}) =>
  laravelMiddleware[name].make({
    key: null,
    byJob: false,
    maxAttempts: 2,
    decaySeconds: 600,
    retryAfterMinutes: 0,
    reportCallback: null,
    whenCallback: null,
    deleteWhenCallbacks: [],
    failWhenCallbacks: [],
    prefix: 'laravel_throttles_exceptions:',
    limiter: null,
    ...more,
  });
const overlap = (key: string, more: Record<string, unknown> = {}) =>
  laravelMiddleware.WithoutOverlapping.make({
    key,
    releaseAfter: 0,
    expiresAfter: 0,
    prefix: 'laravel-queue-overlap:',
    shareKey: false,
    ...more,
  });

describe('Job middleware on Redis', function () {
  this.timeout(30000);
  const redis = useRedisQueue();
  const temp = useTempDir('mw', 'all');
  let queue: RedisQueue;
  let cache: RedisCacheStore;
  let failed: FileFailedJobProvider;

  beforeEach(() => {
    queue = redis.open({ laravel: 13, retryAfter: 90 });
    cache = new RedisCacheStore({
      connection: { port: redis.port },
      prefix: redis.prefix,
      cachePrefix: 'app-cache-',
      database: 0,
      laravel: 13,
    });
    failed = new FileFailedJobProvider(join(temp.path, `${redis.prefix}failed.json`));
  });
  afterEach(async () => {
    await cache.close();
  });

  function handlers(
    fn: (c: Record<string, unknown>) => unknown,
    hooks: HandlerHooks = {},
    middleware: MiddlewareOptions = {},
  ): Handlers {
    return new Handlers({ middleware: { cache, ...middleware } }).object('App\\Jobs\\ChainStep', (c) => fn(c), hooks);
  }

  function run(h: Handlers, maxJobs = 0) {
    return createWorker(queue, h, { sleep: 0, stopWhenEmpty: true, memory: 4096, maxJobs }, { failed }).daemon(
      'default',
    );
  }

  describe('WithoutOverlapping', function () {
    const lockKey = () => `${redis.prefix}app-cache-laravel-queue-overlap:App\\Jobs\\ChainStep:order-7`;

    it("holds Laravel's lock key while the handler runs, then releases it", async function () {
      await queue.push(ChainStep.make({ step: 1, middleware: [overlap('order-7')] }));
      const seen: (string | null)[] = [];
      await run(handlers(async () => void seen.push(await redis.client.get(lockKey()))));
      expect(seen).to.have.length(1);
      expect(seen[0]).to.match(/^[A-Za-z0-9]{16}$/);
      expect(await redis.client.exists(lockKey())).to.equal(0);
      expect(await queue.size()).to.equal(0);
    });

    it('releases a job that finds the lock taken, due now, as a new attempt, without running it', async function () {
      await redis.client.set(lockKey(), 'php-worker-owner');
      await queue.push(ChainStep.make({ step: 1, middleware: [overlap('order-7')] }));
      let ran = 0;
      await run(
        handlers(() => void ran++),
        1,
      );
      expect(ran).to.equal(0);
      const [delayed] = await queue.delayedJobs();
      expect(delayed.attempts).to.equal(1);
      expect(await redis.client.get(lockKey())).to.equal('php-worker-owner'); // only the owner releases
      expect(await failed.all()).to.deep.equal([]);
    });

    it('deletes it instead under dontRelease (releaseAfter null): no failure', async function () {
      await redis.client.set(lockKey(), 'php-worker-owner');
      await queue.push(ChainStep.make({ step: 1, middleware: [overlap('order-7', { releaseAfter: null })] }));
      let ran = 0;
      await run(handlers(() => void ran++));
      expect(ran).to.equal(0);
      expect(await queue.size()).to.equal(0);
      expect(await failed.all()).to.deep.equal([]);
    });

    it('sets expireAfter as the lock TTL, shares the key under shared(), and hashes a display name', async function () {
      const ttl: number[] = [];
      await queue.push(ChainStep.make({ step: 1, middleware: [overlap('k', { expiresAfter: 120, shareKey: true })] }));
      await run(
        handlers(async () => void ttl.push(await redis.client.ttl(`${redis.prefix}app-cache-laravel-queue-overlap:k`))),
      );
      expect(ttl).to.have.length(1);
      expect(ttl[0]).to.be.within(119, 120);

      const seen: number[] = [];
      const hashed = `${redis.prefix}app-cache-laravel-queue-overlap:${await xxh128('Nightly report')}:k`;
      await queue.push({
        command: ChainStep.make({ step: 2, middleware: [overlap('k')] }),
        displayName: 'Nightly report',
      });
      await run(handlers(async () => void seen.push(await redis.client.exists(hashed))));
      expect(seen).to.deep.equal([1]);
    });

    it('a Node handler declares the same lock: withoutOverlapping((c) => c.site)', async function () {
      await queue.push(ChainStep.make({ step: 42 }));
      const seen: (string | null)[] = [];
      const h = handlers(
        async () =>
          void seen.push(
            await redis.client.get(`${redis.prefix}app-cache-laravel-queue-overlap:App\\Jobs\\ChainStep:42`),
          ),
        {
          middleware: [withoutOverlapping((c) => String(c.step))],
        },
      );
      await run(h);
      expect(seen[0]).to.match(/^[A-Za-z0-9]{16}$/);
    });

    it('fails the job naming the middleware when no cache store is configured, without running it', async function () {
      await queue.push(ChainStep.make({ step: 1, middleware: [overlap('order-7')] }));
      let ran = 0;
      await run(new Handlers().object('App\\Jobs\\ChainStep', () => void ran++));
      expect(ran).to.equal(0);
      const [record] = await failed.all();
      expect(record.exception).to.match(/^UnsupportedMiddlewareError: .*WithoutOverlapping.*no cache store/);
    });
  });

  describe('Skip, Release, SkipIfBatchCancelled, FailOnException', function () {
    it('Skip deletes the job without running it; the after-handle hooks (chain, batch) still run', async function () {
      await queue.push(ChainStep.make({ step: 1, middleware: [laravelMiddleware.Skip.make({ skip: true })] }));
      await queue.push(ChainStep.make({ step: 2, middleware: [laravelMiddleware.Skip.make({ skip: false })] }));
      const ran: unknown[] = [];
      const after: unknown[] = [];
      const h = handlers((c) => void ran.push(c.step));
      h.useDefaults([{ feature: 'chain', afterHandle: (ctx) => void after.push(ctx.command.get('step')) }]);
      await run(h);
      expect(ran).to.deep.equal([2]);
      expect(after).to.deep.equal([1n, 2n]);
      expect(await queue.size()).to.equal(0);
      expect(await failed.all()).to.deep.equal([]);
    });

    it('Release puts the job back after its delay as a new attempt; no after-handle hooks', async function () {
      await queue.push(
        ChainStep.make({ step: 1, middleware: [laravelMiddleware.Release.make({ release: true, releaseAfter: 30 })] }),
      );
      const after: unknown[] = [];
      const h = handlers(() => expect.fail('ran'));
      h.useDefaults([{ feature: 'chain', afterHandle: (ctx) => void after.push(ctx.command.get('step')) }]);
      const before = Math.floor(Date.now() / 1000);
      await run(h, 1);
      const [delayed] = await queue.delayedJobs();
      expect(delayed.attempts).to.equal(1);
      expect(delayed.availableAt).to.be.within(before + 30, before + 31);
      expect(after).to.deep.equal([]);
      await queue.push(ChainStep.make({ step: 2 }));
      let ran = 0;
      await run(
        handlers(() => void ran++, { middleware: [Release.when((c) => c.step === 2, 5)] }),
        1,
      );
      expect(ran).to.equal(0);
    });

    it('SkipIfBatchCancelled skips a job of a cancelled batch and runs one of a live batch', async function () {
      const Batched = phpClass('App\\Jobs\\ChainStep', { step: 'public', batchId: 'public', middleware: 'public' });
      await queue.push(
        Batched.make({ step: 1, batchId: 'cancelled', middleware: [laravelMiddleware.SkipIfBatchCancelled.make({})] }),
      );
      await queue.push(
        Batched.make({ step: 2, batchId: 'live', middleware: [laravelMiddleware.SkipIfBatchCancelled.make({})] }),
      );
      const ran: unknown[] = [];
      const batches = { find: async (id: string) => ({ cancelledAt: id === 'cancelled' ? 1700000000 : null }) };
      await run(handlers((c) => void ran.push(c.step), {}, { batches }));
      expect(ran).to.deep.equal([2]);
      expect(await queue.size()).to.equal(0);
      expect(await failed.all()).to.deep.equal([]);
    });

    it('FailOnException fails the job at once for a listed error class, and lets others retry', async function () {
      class Forbidden extends Error {
        override name = 'Forbidden';
      }
      await queue.push({ command: ChainStep.make({ step: 1 }), maxTries: 3 });
      await queue.push({ command: ChainStep.make({ step: 2 }), maxTries: 3 });
      const h = handlers(
        (c) => {
          throw c.step === 1 ? new Forbidden('no') : new Error('flaky');
        },
        { middleware: [failOnException([Forbidden])] },
      );
      await run(h, 2);
      const records = await failed.all();
      expect(records).to.have.length(1);
      expect(records[0].exception).to.match(/^Forbidden: no/);
      const [delayed] = await queue.delayedJobs();
      expect(delayed.attempts).to.equal(1);
    });
  });

  describe('RateLimited, RateLimitedWithRedis, ThrottlesExceptions', function () {
    const limiters = { backups: () => limit.perMinute(1).by('site-1') };

    it("RateLimited counts hits under the cache RateLimiter's md5(name.key) and :timer, and releases past the limit", async function () {
      const rl = () =>
        laravelMiddleware.RateLimited.make({ limiterName: 'backups', releaseAfter: null, shouldRelease: true });
      await queue.push(ChainStep.make({ step: 1, middleware: [rl()] }));
      await queue.push(ChainStep.make({ step: 2, middleware: [rl()] }));
      const ran: unknown[] = [];
      const now = Math.floor(Date.now() / 1000);
      await run(
        handlers((c) => void ran.push(c.step), {}, { limiters }),
        2,
      );
      expect(ran).to.deep.equal([1]);
      const key = `${redis.prefix}app-cache-${md5('backupssite-1')}`;
      expect(await redis.client.get(key)).to.equal('1');
      expect(Number(await redis.client.get(`${key}:timer`))).to.be.within(now + 60, now + 61);
      const [delayed] = await queue.delayedJobs();
      expect(delayed.attempts).to.equal(1);
      expect(delayed.availableAt! - now).to.be.within(62, 64); // availableIn + 3
    });

    it('a Node handler declares the same limit: rateLimited(name) shares the count', async function () {
      await queue.push(ChainStep.make({ step: 1 }));
      await queue.push(ChainStep.make({ step: 2 }));
      const ran: unknown[] = [];
      await run(
        handlers(
          (c) => void ran.push(c.step),
          { middleware: [rateLimited('backups', { shouldRelease: false })] },
          { limiters },
        ),
      );
      expect(ran).to.deep.equal([1]); // the second is deleted (dontRelease), not failed
      expect(await redis.client.get(`${redis.prefix}app-cache-${md5('backupssite-1')}`)).to.equal('1');
      expect(await queue.size()).to.equal(0);
      expect(await failed.all()).to.deep.equal([]);
    });

    it('refuses a job whose limiter name Node has not declared (Laravel would run it unlimited)', async function () {
      await queue.push(
        ChainStep.make({
          step: 1,
          middleware: [
            laravelMiddleware.RateLimited.make({ limiterName: 'api', releaseAfter: null, shouldRelease: true }),
          ],
        }),
      );
      let ran = 0;
      await run(handlers(() => void ran++, {}, { limiters }));
      expect(ran).to.equal(0);
      const [record] = await failed.all();
      expect(record.exception).to.match(/RateLimited, which larq cannot run \(No rate limiter named "api"/);
    });

    it('RateLimitedWithRedis takes DurationLimiter slots in prefix + md5(name.key), a hash of start, end and count', async function () {
      const rl = () =>
        laravelMiddleware.RateLimitedWithRedis.make({
          limiterName: 'backups',
          releaseAfter: null,
          shouldRelease: true,
          connectionName: null,
        });
      await queue.push(ChainStep.make({ step: 1, middleware: [rl()] }));
      await queue.push(ChainStep.make({ step: 2, middleware: [rl()] }));
      const ran: unknown[] = [];
      await run(
        handlers((c) => void ran.push(c.step), {}, { limiters, redis: { client: redis.client, prefix: redis.prefix } }),
        2,
      );
      expect(ran).to.deep.equal([1]);
      const hash = await redis.client.hgetall(`${redis.prefix}${md5('backupssite-1')}`);
      expect(Number(hash.end) - Number(hash.start)).to.equal(60);
      expect(hash.count).to.equal('2');
      const [delayed] = await queue.delayedJobs();
      expect(delayed.availableAt).to.be.within(Number(hash.end) + 3, Number(hash.end) + 4);
    });

    it('ThrottlesExceptions swallows the exception, releases after backoff minutes, and stops running the job past maxAttempts', async function () {
      const key = `${redis.prefix}app-cache-laravel_throttles_exceptions:${await xxh128('App\\Jobs\\ChainStep')}`;
      for (let i = 0; i < 3; i++)
        await queue.push({
          command: ChainStep.make({ step: i, middleware: [throttle('ThrottlesExceptions', { retryAfterMinutes: 2 })] }),
          maxTries: 5,
        });
      let ran = 0;
      const exceptions: unknown[] = [];
      const worker = createWorker(
        queue,
        handlers(() => {
          ran++;
          throw new Error('api down');
        }),
        { sleep: 0, stopWhenEmpty: true, memory: 4096, maxJobs: 3 },
        { failed },
      );
      worker.on('JobExceptionOccurred', (e) => void exceptions.push(e));
      const now = Math.floor(Date.now() / 1000);
      await worker.daemon('default');
      expect(ran).to.equal(2);
      expect(exceptions).to.deep.equal([]);
      expect(await redis.client.get(key)).to.equal('2');
      const delays = (await queue.delayedJobs()).map((j) => j.availableAt! - now).sort((a, b) => a - b);
      expect(delays[0]).to.be.within(120, 121);
      expect(delays[1]).to.be.within(120, 121);
      expect(delays[2]).to.be.within(602, 604); // past the limit: availableIn + 3
      expect(await failed.all()).to.deep.equal([]);
    });
  });
});
