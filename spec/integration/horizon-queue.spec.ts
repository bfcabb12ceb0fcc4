// HorizonRedisQueue on a real redis-server, without PHP: the orderings and expiries Horizon's dashboard
// depends on (the interop spec compares the records themselves with Horizon's).
import { expect } from 'chai';
import type Redis from 'ioredis';
import { createWorker } from '../../lib/createWorker';
import { Handlers } from '../../lib/handlers/Handlers';
import { HorizonRedisQueue } from '../../lib/horizon/RedisQueue';
import { PhpObject } from '../../lib/php/values';
import { CommandWatch } from '../support/commandWatch';
import { randomPrefix, rawClient, requireRedis } from '../support/redis';

describe('HorizonRedisQueue', function () {
  let port: number;
  let client: Redis;
  let queue: HorizonRedisQueue;
  let hz: string;

  before(async function () {
    port = await requireRedis(this);
    client = rawClient(port);
  });
  after(() => client?.disconnect());
  beforeEach(() => {
    const prefix = randomPrefix();
    hz = `${prefix}horizon:`;
    queue = new HorizonRedisQueue({ connection: { port }, prefix, laravel: 13, horizon: { prefix: hz } });
  });
  afterEach(() => queue.close());

  const job = () => new PhpObject('App\\Jobs\\X', [{ name: 'n', visibility: 'public', value: 1n }]);

  it('writes the pending record before the push, so no worker can reserve a job Horizon does not list yet', async function () {
    await queue.push(job()); // loads the push script, so the watched push runs as one EVALSHA
    const watch = await CommandWatch.on([port]);
    try {
      const id = await queue.push(job());
      await watch.settle();
      const names = watch.commands.filter((c) => c.source !== 'lua').map((c) => c.argv[0].toLowerCase());
      const record = watch.commands.findIndex((c) => c.argv[0].toLowerCase() === 'hset' && c.argv[1] === `${hz}${id}`);
      const push = watch.commands.findIndex((c) => c.source === 'lua' && c.argv[0].toLowerCase() === 'rpush');
      expect(record, names.join(' ')).to.be.greaterThan(-1);
      expect(push).to.be.greaterThan(record);
    } finally {
      watch.stop();
    }
  });

  it('keeps the expiry set at push when the job is reserved, and sets the completed one on delete', async function () {
    const id = await queue.push(job());
    const pendingTtl = await client.ttl(`${hz}${id}`);
    expect(pendingTtl).to.be.within(3590, 3600);
    await client.expire(`${hz}${id}`, 1234);
    const popped = await queue.pop();
    expect(await client.hget(`${hz}${id}`, 'status')).to.equal('reserved');
    expect(await client.ttl(`${hz}${id}`)).to.be.within(1230, 1234);
    await popped!.delete();
    expect(await client.hget(`${hz}${id}`, 'status')).to.equal('completed');
    expect(await client.ttl(`${hz}${id}`)).to.be.within(3590, 3600);
    expect(await client.hget(`${hz}queue:default`, 'throughput')).to.equal('1');
  });

  it('records the failures the worker decides itself (an unknown job, max attempts exceeded) as Horizon failed records', async function () {
    const worker = createWorker(
      queue,
      new Handlers().object('App\\Jobs\\Known', () => undefined),
      { maxTries: 1 },
    );
    queue.listenTo(worker);
    const unknown = await queue.push(job());
    await worker.runNextJob('default');
    const exhausted = await queue.push({ command: new PhpObject('App\\Jobs\\Known', []), maxTries: 1 });
    // Taken and released once, as by a worker whose attempt threw: the next pop is attempt 2 of 1.
    await (await queue.pop())!.release(0);
    await worker.runNextJob('default');
    await new Promise((r) => setTimeout(r, 100));
    const failed = await client.zrange(`${hz}failed_jobs`, 0, '-1');
    expect(failed.sort()).to.deep.equal([unknown, exhausted].sort());
    expect(await client.hget(`${hz}${unknown}`, 'exception')).to.match(/^UnknownJobError: /);
    expect(await client.hget(`${hz}${exhausted}`, 'exception')).to.match(
      /^Illuminate\\Queue\\MaxAttemptsExceededException: /,
    );
    for (const id of [unknown, exhausted]) {
      expect(await client.hmget(`${hz}${id}`, 'status', 'connection', 'queue', 'context')).to.deep.equal([
        'failed',
        'redis',
        'default',
        '',
      ]);
      expect(await client.hget(`${hz}${id}`, 'completed_at')).to.match(/^\d+(\.\d+)?$/);
    }
    expect(await client.exists(`${hz}queue:default`)).to.equal(0);
  });

  it('trims what a PHP master trims: entries older than their trim minutes', async function () {
    const now = Date.now() / 1000;
    await client.zadd(`${hz}recent_jobs`, -(now - 3700), 'old', -(now - 10), 'new');
    await client.zadd(`${hz}failed_jobs`, -(now - 10080 * 60 - 100), 'old', -(now - 10), 'new');
    await queue.trim();
    expect(await client.zrange(`${hz}recent_jobs`, 0, '-1')).to.deep.equal(['new']);
    expect(await client.zrange(`${hz}failed_jobs`, 0, '-1')).to.deep.equal(['new']);
  });
});
