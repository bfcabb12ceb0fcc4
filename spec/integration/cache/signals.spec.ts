// The worker's cache signals (restart, pause, maxExceptions counter) on every store kind, plus what
// they leave in Redis: the raw restart number, `b:1;` pause flags and the SETEX'd counter.
import { expect } from 'chai';
import type Redis from 'ioredis';
import { mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import {
  ArrayCacheStore,
  countJobException,
  createCacheTable,
  DatabaseCacheStore,
  exceptionsKey,
  forgetJobExceptions,
  isPaused,
  isPausedGlobally,
  pausedKey,
  pauseQueue,
  readRestart,
  RedisCacheStore,
  restartKey,
  restartRequested,
  resumeQueue,
  signalRestart,
  type CacheStore,
} from '../../../lib/cache';
import { monitorCaughtUp, rawClient, randomPrefix, requireRedis } from '../../support/redis';

describe('cache: signals', () => {
  it("uses Laravel's keys", () => {
    expect(restartKey).to.equal('illuminate:queue:restart');
    expect(pausedKey('redis', 'default')).to.equal('illuminate:queue:paused:redis:default');
    expect(exceptionsKey('9f1c')).to.equal('job-exceptions:9f1c');
  });

  it("restartRequested is PHP's loose != between the startup and current values", () => {
    expect(restartRequested(null, null)).to.equal(false);
    expect(restartRequested(null, 1767225600)).to.equal(true);
    expect(restartRequested(1767225600, 1767225600)).to.equal(false);
    expect(restartRequested(1767225600, '1767225600')).to.equal(false);
    expect(restartRequested(1767225600, 1767225601)).to.equal(true);
    expect(restartRequested(1767225600, null)).to.equal(true);
  });

  const kinds: { name: string; make(ctx: Mocha.Context): Promise<{ store: CacheStore; done(): Promise<void> }> }[] = [
    { name: 'array', make: async () => ({ store: new ArrayCacheStore(), done: async () => undefined }) },
    {
      name: 'redis',
      async make(ctx) {
        const port = await requireRedis(ctx);
        const store = new RedisCacheStore({
          connection: { port, host: '127.0.0.1' },
          prefix: randomPrefix(),
          laravel: 8,
        });
        return { store, done: () => store.close() };
      },
    },
    {
      name: 'database (SQLite)',
      async make() {
        const dir = mkdtempSync(join(tmpdir(), 'larq-cache-'));
        const store = new DatabaseCacheStore({ connection: { driver: 'sqlite', database: join(dir, 'c.sqlite') } });
        await createCacheTable(store);
        return { store, done: async () => (await store.close(), rmSync(dir, { recursive: true, force: true })) };
      },
    },
  ];

  for (const kind of kinds) {
    describe(`on the ${kind.name} store`, function () {
      let store: CacheStore;
      let done: () => Promise<void>;

      before(async function () {
        ({ store, done } = await kind.make(this));
      });
      after(async () => done?.());

      it('signalRestart / readRestart round-trip the timestamp; restartRequested sees the change', async () => {
        const before = await readRestart(store);
        await signalRestart(store, 1767225600.9);
        const now = await readRestart(store);
        expect(now).to.equal(1767225600);
        expect(restartRequested(before, now)).to.equal(true);
        expect(restartRequested(now, await readRestart(store))).to.equal(false);
      });

      it('pauseQueue / isPaused / resumeQueue, forever or with a TTL', async () => {
        expect(await isPaused(store, 'redis', 'default')).to.equal(false);
        await pauseQueue(store, 'redis', 'default');
        expect(await isPaused(store, 'redis', 'default')).to.equal(true);
        expect(await isPaused(store, 'redis', 'other')).to.equal(false);
        await resumeQueue(store, 'redis', 'default');
        expect(await isPaused(store, 'redis', 'default')).to.equal(false);
        await pauseQueue(store, 'redis', 'low', 60);
        expect(await isPaused(store, 'redis', 'low')).to.equal(true);
        expect(await isPausedGlobally(store)).to.equal(false);
      });

      it('countJobException counts 1, 2, 3 and forgetJobExceptions resets', async () => {
        expect(await countJobException(store, 'u-1')).to.equal(1);
        expect(await countJobException(store, 'u-1')).to.equal(2);
        expect(await countJobException(store, 'u-1')).to.equal(3);
        await forgetJobExceptions(store, 'u-1');
        expect(await store.get(exceptionsKey('u-1'))).to.equal(null);
        expect(await countJobException(store, 'u-1')).to.equal(1);
      });
    });
  }

  describe('what they leave in Redis', function () {
    let raw: Redis;
    let store: RedisCacheStore;

    before(async function () {
      const port = await requireRedis(this);
      raw = rawClient(port);
      await raw.select(1);
      store = new RedisCacheStore({ connection: { port, host: '127.0.0.1' }, prefix: randomPrefix(), laravel: 10 });
    });
    after(async () => {
      await store?.close();
      raw?.disconnect();
    });

    it('restart: the plain number, no expiry', async () => {
      await signalRestart(store, 1767225600);
      expect(store.key(restartKey)).to.equal(`${store.layout.prefix}laravel_cache_:illuminate:queue:restart`);
      expect(await raw.get(store.key(restartKey))).to.equal('1767225600');
      expect(await raw.ttl(store.key(restartKey))).to.equal(-1);
    });

    it("pause: b:1; forever, or SETEX with pauseFor's TTL", async () => {
      await pauseQueue(store, 'redis', 'default');
      expect(await raw.get(store.key(pausedKey('redis', 'default')))).to.equal('b:1;');
      expect(await raw.ttl(store.key(pausedKey('redis', 'default')))).to.equal(-1);
      await pauseQueue(store, 'redis', 'low', 120);
      expect(await raw.ttl(store.key(pausedKey('redis', 'low')))).to.equal(120);
    });

    it('maxExceptions counter: SETEX 0 for 86 400 s, then INCRBY', async () => {
      const monitor = await raw.monitor();
      const commands: string[][] = [];
      monitor.on('monitor', (_time: string, args: string[]) => {
        if (args.some((a) => a.includes('job-exceptions:u-9'))) commands.push(args);
      });
      try {
        expect(await countJobException(store, 'u-9')).to.equal(1);
        await monitorCaughtUp(monitor, raw);
      } finally {
        monitor.disconnect();
      }
      const key = store.key(exceptionsKey('u-9'));
      expect(commands.map((c) => c[0].toLowerCase())).to.deep.equal(['get', 'setex', 'incrby']);
      expect(commands[1]).to.deep.equal(['setex', key, '86400', '0']);
      expect(commands[2]).to.deep.equal(['incrby', key, '1']);
      expect(await raw.ttl(key)).to.be.within(86399, 86400);
    });
  });
});
