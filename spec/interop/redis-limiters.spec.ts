// Redis::throttle and Redis::funnel across the boundary: larq's DurationLimiter and ConcurrencyLimiter
// take from the same budget as PHP's, on Laravel 12.67 and 13.26.
import { expect } from 'chai';
import { ConcurrencyLimiter, DurationLimiter } from '../../lib/middleware';
import { laravelEnv, requirePhp, runPhp, type PhpLaravelLine } from '../support/php';
import { randomPrefix } from '../support/redis';
import { useRedisQueue } from '../support/useRedisQueue';

for (const line of ['12.67', '13.26'] as PhpLaravelLine[])
  describe(`interop: Redis::throttle and Redis::funnel shared with Laravel ${line}`, function () {
    this.timeout(60000);
    const redis = useRedisQueue();

    before(async function () {
      requirePhp(this, line);
    });

    async function php(prefix: string, ...args: (string | number)[]): Promise<string> {
      const res = await runPhp('limiters.php', args.map(String), {
        ...laravelEnv(line),
        LARQ_REDIS_PORT: String(redis.port),
        LARQ_PREFIX: prefix,
      });
      expect(res.code, res.stderr).to.equal(0);
      return res.stdout.trim();
    }

    it('throttle: two PHP hits of allow(2)->every(60) leave Node none, and Node hits count for PHP', async function () {
      const prefix = randomPrefix();
      expect(await php(prefix, 'throttle', 'api', 2, 60)).to.equal('ok');
      expect(await php(prefix, 'throttle', 'api', 2, 60)).to.equal('ok');
      const limiter = new DurationLimiter({ client: redis.client, prefix }, 'api', 2, 60);
      expect(await limiter.acquire()).to.equal(false);
      expect(await php(prefix, 'throttle', 'api', 2, 60)).to.equal('limited');

      const other = randomPrefix();
      const fresh = new DurationLimiter({ client: redis.client, prefix: other }, 'api', 2, 60);
      expect(await fresh.acquire()).to.equal(true);
      expect(await fresh.acquire()).to.equal(true);
      expect(await php(other, 'throttle', 'api', 2, 60)).to.equal('limited');
    });

    it('funnel: while Node holds both slots of limit(2), PHP waits in vain; once freed, PHP gets one', async function () {
      const prefix = randomPrefix();
      const funnel = new ConcurrencyLimiter({ client: redis.client, prefix }, 'exports', 2, 60);
      let free!: () => void;
      const held = new Promise<void>((r) => (free = r));
      const holders = [funnel.block(1, () => held), funnel.block(1, () => held)];
      while ((await redis.client.keys(`${prefix}exports*`)).length < 2) await new Promise((r) => setTimeout(r, 20));
      expect((await redis.client.keys(`${prefix}exports*`)).sort()).to.deep.equal([
        `${prefix}exports1`,
        `${prefix}exports2`,
      ]);
      expect(await php(prefix, 'funnel', 'exports', 2, 60)).to.equal('limited');
      free();
      await Promise.all(holders);
      expect(await redis.client.keys(`${prefix}exports*`)).to.deep.equal([]);
      expect(await php(prefix, 'funnel', 'exports', 2, 60)).to.equal('ok');
    });
  });
