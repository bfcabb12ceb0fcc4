// Debounced jobs against real Laravel 13.26 (13.6+): each dispatch of a #[DebounceFor] job writes a new
// owner to `laravel_debounced_job:...` and into the job's `debounceOwner`; a worker deletes a job whose
// owner is no longer the cache's (JobDebounced) and runs the newest. larq's worker must leave Redis,
// the cache and the handlers' calls as Laravel's own worker does on the same dispatches.
import { expect } from 'chai';
import { RedisCacheStore } from '../../lib/cache/RedisCacheStore';
import { createWorker } from '../../lib/createWorker';
import { debouncedJobs } from '../../lib/features/debounce';
import { Handlers } from '../../lib/handlers/Handlers';
import type { RedisJob } from '../../lib/jobs/RedisJob';
import { FileFailedJobProvider } from '../../lib/failed/FileFailedJobProvider';
import { RedisQueue } from '../../lib/RedisQueue';
import { requirePhp, runLaravelWorker, type PhpConnection } from '../support/php';
import { dispatch13, php13Env } from '../support/php13';
import { randomPrefix } from '../support/redis';
import { join } from 'path';
import { useRedisQueue } from '../support/useRedisQueue';
import { useTempDir } from '../support/useTempDir';

const CACHE_PREFIX = 'larq_cache_';
const DEBOUNCED = 'App\\Jobs\\DebouncedJob';

describe('interop: debounced jobs (Laravel 13.26)', function () {
  this.timeout(60000);
  const redis = useRedisQueue();
  const temp = useTempDir('debounce', 'all');
  const open: { close(): Promise<void> }[] = [];

  before(async function () {
    requirePhp(this, '13.26');
  });
  afterEach(async () => Promise.all(open.splice(0).map((o) => o.close())));

  // Dispatched 100 s in Laravel's past, so the 30 s debounce delay is over for both workers.
  async function dispatched(prefix: string): Promise<PhpConnection> {
    const php: PhpConnection = {
      laravel: '13.26',
      port: redis.port,
      prefix,
      cachePrefix: CACHE_PREFIX,
      env: php13Env(),
    };
    const now = Math.floor(Date.now() / 1000) - 100;
    expect((await dispatch13('debounced', ['d1', 3, 'node'], { ...php, now })).ids).to.have.length(3);
    expect((await dispatch13('debounced', ['other', 1, 'node'], { ...php, now })).ids).to.have.length(1);
    return php;
  }

  const debounceKey = (prefix: string, id: string) =>
    `${prefix}${CACHE_PREFIX}laravel_debounced_job:${DEBOUNCED}:${id}`;
  async function leftIn(prefix: string): Promise<string[]> {
    return (await redis.client.keys(`${prefix}*`)).map((k) => k.slice(prefix.length)).sort();
  }

  it('deletes the superseded copies and runs the newest, as Laravel 13.26 does', async function () {
    const [laravel, larq] = [randomPrefix(), randomPrefix()];
    const records = await runLaravelWorker({ ...(await dispatched(laravel)), queue: 'node' });
    expect(records.map((r) => r.description)).to.have.length(2);

    await dispatched(larq);
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
    const failed = new FileFailedJobProvider(join(temp.path, `${larq}failed.json`));
    open.push(queue, cache);
    const ran: [unknown, unknown][] = [];
    const debounced: unknown[] = [];
    const handlers = new Handlers({
      hooks: [
        debouncedJobs(cache, {
          onDebounced: (job: RedisJob, command) => void debounced.push([job.getJobId() !== null, command.get('n')]),
        }),
      ],
    }).object(DEBOUNCED, (c) => void ran.push([c.debounceId, c.n]));
    await createWorker(queue, handlers, { sleep: 0, stopWhenEmpty: true, memory: 4096 }, { failed, cache }).daemon(
      'node',
    );

    const laravelRan = records.map((r) => {
      const props = (r.description as { props: { name: string; value: { v?: unknown } }[] }).props;
      return [props.find((p) => p.name === 'debounceId')!.value.v, props.find((p) => p.name === 'n')!.value.v];
    });
    // equal delays: the jobs come due together, in the delayed set's member order, so compare as sets
    const sorted = (list: unknown[][]) => list.map((x) => JSON.stringify(x)).sort();
    expect(sorted(ran.map(([id, n]) => [id, Number(n)]))).to.deep.equal(sorted(laravelRan));
    expect(sorted(laravelRan)).to.deep.equal(
      sorted([
        ['d1', 3],
        ['other', 1],
      ]),
    );
    expect(
      debounced.map((d) => JSON.stringify(d, (_k, v: unknown) => (typeof v === 'bigint' ? Number(v) : v))).sort(),
    ).to.deep.equal(['[true,1]', '[true,2]']);
    expect(await failed.all()).to.deep.equal([]);
    // nothing queued or reserved; the owners stay in the cache until their TTL, as Laravel leaves them
    expect(await leftIn(larq)).to.deep.equal(await leftIn(laravel));
    expect(await redis.client.get(debounceKey(larq, 'd1'))).to.be.a('string');
  });

  it('runs a debounced job whose owner key is gone (fail-open), as Laravel does', async function () {
    const larq = randomPrefix();
    await dispatched(larq);
    await redis.client.del(debounceKey(larq, 'd1'));
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
    const ran: unknown[] = [];
    const handlers = new Handlers({ hooks: [debouncedJobs(cache)] }).object(DEBOUNCED, (c) => void ran.push(c.n));
    await createWorker(queue, handlers, { sleep: 0, stopWhenEmpty: true, memory: 4096 }, { cache }).daemon('node');
    expect(ran.map(Number).sort()).to.deep.equal([1, 1, 2, 3]);
  });
});
