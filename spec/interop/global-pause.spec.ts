// Queue::pauseAll() / `queue:pause --all` of real Laravel 13.26 (13.25+) stops larq's worker as it stops
// Laravel's own: no queue is popped while `illuminate:queues:paused` is set; Queue::resumeAll() lets both
// take their jobs again.
import { expect } from 'chai';
import { RedisCacheStore } from '../../lib/cache/RedisCacheStore';
import { createWorker } from '../../lib/createWorker';
import { Handlers } from '../../lib/handlers/Handlers';
import { RedisQueue } from '../../lib/RedisQueue';
import { phpDispatch, requirePhp, runLaravelWorker, type PhpConnection } from '../support/php';
import { dispatch13, php13Env } from '../support/php13';
import { randomPrefix } from '../support/redis';
import { useRedisQueue } from '../support/useRedisQueue';

const CACHE_PREFIX = 'larq_cache_';

describe('interop: queue:pause --all (Laravel 13.26)', function () {
  this.timeout(60000);
  const redis = useRedisQueue();
  const open: { close(): Promise<void> }[] = [];

  before(async function () {
    requirePhp(this, '13.26');
  });
  afterEach(async () => Promise.all(open.splice(0).map((o) => o.close())));

  it("pauses larq's worker on every queue, as it pauses Laravel's, until resumeAll()", async function () {
    const [laravel, larq] = [randomPrefix(), randomPrefix()];
    const conn = (prefix: string): PhpConnection => ({
      laravel: '13.26',
      port: redis.port,
      prefix,
      cachePrefix: CACHE_PREFIX,
      env: php13Env(),
    });
    for (const prefix of [laravel, larq]) {
      await phpDispatch('on-queue', { ...conn(prefix), args: ['high'] });
      await phpDispatch('on-queue', { ...conn(prefix), args: ['low'] });
      await dispatch13('pause-all', [], conn(prefix));
    }
    const queue = new RedisQueue({
      connection: { port: redis.port, host: '127.0.0.1' },
      prefix: larq,
      laravel: '13.26',
    });
    const cache = new RedisCacheStore({
      connection: { port: redis.port, host: '127.0.0.1' },
      database: 0,
      prefix: larq,
      cachePrefix: CACHE_PREFIX,
      laravel: 13,
    });
    open.push(queue, cache);
    const ran: string[] = [];
    const handlers = new Handlers().object('App\\Jobs\\ChainStep', (_c, ctx) => void ran.push(ctx.queue));
    const work = () =>
      createWorker(queue, handlers, { sleep: 0, stopWhenEmpty: true, memory: 4096 }, { cache }).daemon('high,low');

    expect(await runLaravelWorker({ ...conn(laravel), queue: 'high,low' })).to.deep.equal([]);
    await work();
    expect(ran).to.deep.equal([]);
    expect([await queue.size('high'), await queue.size('low')]).to.deep.equal([1, 1]);

    for (const prefix of [laravel, larq]) await dispatch13('resume-all', [], conn(prefix));
    expect((await runLaravelWorker({ ...conn(laravel), queue: 'high,low' })).map((r) => r.queue)).to.deep.equal([
      'high',
      'low',
    ]);
    await work();
    expect(ran).to.deep.equal(['high', 'low']);
  });
});
