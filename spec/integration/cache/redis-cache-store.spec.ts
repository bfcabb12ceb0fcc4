// RedisCacheStore against a private redis-server: the physical key layout of each Laravel version,
// raw numbers versus PHP-serialized values, TTLs, increments and locks, checked on the raw keys.
import { expect } from 'chai';
import type Redis from 'ioredis';
import { RedisCacheStore, type RedisCacheStoreOptions } from '../../../lib/cache';
import { CacheValueError, InvalidOptionError } from '../../../lib/errors';
import { rawClient, randomPrefix, requireRedis } from '../../support/redis';

describe('cache: RedisCacheStore', function () {
  let port: number;
  let raw: Redis; // database 1, the cache connection's default
  let raw0: Redis;
  const stores: RedisCacheStore[] = [];

  before(async function () {
    port = await requireRedis(this);
    raw = rawClient(port);
    await raw.select(1);
    raw0 = rawClient(port);
  });

  after(async () => {
    await Promise.all(stores.map((s) => s.close()));
    raw?.disconnect();
    raw0?.disconnect();
  });

  function store(options: RedisCacheStoreOptions = {}): RedisCacheStore {
    const s = new RedisCacheStore({ connection: { port, host: '127.0.0.1' }, prefix: randomPrefix(), ...options });
    stores.push(s);
    return s;
  }

  describe('key layout', () => {
    const restart = 'illuminate:queue:restart';
    const cases: [RedisCacheStoreOptions['laravel'], string][] = [
      [8, 'laravel_database_laravel_cache:illuminate:queue:restart'],
      [9, 'laravel_database_laravel_cache_:illuminate:queue:restart'],
      [10, 'laravel_database_laravel_cache_:illuminate:queue:restart'],
      [11, 'laravel_database_laravel_cache_illuminate:queue:restart'],
      [12, 'laravel_database_laravel_cache_illuminate:queue:restart'],
      [13, 'laravel-database-laravel-cache-illuminate:queue:restart'],
    ];
    for (const [laravel, expected] of cases) {
      it(`Laravel ${laravel}.x defaults (APP_NAME=Laravel): ${expected}`, () => {
        const s = store({ laravel, prefix: undefined });
        expect(s.key(restart)).to.equal(expected);
      });
    }

    it('derives both prefixes from appName with Str::slug', () => {
      expect(store({ laravel: 8, appName: 'My App', prefix: undefined }).key('k')).to.equal(
        'my_app_database_my_app_cache:k',
      );
      expect(store({ laravel: 13, appName: 'My App', prefix: undefined }).key('k')).to.equal(
        'my-app-database-my-app-cache-k',
      );
    });

    it('takes explicit prefixes as they are; 8.x-10.x add ":" only after a non-empty cache prefix', () => {
      expect(store({ laravel: 10, prefix: 'p_', cachePrefix: 'c' }).key('k')).to.equal('p_c:k');
      expect(store({ laravel: 10, prefix: 'p_', cachePrefix: '' }).key('k')).to.equal('p_k');
      expect(store({ laravel: 11, prefix: 'p_', cachePrefix: 'c' }).key('k')).to.equal('p_ck');
      expect(store({ laravel: 8, prefix: '', cachePrefix: '' }).key('k')).to.equal('k');
    });

    it('writes the 8.x default key on database 1 (REDIS_CACHE_DB)', async () => {
      const s = store({ laravel: 8, prefix: undefined });
      try {
        await s.forever(restart, 1767225600);
        expect(await raw.get('laravel_database_laravel_cache:illuminate:queue:restart')).to.equal('1767225600');
        expect(await raw0.exists('laravel_database_laravel_cache:illuminate:queue:restart')).to.equal(0);
      } finally {
        await raw.del('laravel_database_laravel_cache:illuminate:queue:restart');
      }
    });

    it('refuses an ioredis keyPrefix, a bad version and a database the given client does not use', () => {
      expect(() => store({ connection: { port, keyPrefix: 'x:' } })).to.throw(InvalidOptionError, /keyPrefix/);
      expect(() => store({ laravel: 7 as never })).to.throw(InvalidOptionError, /laravel/);
      const client = rawClient(port);
      try {
        expect(() => store({ connection: client, database: 3 })).to.throw(InvalidOptionError, /database/);
      } finally {
        client.disconnect();
      }
    });
  });

  describe('values', () => {
    it('stores finite numbers and numeric strings raw, everything else PHP-serialized', async () => {
      const s = store({ laravel: 11 });
      const written: [string, Parameters<RedisCacheStore['forever']>[1], string][] = [
        ['int', 1767225600, '1767225600'],
        ['float', 1.5, '1.5'],
        ['numstr', '42', '42'],
        ['true', true, 'b:1;'],
        ['false', false, 'b:0;'],
        ['null', null, 'N;'],
        ['str', 'héllo', 's:6:"héllo";'],
        ['inf', Infinity, 'd:INF;'],
      ];
      for (const [key, value] of written) await s.forever(key, value);
      for (const [key, , stored] of written) expect(await raw.get(s.key(key)), key).to.equal(stored);
    });

    it('reads numbers as numbers, serialized scalars decoded, other serialized values raw', async () => {
      const s = store();
      const read: [string, unknown][] = [
        ['1767225600', 1767225600],
        ['-3', -3],
        ['1.5', 1.5],
        ['b:1;', true],
        ['b:0;', false],
        ['i:7;', 7],
        ['d:0.5;', 0.5],
        ['s:3:"a;b";', 'a;b'],
        ['N;', null],
        ['a:1:{i:0;i:1;}', 'a:1:{i:0;i:1;}'],
        ['plain text', 'plain text'],
        ['9007199254740993', '9007199254740993'],
      ];
      for (const [i, [stored]] of read.entries()) await raw.set(s.key(`r${i}`), stored);
      for (const [i, [stored, expected]] of read.entries())
        expect(await s.get(`r${i}`), stored).to.deep.equal(expected);
      expect(await s.get('missing')).to.equal(null);
    });

    it('many() reads several keys with MGET, missing ones as null', async () => {
      const s = store();
      await s.forever('a', 1);
      await s.forever('b', true);
      expect([...(await s.many(['a', 'b', 'c']))]).to.deep.equal([
        ['a', 1],
        ['b', true],
        ['c', null],
      ]);
      expect((await s.many([])).size).to.equal(0);
    });
  });

  describe('expiry and counters', () => {
    it('put is SETEX with the TTL; forever has none; a TTL <= 0 forgets', async () => {
      const s = store();
      await s.put('job-exceptions:u1', 0, 86400);
      expect(await raw.get(s.key('job-exceptions:u1'))).to.equal('0');
      expect(await raw.ttl(s.key('job-exceptions:u1'))).to.equal(86400);
      await s.forever('f', 'x');
      expect(await raw.ttl(s.key('f'))).to.equal(-1);
      await s.put('f', 'y', 0);
      expect(await raw.exists(s.key('f'))).to.equal(0);
    });

    it('increment is INCRBY: keeps the TTL, starts a missing key at 0', async () => {
      const s = store();
      await s.put('n', 0, 86400);
      expect(await s.increment('n')).to.equal(1);
      expect(await s.increment('n', 5)).to.equal(6);
      expect(await raw.get(s.key('n'))).to.equal('6');
      expect(await raw.ttl(s.key('n'))).to.be.within(86399, 86400);
      expect(await s.increment('fresh', 2)).to.equal(2);
      expect(await raw.ttl(s.key('fresh'))).to.equal(-1);
      await s.forever('t', true);
      await expectReject(s.increment('t'), CacheValueError);
      await expectReject(s.increment('n', 1.5), InvalidOptionError);
    });

    it('forget is DEL and reports whether a key went away', async () => {
      const s = store();
      await s.forever('k', 1);
      expect(await s.forget('k')).to.equal(true);
      expect(await s.forget('k')).to.equal(false);
    });
  });

  describe('locks', () => {
    // locks live on the skeleton's `default` connection (database 0) unless lockConnection says otherwise
    it('TTL > 0: SET NX EX; the owner is 16 alphanumerics; a second owner is refused', async () => {
      const s = store();
      const a = s.lock('laravel_unique_job:App\\Jobs\\Sync7', 30);
      expect(a.owner).to.match(/^[A-Za-z0-9]{16}$/);
      expect(await a.acquire()).to.equal(true);
      expect(await raw0.get(s.key('laravel_unique_job:App\\Jobs\\Sync7'))).to.equal(a.owner);
      expect(await raw0.ttl(s.key('laravel_unique_job:App\\Jobs\\Sync7'))).to.be.within(29, 30);
      const b = s.lock('laravel_unique_job:App\\Jobs\\Sync7', 30);
      expect(b.owner).not.to.equal(a.owner);
      expect(await b.acquire()).to.equal(false);
      expect(await b.currentOwner()).to.equal(a.owner);
    });

    it('TTL 0: SETNX, never expires', async () => {
      const s = store();
      const lock = s.lock('forever-lock', 0);
      expect(await lock.acquire()).to.equal(true);
      expect(await raw0.ttl(s.key('forever-lock'))).to.equal(-1);
      expect(await s.lock('forever-lock').acquire()).to.equal(false);
    });

    it('release is owner-checked; forceRelease deletes whoever holds it', async () => {
      const s = store();
      const a = s.lock('l', 0, 'owner-a');
      expect(await a.acquire()).to.equal(true);
      expect(await s.lock('l', 0, 'owner-b').release()).to.equal(false);
      expect(await raw0.get(s.key('l'))).to.equal('owner-a');
      expect(await s.lock('l', 0, 'owner-a').release()).to.equal(true);
      expect(await raw0.exists(s.key('l'))).to.equal(0);
      expect(await a.release()).to.equal(false);

      expect(await a.acquire()).to.equal(true);
      await s.lock('l').forceRelease();
      expect(await a.currentOwner()).to.equal(null);
      expect(await s.lock('l', 10).acquire()).to.equal(true);
    });

    it('lockConnection puts locks on their own connection (skeleton: database 0), same prefixes', async () => {
      const s = store({ lockConnection: { port, host: '127.0.0.1' } });
      const lock = s.lock('on-db0', 0);
      expect(await lock.acquire()).to.equal(true);
      expect(await raw0.get(s.key('on-db0'))).to.equal(lock.owner);
      expect(await raw.exists(s.key('on-db0'))).to.equal(0);
      expect(await lock.release()).to.equal(true);
    });

    it('lockConnection: null keeps locks on the cache connection, as a store without lock_connection does', async () => {
      const s = store({ lockConnection: null });
      const lock = s.lock('on-db1', 0);
      expect(await lock.acquire()).to.equal(true);
      expect(await raw.get(s.key('on-db1'))).to.equal(lock.owner);
      expect(await raw0.exists(s.key('on-db1'))).to.equal(0);
    });

    it('a cache connection on database 0 holds its locks itself', async () => {
      const s = store({ database: 0 });
      const lock = s.lock('same-db', 0);
      expect(await lock.acquire()).to.equal(true);
      expect(await raw0.get(s.key('same-db'))).to.equal(lock.owner);
      await s.put('v', 1, 10);
      expect(await raw0.get(s.key('v'))).to.equal('1');
    });
  });
});

async function expectReject(p: Promise<unknown>, type: new (...args: never[]) => Error): Promise<void> {
  try {
    await p;
  } catch (e) {
    expect(e).to.be.instanceOf(type);
    return;
  }
  expect.fail(`expected a ${type.name}`);
}
