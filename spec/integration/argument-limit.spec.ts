// Managed servers cap the arguments of one command (ElastiCache Serverless refuses more than 3,999).
// A bulk push of 10,000 jobs, a pop of thousands at once, migrations of 10,000 due delayed jobs and
// 10,000 expired reservations (migrationBatchSize -1: all of them), acknowledging thousands of jobs in
// one tick and the cache's many(): every command Redis receives for them, from the client or from a
// Lua script, is watched with MONITOR on a single server and on every primary of a cluster.
import { expect } from 'chai';
import Redis from 'ioredis';
import { RedisCacheStore } from '../../lib/cache';
import { FakeClock } from '../../lib/clock';
import { RedisQueue, type RedisQueueOptions } from '../../lib/RedisQueue';
import { MAX_COMMAND_ARGUMENTS } from '../../lib/redis/argumentLimit';
import { LocalCluster } from '../support/cluster';
import { CommandWatch } from '../support/commandWatch';
import { randomPrefix, requireRedis } from '../support/redis';

const NOW = 1795276770;
const JOBS = 10_000;
const job = (n: number) =>
  JSON.stringify({
    uuid: `u${n}`,
    displayName: `Job${n}`,
    job: 'argv-job',
    data: { n },
    id: `id${n}`,
    attempts: 0,
    maxTries: null,
  });

// `a a a b` as `a ×3, b ×1`: long command sequences compared (and shown when they differ) compactly.
function runLengths(items: string[]): string[] {
  const out: [string, number][] = [];
  for (const item of items) {
    const last = out[out.length - 1];
    if (last && last[0] === item) last[1]++;
    else out.push([item, 1]);
  }
  return out.map(([item, n]) => `${item} ×${n}`);
}

describe('argument limits: no command carries more than 3,999 arguments', function () {
  this.timeout(180000);

  it("the limit larq keeps to is ElastiCache Serverless' 3,999", () => {
    expect(MAX_COMMAND_ARGUMENTS).to.equal(3999);
  });

  // The same calls against a queue, a cache and the servers watching them.
  function suite(
    setup: () => {
      open: (options?: RedisQueueOptions) => RedisQueue;
      cache: () => RedisCacheStore;
      watch: () => CommandWatch;
      clock: () => FakeClock;
    },
  ) {
    function expectWithinLimit(watch: CommandWatch): void {
      const largest = watch.largest();
      expect(largest, 'the watch saw the commands').to.not.equal(undefined);
      expect(
        largest!.argv.length,
        `${largest!.argv[0]} from ${largest!.source} has ${largest!.argv.length} arguments`,
      ).to.be.at.most(MAX_COMMAND_ARGUMENTS);
    }

    it('pushes 10,000 jobs with bulkRaw in one MULTI, every command within the limit', async () => {
      const { open, watch } = setup();
      const q = open();
      await q.bulkRaw(Array.from({ length: JOBS }, (_, i) => (i % 4 === 0 ? { payload: job(i), delay: 60 } : job(i))));
      await watch().settle();
      expect(await q.pendingSize()).to.equal(JOBS * 0.75);
      expect(await q.delayedSize()).to.equal(JOBS * 0.25);
      expect(watch().named('multi')).to.have.length(1);
      expect(watch().named('exec')).to.have.length(1);
      expect(watch().named('rpush').length).to.be.greaterThan(2);
      expectWithinLimit(watch());
    });

    it('pushes 10,000 jobs with bulk (job objects) in one MULTI, every command within the limit', async () => {
      const { open, watch } = setup();
      const q = open();
      await q.bulk(Array.from({ length: JOBS }, (_, i) => ({ job: 'argv-job', data: { n: i } })));
      await watch().settle();
      expect(await q.pendingSize()).to.equal(JOBS);
      expect(watch().named('exec')).to.have.length(1);
      expectWithinLimit(watch());
    });

    it('reserves 10,000 jobs in one pop, then migrates 10,000 expired reservations and 10,000 due delayed jobs (migrationBatchSize -1)', async () => {
      const { open, watch, clock } = setup();
      const q = open({ migrationBatchSize: -1, retryAfter: 90 });
      await q.bulkRaw(Array.from({ length: JOBS }, (_, i) => job(i)));
      const reserved = await q.popMany('default', 0, JOBS, (e) => {
        throw e;
      });
      expect(reserved).to.have.length(JOBS);
      await q.bulkRaw(Array.from({ length: JOBS }, (_, i) => ({ payload: job(JOBS + i), delay: 60 })));
      expect([await q.pendingSize(), await q.delayedSize(), await q.reservedSize()]).to.deep.equal([0, JOBS, JOBS]);
      clock().advance(91);
      watch().clear();
      expect(await q.pop()).to.not.equal(null);
      await watch().settle();
      expect([await q.pendingSize(), await q.delayedSize(), await q.reservedSize()]).to.deep.equal([
        2 * JOBS - 1,
        0,
        1,
      ]);
      // The migrations issue Laravel 13's commands in Laravel's order: ZRANGEBYSCORE, ZREMRANGEBYRANK, then
      // per 100 jobs one RPUSH of them and one RPUSH of a token per job; delayed first, then reserved.
      const keys = q.keys.forQueue('default');
      const names: Record<string, string> = {
        [keys.delayed]: 'delayed',
        [keys.reserved]: 'reserved',
        [keys.queue]: 'queue',
        [keys.notify]: 'notify',
      };
      const migration = watch()
        .commands.filter(
          (c) =>
            c.source === 'lua' &&
            ['zrangebyscore', 'zremrangebyrank', 'rpush'].includes(c.argv[0].toLowerCase()) &&
            c.argv[1] in names,
        )
        .map(
          (c) =>
            `${c.argv[0].toLowerCase()} ${names[c.argv[1]]}${c.argv[0].toLowerCase() === 'rpush' ? ` +${c.argv.length - 2}` : ''}`,
        );
      const laravel = (from: string) => [
        `zrangebyscore ${from}`,
        `zremrangebyrank ${from}`,
        ...Array.from({ length: JOBS / 100 }, () => [
          'rpush queue +100',
          ...Array<string>(100).fill('rpush notify +1'),
        ]).flat(),
      ];
      expect(runLengths(migration)).to.deep.equal(runLengths([...laravel('delayed'), ...laravel('reserved')]));
      expectWithinLimit(watch());
    });

    it('acknowledges 5,000 jobs finished in the same tick, every ZREM within the limit', async () => {
      const { open, watch } = setup();
      const q = open();
      await q.bulkRaw(Array.from({ length: 5000 }, (_, i) => job(i)));
      const reserved = await q.popMany('default', 0, 5000, (e) => {
        throw e;
      });
      watch().clear();
      await Promise.all(reserved.map((j) => q.deleteReserved('default', j)));
      await watch().settle();
      expect(await q.reservedSize()).to.equal(0);
      expectWithinLimit(watch());
    });

    it('acknowledges 5,000 jobs riding in the pop that follows them, every ZREM within the limit', async () => {
      const { open, watch } = setup();
      const q = open();
      await q.bulkRaw(Array.from({ length: 5001 }, (_, i) => job(i)));
      const reserved = await q.popMany('default', 0, 5000, (e) => {
        throw e;
      });
      watch().clear();
      const acks = reserved.map((j) => q.deleteReserved('default', j));
      const next = await q.popMany('default', 0, 1, (e) => {
        throw e;
      });
      await Promise.all(acks);
      await watch().settle();
      expect(next).to.have.length(1);
      expect(await q.reservedSize()).to.equal(1);
      // What fits in the pop's script call is removed inside it; the rest went just ahead of it, alone.
      const zrems = watch().named('zrem');
      expect(zrems.filter((c) => c.source !== 'lua')).to.have.length(1);
      expect(zrems.filter((c) => c.source === 'lua').length).to.be.greaterThan(0);
      expect(zrems.reduce((members, c) => members + c.argv.length - 2, 0)).to.equal(5000);
      expectWithinLimit(watch());
    });

    it('reads 5,000 cache keys with many(), every command within the limit', async () => {
      const { cache, watch } = setup();
      const s = cache();
      for (let i = 0; i < 5000; i += 1000) await s.forever(`k${i}`, i);
      const keys = Array.from({ length: 5000 }, (_, i) => `k${i}`);
      const values = await s.many(keys);
      await watch().settle();
      expect([...values.values()].filter((v) => v !== null)).to.deep.equal([0, 1000, 2000, 3000, 4000]);
      expectWithinLimit(watch());
    });
  }

  describe('on a single server', () => {
    let port: number;
    let watch: CommandWatch;
    let clock: FakeClock;
    let prefix: string;
    const closers: (() => Promise<unknown>)[] = [];

    before(async function () {
      port = await requireRedis(this);
      watch = await CommandWatch.on([port]);
    });
    after(() => watch?.stop());
    beforeEach(() => {
      watch.clear();
      clock = new FakeClock(NOW * 1000);
      prefix = randomPrefix();
    });
    afterEach(async () => {
      for (const close of closers.splice(0)) await close();
    });

    suite(() => ({
      open: (options = {}) => {
        const q = new RedisQueue({ connection: { port, host: '127.0.0.1' }, prefix, clock, laravel: 13, ...options });
        closers.push(() => q.close());
        return q;
      },
      cache: () => {
        const client = new Redis({ port, host: '127.0.0.1' });
        const s = new RedisCacheStore({ connection: client, prefix, laravel: 13 });
        closers.push(async () => client.quit());
        return s;
      },
      watch: () => watch,
      clock: () => clock,
    }));
  });

  describe('on a Redis Cluster (every primary watched)', () => {
    let cluster: LocalCluster;
    let watch: CommandWatch;
    let clock: FakeClock;
    let prefix: string;
    const closers: (() => Promise<unknown>)[] = [];

    before(async function () {
      cluster = await LocalCluster.start(this);
      const primaries = (await cluster.view()).filter((n) => n.role === 'master').map((n) => n.port);
      watch = await CommandWatch.on(primaries);
    });
    after(async () => {
      watch?.stop();
      await cluster?.stop();
    });
    beforeEach(() => {
      watch.clear();
      clock = new FakeClock(NOW * 1000);
      prefix = randomPrefix();
    });
    afterEach(async () => {
      for (const close of closers.splice(0)) await close();
    });

    suite(() => ({
      open: (options = {}) => {
        const q = new RedisQueue({
          connection: cluster.client(),
          prefix,
          clock,
          laravel: 13,
          cluster: true,
          ...options,
        });
        closers.push(() => q.close());
        return q;
      },
      cache: () => new RedisCacheStore({ connection: cluster.client(), prefix, laravel: 13 }),
      watch: () => watch,
      clock: () => clock,
    }));
  });
});
