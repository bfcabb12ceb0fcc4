// larq's cache against real Laravel, on every line of LARAVEL_LINES (8.83 from Debian's packages, 12.67
// and 13.26 from their releases; PHP 8.2, phpredis), through compat-fixtures/php/cache.php: `queue:restart` both ways as the worker reads it, the maxExceptions
// counter shared by both workers, unique-job locks taken by one side and released by the other, on the
// Redis store (each line's layout and skeleton cache prefix) and on the database store (a shared SQLite file).
import { expect } from 'chai';
import type Redis from 'ioredis';
import { mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import {
  countJobException,
  createCacheTable,
  DatabaseCacheStore,
  exceptionsKey,
  FOREVER_SECONDS,
  isPaused,
  pausedKey,
  pauseQueue,
  readRestart,
  RedisCacheStore,
  restartKey,
  signalRestart,
} from '../../../lib/cache';
import { LARAVEL_LINES, laravelHarness, requirePhp } from '../../support/php';
import { rawClient, randomPrefix, requireRedis } from '../../support/redis';

interface Typed {
  type: string;
  value: unknown;
}

type Op = Record<string, unknown> & { op: string };

/** Each line's skeleton cache prefix (APP_NAME "Laravel"), given to both sides. */
const CACHE_PREFIX = { 8: 'laravel_cache', 12: 'laravel_cache_', 13: 'laravel-cache-' } as const;

for (const line of LARAVEL_LINES)
  describe(`cache: interop with Laravel ${line}`, function () {
    let port: number;
    const { major, runPhp } = laravelHarness(line);
    const cachePrefix = CACHE_PREFIX[major];
    /** What RedisStore puts before a logical key: 8.x-10.x add ':' after the cache prefix, 11.x+ nothing. */
    const redisKeyPrefix = major === 8 ? `${cachePrefix}:` : cachePrefix;

    before(async function () {
      requirePhp(this, line);
      port = await requireRedis(this);
    });

    /** Runs operations in cache.php and returns their results. */
    async function php(store: 'redis' | 'database', env: Record<string, string>, ops: Op[]): Promise<unknown[]> {
      const res = await runPhp('cache.php', [store, JSON.stringify(ops)], { LARQ_REDIS_PORT: String(port), ...env });
      if (res.code !== 0) throw new Error(`cache.php exited ${res.code ?? res.signal}:\n${res.stderr}`);
      return JSON.parse(res.stdout) as unknown[];
    }

    async function php1(store: 'redis' | 'database', env: Record<string, string>, op: Op): Promise<unknown> {
      return (await php(store, env, [op]))[0];
    }

    describe(`Redis store (phpredis, cache prefix ${cachePrefix}, the ${line} layout)`, function () {
      let prefix: string;
      let env: Record<string, string>;
      let larq: RedisCacheStore;
      let raw: Redis;

      beforeEach(() => {
        prefix = randomPrefix();
        env = { LARQ_PREFIX: prefix, LARQ_CACHE_PREFIX: cachePrefix };
        // The skeleton's layout: cache on database 1, locks on the `default` connection (database 0).
        larq = new RedisCacheStore({
          connection: { port, host: '127.0.0.1' },
          lockConnection: { port, host: '127.0.0.1' },
          prefix,
          cachePrefix,
          laravel: major,
        });
        raw = rawClient(port);
      });
      afterEach(async () => {
        await larq.close();
        raw.disconnect();
      });

      it('`queue:restart` in PHP is read by readRestart, at the key larq computes', async () => {
        await php('redis', { ...env, LARQ_NOW: '1767225600' }, [{ op: 'restart' }]);
        expect(await readRestart(larq)).to.equal(1767225600);
        await raw.select(1);
        expect(await raw.get(`${prefix}${redisKeyPrefix}illuminate:queue:restart`)).to.equal('1767225600');
      });

      it("larq's signalRestart is what Laravel's Worker reads, and makes it restart", async () => {
        expect(await php1('redis', env, { op: 'workerLastRestart' })).to.deep.equal({ type: 'NULL', value: null });
        await signalRestart(larq, 1767225600);
        const [get, last, sameStamp, fromNull, older] = (await php('redis', env, [
          { op: 'get', key: restartKey },
          { op: 'workerLastRestart' },
          { op: 'workerShouldRestart', since: 1767225600 },
          { op: 'workerShouldRestart', since: null },
          { op: 'workerShouldRestart', since: 1767225599 },
        ])) as Typed[];
        // phpredis hands back the digits as a string; the worker compares loosely with its startup value.
        expect(get).to.deep.equal({ type: 'string', value: '1767225600' });
        expect(last).to.deep.equal({ type: 'string', value: '1767225600' });
        expect([sameStamp.value, fromNull.value, older.value]).to.deep.equal([false, true, true]);
      });

      it('the maxExceptions counter is shared: larq counts, PHP reads it and its worker fails the job at the limit', async () => {
        const uuid = 'b3c8a0f2-0b7e-4c57-9d2f-6f1c2d3e4a5b';
        expect(await countJobException(larq, uuid)).to.equal(1);
        expect(await countJobException(larq, uuid)).to.equal(2);
        expect(await php1('redis', env, { op: 'get', key: exceptionsKey(uuid) })).to.deep.equal({
          type: 'string',
          value: '2',
        });
        // Laravel's worker takes the third exception: 3 >= maxExceptions 3, so it fails the job and forgets.
        expect(await php1('redis', env, { op: 'maxExceptions', uuid, max: 3 })).to.deep.equal({ failed: true });
        expect(await larq.get(exceptionsKey(uuid))).to.equal(null);
        // And the other way round: PHP counts first (put 0 for a day, increment), larq continues.
        expect(await php1('redis', env, { op: 'maxExceptions', uuid, max: 5 })).to.deep.equal({ failed: false });
        await raw.select(1);
        expect(await raw.ttl(larq.key(exceptionsKey(uuid)))).to.be.within(86390, 86400);
        expect(await countJobException(larq, uuid)).to.equal(2);
      });

      it("a lock PHP took with Cache::lock(name, 0)->get() is held for larq; larq's forceRelease frees it for PHP", async () => {
        const name = 'laravel_unique_job:App\\Jobs\\SyncUser7';
        const taken = (await php1('redis', env, { op: 'lock', name, seconds: 0 })) as {
          acquired: boolean;
          owner: string;
        };
        expect(taken.acquired).to.equal(true);
        expect(await raw.get(larq.key(name))).to.equal(taken.owner); // database 0: the lock connection
        expect(await raw.ttl(larq.key(name))).to.equal(-1);
        const mine = larq.lock(name, 0);
        expect(await mine.acquire()).to.equal(false);
        expect(await mine.currentOwner()).to.equal(taken.owner);
        expect(await mine.release()).to.equal(false);
        await mine.forceRelease();
        expect(await php1('redis', env, { op: 'lock', name, seconds: 0 })).to.include({ acquired: true });
      });

      it('owner-checked release works across the two: each side releases the lock the other took, given its owner', async () => {
        const name = 'laravel_unique_job:App\\Jobs\\Report';
        const mine = larq.lock(name, 60);
        expect(await mine.acquire()).to.equal(true);
        const [owner, wrong, right] = (await php('redis', env, [
          { op: 'lockOwner', name },
          { op: 'release', name, owner: 'not-the-owner' },
          { op: 'release', name, owner: mine.owner },
        ])) as Typed[];
        expect(owner.value).to.equal(mine.owner);
        expect([wrong.value, right.value]).to.deep.equal([false, true]);

        const theirs = (await php1('redis', env, { op: 'lock', name, seconds: 60 })) as {
          acquired: boolean;
          owner: string;
        };
        expect(await raw.ttl(larq.key(name))).to.be.within(59, 60);
        expect(await larq.lock(name, 0, theirs.owner).release()).to.equal(true);
        expect(await php1('redis', env, { op: 'lockOwner', name })).to.deep.equal({ type: 'NULL', value: null });
      });

      it('values keep their PHP types both ways (numbers raw, the rest serialized)', async () => {
        await larq.forever('s', 'héllo');
        await larq.forever('t', true);
        await larq.forever('n', 5);
        await larq.forever('f', 1.5);
        await pauseQueue(larq, 'redis', 'default');
        const read = (await php(
          'redis',
          env,
          ['s', 't', 'n', 'f', pausedKey('redis', 'default')].map((key) => ({ op: 'get', key })),
        )) as Typed[];
        expect(read).to.deep.equal([
          { type: 'string', value: 'héllo' },
          { type: 'boolean', value: true },
          { type: 'string', value: '5' },
          { type: 'string', value: '1.5' },
          { type: 'boolean', value: true },
        ]);
        await php('redis', env, [
          { op: 'forever', key: 'ps', value: 'a "quoted" ü' },
          { op: 'forever', key: 'pf', value: false },
          { op: 'put', key: 'pi', value: 42, seconds: 30 },
          { op: 'put', key: 'pd', value: 0.25, seconds: 30 },
          { op: 'forever', key: pausedKey('redis', 'low'), value: true },
        ]);
        expect([...(await larq.many(['ps', 'pf', 'pi', 'pd']))].map(([, v]) => v)).to.deep.equal([
          'a "quoted" ü',
          false,
          42,
          0.25,
        ]);
        expect(await isPaused(larq, 'redis', 'low')).to.equal(true);
      });
    });

    describe('database store (SQLite file shared by both)', function () {
      let dir: string;
      let env: Record<string, string>;
      let larq: DatabaseCacheStore;

      before(async () => {
        dir = mkdtempSync(join(tmpdir(), 'larq-cache-interop-'));
        const file = join(dir, 'cache.sqlite');
        env = { LARQ_SQLITE: file, LARQ_CACHE_PREFIX: cachePrefix };
        larq = new DatabaseCacheStore({ connection: { driver: 'sqlite', database: file }, cachePrefix });
        await createCacheTable(larq);
      });
      after(async () => {
        await larq?.close();
        if (dir) rmSync(dir, { recursive: true, force: true });
      });

      async function cacheRow(store: DatabaseCacheStore, key: string): Promise<Record<string, unknown>> {
        const rows = await store.sql.select(`select * from ${store.tables.cache} where ${store.sql.quote('key')} = ?`, [
          key,
        ]);
        return rows[0];
      }

      it('`queue:restart` in PHP writes i:<now>; for ten years; readRestart reads it', async () => {
        await php('database', env, [{ op: 'restart' }]);
        const stamp = await readRestart(larq);
        expect(stamp).to.be.a('number');
        expect(Math.abs((stamp as number) - Date.now() / 1000)).to.be.below(60);
        // The database store puts the cache prefix straight before the key on every line.
        expect(await cacheRow(larq, `${cachePrefix}illuminate:queue:restart`)).to.deep.equal({
          key: `${cachePrefix}illuminate:queue:restart`,
          value: `i:${stamp};`,
          expiration: (stamp as number) + FOREVER_SECONDS,
        });
      });

      it("larq's signalRestart is read by Laravel's Worker as an int", async () => {
        const now = Math.floor(Date.now() / 1000);
        await signalRestart(larq, now);
        const [last, same] = (await php('database', env, [
          { op: 'workerLastRestart' },
          { op: 'workerShouldRestart', since: now },
        ])) as Typed[];
        expect(last).to.deep.equal({ type: 'integer', value: now });
        expect(same.value).to.equal(false);
      });

      it('the maxExceptions counter: larq puts 0 and increments, PHP continues, i:N; throughout', async () => {
        const uuid = 'c0ffee00-0000-4000-8000-000000000001';
        expect(await countJobException(larq, uuid)).to.equal(1);
        expect(await php1('database', env, { op: 'get', key: exceptionsKey(uuid) })).to.deep.equal({
          type: 'integer',
          value: 1,
        });
        expect(await php1('database', env, { op: 'maxExceptions', uuid, max: 3 })).to.deep.equal({ failed: false });
        expect(await cacheRow(larq, `${cachePrefix}${exceptionsKey(uuid)}`)).to.include({ value: 'i:2;' });
        expect(await countJobException(larq, uuid)).to.equal(3);
      });

      it('locks in cache_locks: PHP holds, larq sees it, force-releases, PHP takes it again', async () => {
        const name = 'laravel_unique_job:App\\Jobs\\SyncUser8';
        const taken = (await php1('database', env, { op: 'lock', name, seconds: 0 })) as {
          acquired: boolean;
          owner: string;
        };
        expect(taken.acquired).to.equal(true);
        const mine = larq.lock(name, 0);
        expect(await mine.acquire()).to.equal(false);
        expect(await mine.currentOwner()).to.equal(taken.owner);
        await mine.forceRelease();
        expect(await php1('database', env, { op: 'lock', name, seconds: 0 })).to.include({ acquired: true });
        expect(await php1('database', env, { op: 'release', name, owner: 'someone-else' })).to.deep.equal({
          type: 'boolean',
          value: false,
        });
      });
    });
  });
