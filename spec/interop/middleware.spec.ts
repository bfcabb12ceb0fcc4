// Laravel's job middleware, differentially: the same MiddlewareProbe jobs, dispatched by PHP `->through()`
// Laravel's own middleware objects, are worked once by Laravel's worker and once by larq's, each on its
// own prefix; both runs must give the same handler runs, events, releases (attempts and delays),
// deletes, failures and Redis keys. On 12.67 and 13.26, whose serialized middleware differ, and on 8.83
// for the middleware 8.x has in the same form (no shared(), no display-name keys, minutes of decay).
import { expect } from 'chai';
import { join } from 'path';
import { RedisCacheStore } from '../../lib/cache/RedisCacheStore';
import { laravelCachePrefix, redisCacheKeyPrefix } from '../../lib/cache/prefix';
import { createWorker } from '../../lib/createWorker';
import type { FailedJobProvider } from '../../lib/failed/FailedJobProvider';
import { Handlers } from '../../lib/handlers/Handlers';
import { limit } from '../../lib/middleware';
import { RedisQueue } from '../../lib/RedisQueue';
import { xxh128 } from '../../lib/features/xxh128';
import { md5 } from '../../lib/middleware/RateLimited';
import { laravelHarness, PHP_DIR, requirePhp, runPhp, laravelEnv, type PhpLaravelLine } from '../support/php';
import { randomPrefix } from '../support/redis';
import { useRedisQueue } from '../support/useRedisQueue';

interface MiddlewareSpec {
  class: string;
  args?: unknown[];
  calls?: [string, unknown[]][];
  static?: string;
}
interface ProbeSpec {
  n: number;
  throw?: boolean;
  named?: boolean;
  sleepMs?: number;
  middleware: MiddlewareSpec[];
}

/** What one worker run left: comparable across the two languages. */
interface Outcome {
  runs: number[];
  events: string[];
  delayed: { attempts: number; delay: number }[];
  queued: number;
  failed: number;
  keys: string[];
}

const SETUP = join(PHP_DIR, 'middleware.php');
const LIMITERS = { api: { max: 1, decay: 60, key: 'tenant-1' } };

for (const line of ['8.83', '12.67', '13.26'] as PhpLaravelLine[])
  describe(`interop: job middleware on Laravel ${line}, PHP worker and larq worker alike`, function () {
    this.timeout(120000);
    const redis = useRedisQueue();
    const php = laravelHarness(line);
    const storePrefix = laravelCachePrefix('Laravel', php.major);
    // what the Redis store puts before a cache key (8.x adds ':')
    const cachePrefix = redisCacheKeyPrefix(storePrefix, php.major);

    before(async function () {
      requirePhp(this, line);
    });

    async function dispatch(prefix: string, jobs: ProbeSpec[]): Promise<void> {
      const res = await runPhp('middleware.php', [JSON.stringify({ jobs })], {
        ...laravelEnv(line),
        LARQ_REDIS_PORT: String(redis.port),
        LARQ_PREFIX: prefix,
      });
      expect(res.code, res.stderr).to.equal(0);
    }

    // `released` maps a job's uuid to when its attempt ended (its JobProcessed): a delay counts from there
    async function state(
      prefix: string,
      released: Map<string, number>,
      runs: number[],
      events: string[],
      failed: number,
    ): Promise<Outcome> {
      const queue = new RedisQueue({ connection: { port: redis.port }, prefix, laravel: php.major });
      try {
        const delayed = (await queue.delayedJobs())
          .map((j) => ({ attempts: j.attempts, delay: j.availableAt! - Math.floor(released.get(j.uuid!)!) }))
          .sort((a, b) => a.delay - b.delay);
        const keys = (await redis.client.keys(`${prefix}*`)).map((k) => k.slice(prefix.length)).sort();
        return { runs: runs.sort((a, b) => a - b), events, delayed, queued: await queue.size(), failed, keys };
      } finally {
        await queue.close();
      }
    }

    async function byLaravel(
      jobs: ProbeSpec[],
      before: (prefix: string) => Promise<unknown> = async () => undefined,
    ): Promise<Outcome> {
      const prefix = randomPrefix();
      await before(prefix);
      await dispatch(prefix, jobs);
      const run = await php.runLaravelWorkerDetailed({
        port: redis.port,
        prefix,
        maxJobs: jobs.length,
        stopWhenEmpty: true,
        sleep: 0.1,
        env: { LARQ_WORKER_SETUP: SETUP, LARQ_LIMITERS: JSON.stringify(LIMITERS) },
      });
      expect(run.code, run.stderr).to.equal(0);
      const runs = run.records.map((r) => (r as unknown as { n: number }).n);
      const released = new Map(run.events.filter((e) => e.event === 'JobProcessed').map((e) => [e.uuid!, e.time]));
      return state(
        prefix,
        released,
        runs,
        run.events.map((e) => e.event).filter((e) => e !== 'WorkerStopping'),
        run.failed.length,
      );
    }

    async function byLarq(
      jobs: ProbeSpec[],
      before: (prefix: string) => Promise<unknown> = async () => undefined,
    ): Promise<Outcome> {
      const prefix = randomPrefix();
      await before(prefix);
      await dispatch(prefix, jobs);
      const queue = new RedisQueue({ connection: { port: redis.port }, prefix, laravel: php.major });
      const cache = new RedisCacheStore({
        connection: { port: redis.port },
        prefix,
        cachePrefix: storePrefix,
        database: 0,
        laravel: php.major,
      });
      const runs: number[] = [];
      const events: string[] = [];
      let failed = 0;
      const probe = (c: Record<string, unknown>) => {
        runs.push(Number(c.n));
        if (c.fails === true) throw new Error('probe failed');
      };
      const handlers = new Handlers({
        middleware: {
          cache,
          redis: { client: redis.client, prefix },
          limiters: { api: () => limit.perMinute(1).by('tenant-1') },
        },
      })
        .object('App\\Jobs\\MiddlewareProbe', probe)
        .object('App\\Jobs\\NamedMiddlewareProbe', probe);
      const worker = createWorker(
        queue,
        handlers,
        { sleep: 0.1, stopWhenEmpty: true, maxJobs: jobs.length, memory: 4096 },
        {
          failed: {
            log: async () => {
              failed++;
              return null;
            },
          } as unknown as FailedJobProvider,
        },
      );
      const released = new Map<string, number>();
      for (const e of ['JobProcessing', 'JobProcessed', 'JobFailed', 'JobExceptionOccurred'] as const)
        worker.on(e, () => void events.push(e));
      worker.on('JobProcessed', (e) => void released.set(e.job.uuid()!, Date.now() / 1000));
      try {
        await worker.daemon('default');
        return await state(prefix, released, runs, events, failed);
      } finally {
        await queue.close();
        await cache.close();
      }
    }

    async function same(jobs: ProbeSpec[], before?: (prefix: string) => Promise<unknown>): Promise<Outcome> {
      const laravel = await byLaravel(jobs, before);
      const larq = await byLarq(jobs, before);
      // a delay counts from the whole second the attempt ended in: one second either way is the clock, not the logic
      expect(larq.delayed.length, 'delayed jobs').to.equal(laravel.delayed.length);
      larq.delayed.forEach((d, i) => {
        expect(d.attempts, `attempts of delayed job ${i}`).to.equal(laravel.delayed[i].attempts);
        expect(
          Math.abs(d.delay - laravel.delayed[i].delay),
          `delay of job ${i}: ${d.delay} vs ${laravel.delayed[i].delay}`,
        ).to.be.at.most(1);
      });
      expect({ ...larq, delayed: [] }).to.deep.equal({ ...laravel, delayed: [] });
      return laravel;
    }

    // a test of what a line has: 8.x lacks shared(), Skip, Release and Limit in seconds
    const since12 = line === '8.83' ? (): void => undefined : it;

    const overlap = (calls: [string, unknown[]][] = []): MiddlewareSpec => ({
      class: 'WithoutOverlapping',
      args: ['k'],
      calls,
    });

    it('WithoutOverlapping: runs and frees the lock; a taken lock releases after releaseAfter; dontRelease deletes', async function () {
      const free = await same([{ n: 1, middleware: [overlap()] }]);
      expect(free.runs).to.deep.equal([1]);
      const lock = `${cachePrefix}laravel-queue-overlap:App\\Jobs\\MiddlewareProbe:k`;
      const taken = await same(
        [
          { n: 1, middleware: [overlap([['releaseAfter', [5]]])] },
          { n: 2, middleware: [overlap([['dontRelease', []]])] },
        ],
        (p) => redis.client.set(p + lock, 'someone'),
      );
      expect(taken.runs).to.deep.equal([]);
      expect(taken.delayed).to.have.length(1);
      expect(taken.keys).to.include(lock);
    });

    if (line === '8.83')
      it('WithoutOverlapping on 8.x keys by the class name, displayName() or not', async function () {
        const lock = `${cachePrefix}laravel-queue-overlap:App\\Jobs\\NamedMiddlewareProbe:k`;
        const named = await same([{ n: 1, named: true, middleware: [overlap()] }], (p) =>
          redis.client.set(p + lock, 'someone'),
        );
        expect(named.runs).to.deep.equal([]);
        expect(named.delayed).to.have.length(1);
      });

    since12(
      'WithoutOverlapping keys a class with displayName() by its xxh128, and shared() by the key alone',
      async function () {
        const hashed = `${cachePrefix}laravel-queue-overlap:${await xxh128('Nightly probe')}:k`;
        const named = await same([{ n: 1, named: true, middleware: [overlap()] }], (p) =>
          redis.client.set(p + hashed, 'someone'),
        );
        expect(named.runs).to.deep.equal([]);
        const shared = await same([{ n: 1, middleware: [overlap([['shared', []]])] }], (p) =>
          redis.client.set(`${p}${cachePrefix}laravel-queue-overlap:k`, 'someone'),
        );
        expect(shared.runs).to.deep.equal([]);
      },
    );

    since12(
      'RateLimited and RateLimitedWithRedis: one budget under the same keys, the excess released until the window ends',
      async function () {
        const cached = await same([1, 2].map((n) => ({ n, middleware: [{ class: 'RateLimited', args: ['api'] }] })));
        expect(cached.runs).to.deep.equal([1]);
        expect(cached.keys).to.include.members([
          `${cachePrefix}${md5('apitenant-1')}`,
          `${cachePrefix}${md5('apitenant-1')}:timer`,
        ]);
        const redis = await same(
          [1, 2].map((n) => ({ n, middleware: [{ class: 'RateLimitedWithRedis', args: ['api'] }] })),
        );
        expect(redis.runs).to.deep.equal([1]);
        expect(redis.keys).to.include(md5('apitenant-1'));
      },
    );

    it('ThrottlesExceptions and ThrottlesExceptionsWithRedis: exceptions swallowed, released after backoff minutes, then held off', async function () {
      for (const cls of ['ThrottlesExceptions', 'ThrottlesExceptionsWithRedis']) {
        const jobs = [1, 2, 3].map((n) => ({
          n,
          throw: true,
          middleware: [{ class: cls, args: [2, 600], calls: [['backoff', [1]]] as [string, unknown[]][] }],
        }));
        const out = await same(jobs);
        expect(out.runs, cls).to.deep.equal([1, 2]);
        expect(out.failed, cls).to.equal(0);
        expect(out.events, cls).to.not.include('JobExceptionOccurred');
      }
    });

    since12('Skip deletes without running; Release (13.x) puts the job back after its delay', async function () {
      const skipped = await same([
        { n: 1, middleware: [{ class: 'Skip', static: 'when', args: [true] }] },
        { n: 2, middleware: [{ class: 'Skip', static: 'when', args: [false] }] },
      ]);
      expect(skipped.runs).to.deep.equal([2]);
      expect(skipped.queued).to.equal(0);
      if (line === '13.26') {
        const released = await same([{ n: 1, middleware: [{ class: 'Release', static: 'when', args: [true, 4] }] }]);
        expect(released.runs).to.deep.equal([]);
        expect(released.delayed).to.have.length(1);
      }
    });
  });
