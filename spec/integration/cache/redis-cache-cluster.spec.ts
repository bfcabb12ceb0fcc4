// RedisCacheStore on a real local Redis Cluster through an ioredis Cluster client: a cluster has
// database 0 only and refuses SELECT, and a command naming keys of different slots fails with CROSSSLOT.
// Every cache key the worker uses (restart, per-queue and global pause, maxExceptions counters, unique
// locks) is read and written here on keys that live on different primaries.
import { expect } from 'chai';
import { RedisCacheStore } from '../../../lib/cache';
import {
  countJobException,
  exceptionsKey,
  forgetJobExceptions,
  globalPausedKey,
  pausedKey,
  pauseQueue,
  readRestart,
  restartKey,
  resumeQueue,
  signalRestart,
} from '../../../lib/cache/signals';
import { InvalidOptionError } from '../../../lib/errors';
import { LaravelRelease } from '../../../lib/LaravelLine';
import { CacheSignals } from '../../../lib/worker/CacheSignals';
import { LocalCluster } from '../../support/cluster';
import { randomPrefix } from '../../support/redis';

describe('cache: RedisCacheStore on a Redis Cluster', function () {
  this.timeout(90000);
  let cluster: LocalCluster;
  const stores: RedisCacheStore[] = [];

  before(async function () {
    cluster = await LocalCluster.start(this);
  });
  after(async () => {
    await Promise.all(stores.splice(0).map((s) => s.close()));
    await cluster?.stop();
  });

  function store(): RedisCacheStore {
    const s = new RedisCacheStore({ connection: cluster.client(), prefix: randomPrefix(), laravel: 13 });
    stores.push(s);
    return s;
  }

  // The distinct primaries serving the physical keys of `keys`.
  async function primariesOf(s: RedisCacheStore, keys: string[]): Promise<Set<number>> {
    return new Set(await Promise.all(keys.map((k) => cluster.primaryPortOf(s.key(k)))));
  }

  it('uses database 0 of a Cluster client without asking for another one', async () => {
    const s = store();
    expect(await s.put('k', 'v', 60)).to.equal(true);
    expect(await s.get('k')).to.equal('v');
    expect(await cluster.client().get(s.key('k'))).to.equal('s:1:"v";');
  });

  it('refuses a database other than 0 for a Cluster client, saying a cluster has database 0 only', () => {
    expect(() => new RedisCacheStore({ connection: cluster.client(), database: 1 })).to.throw(
      InvalidOptionError,
      /database.*cluster has only database 0/i,
    );
    expect(new RedisCacheStore({ connection: cluster.client(), database: 0 }).layout.prefix).to.be.a('string');
  });

  it('refuses a Cluster client whose node connections would SELECT a database', () => {
    const client = cluster.client({ redisOptions: { db: 1 } });
    expect(() => new RedisCacheStore({ connection: client })).to.throw(
      InvalidOptionError,
      /connection.*cluster has only database 0/i,
    );
  });

  it('reads many keys that live on different primaries (no CROSSSLOT)', async () => {
    const s = store();
    const keys = Array.from({ length: 20 }, (_, i) => `key-${i}`);
    expect((await primariesOf(s, keys)).size).to.equal(3);
    for (const [i, k] of keys.entries()) if (i % 2 === 0) await s.forever(k, i);
    const values = await s.many([...keys, 'missing']);
    expect([...values.keys()]).to.deep.equal([...keys, 'missing']);
    expect([...values.values()]).to.deep.equal([...keys.map((_, i) => (i % 2 === 0 ? i : null)), null]);
    expect((await s.many([])).size).to.equal(0);
  });

  it('carries the restart signal, per-queue and global pause flags across primaries', async () => {
    const s = store();
    expect(
      (await primariesOf(s, [restartKey, globalPausedKey, pausedKey('redis', 'default'), pausedKey('redis', 'emails')]))
        .size,
    ).to.be.greaterThan(1);
    const signals = new CacheSignals(
      s,
      (e) => {
        throw e;
      },
      { laravel: LaravelRelease.of('13.26') },
    );
    await signals.start();
    expect(await signals.shouldRestart()).to.equal(false);
    await signalRestart(s, 1795276770);
    expect(await readRestart(s)).to.equal(1795276770);
    expect(await signals.shouldRestart()).to.equal(true);

    await pauseQueue(s, 'redis', 'emails');
    expect(await signals.isPaused('redis', 'emails')).to.equal(true);
    expect(await signals.isPaused('redis', 'default')).to.equal(false);
    await s.forever(globalPausedKey, true); // queue:pause --all (13.25+)
    expect(await signals.isPaused('redis', 'default')).to.equal(true);
    await s.forget(globalPausedKey);
    await resumeQueue(s, 'redis', 'emails');
    expect(await signals.isPaused('redis', 'emails')).to.equal(false);
  });

  it('counts maxExceptions per job and forgets the counter, on whichever primary it lives', async () => {
    const s = store();
    const uuids = [
      '0d6b5c5e-0000-4000-8000-000000000001',
      '0d6b5c5e-0000-4000-8000-000000000002',
      '0d6b5c5e-0000-4000-8000-000000000003',
      '0d6b5c5e-0000-4000-8000-000000000004',
    ];
    expect((await primariesOf(s, uuids.map(exceptionsKey))).size).to.be.greaterThan(1);
    for (const uuid of uuids) {
      expect(await countJobException(s, uuid)).to.equal(1);
      expect(await countJobException(s, uuid)).to.equal(2);
      expect(await cluster.client().ttl(s.key(exceptionsKey(uuid)))).to.be.within(86390, 86400);
      await forgetJobExceptions(s, uuid);
      expect(await s.get(exceptionsKey(uuid))).to.equal(null);
    }
  });

  it('takes, checks and releases unique-job locks on several primaries', async () => {
    const s = store();
    const names = [
      'laravel_unique_job:App\\Jobs\\Sync:1',
      'laravel_unique_job:App\\Jobs\\Sync:2',
      'laravel_unique_job:App\\Jobs\\Mail:9',
    ];
    expect((await primariesOf(s, names)).size).to.be.greaterThan(1);
    for (const name of names) {
      const lock = s.lock(name, 60);
      expect(await lock.acquire()).to.equal(true);
      expect(await s.lock(name, 60).acquire()).to.equal(false);
      expect(await lock.currentOwner()).to.equal(lock.owner);
      expect(await s.lock(name, 0, 'someone-else').release()).to.equal(false);
      expect(await lock.release()).to.equal(true);
      expect(await lock.currentOwner()).to.equal(null);
      const forever = s.lock(name);
      expect(await forever.acquire()).to.equal(true);
      await s.lock(name).forceRelease();
      expect(await forever.currentOwner()).to.equal(null);
    }
  });
});
