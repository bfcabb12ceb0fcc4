// DatabaseCacheStore on SQLite (always), and on a fresh database of the machine's MariaDB and
// PostgreSQL servers (spec/support/databases.ts, as the failed-job specs): rows as Laravel 8.83's
// DatabaseStore and DatabaseLock write them, checked in the tables themselves.
import { expect } from 'chai';
import { FakeClock } from '../../../lib/clock';
import {
  createCacheTable,
  DatabaseCacheStore,
  FOREVER_SECONDS,
  type DatabaseCacheStoreOptions,
} from '../../../lib/cache';
import { CacheValueError } from '../../../lib/errors';
import { DatabaseFailedJobProvider } from '../../../lib/failed';
import { connectSql, createFailedJobsTable } from '../../../lib/sql';
import {
  DATABASE_KINDS,
  freshTable,
  nativeClient,
  openTestDatabase,
  type DatabaseKind,
  type TestDatabase,
} from '../../support/databases';
import { randomPrefix } from '../../support/redis';

const NOW = 1767225600;

const NAMES: Record<DatabaseKind, string> = { sqlite: 'SQLite', mariadb: 'MariaDB', pgsql: 'PostgreSQL' };

for (const kind of DATABASE_KINDS) {
  describe(`cache: DatabaseCacheStore on ${NAMES[kind]}`, function () {
    let db: TestDatabase;
    let admin: DatabaseCacheStore; // for reading rows directly
    const stores: DatabaseCacheStore[] = [];
    let clock: FakeClock;

    before(async function () {
      db = await openTestDatabase(this, kind);
      admin = new DatabaseCacheStore({ connection: db.config });
      await createCacheTable(admin);
      await createCacheTable(admin); // idempotent
    });

    after(async () => {
      try {
        await Promise.all([...stores.map((s) => s.close()), admin?.close()]);
      } finally {
        await db?.dispose();
      }
    });

    function store(options: Partial<DatabaseCacheStoreOptions> = {}): DatabaseCacheStore {
      clock = new FakeClock();
      clock.setSeconds(NOW);
      const s = new DatabaseCacheStore({ connection: db.config, cachePrefix: randomPrefix(), clock, ...options });
      stores.push(s);
      return s;
    }

    async function row(table: 'cache' | 'cache_locks', key: string): Promise<Record<string, unknown> | undefined> {
      const from = table === 'cache' ? admin.tables.cache : admin.tables.locks;
      const rows = await admin.sql.select(
        `select * from ${from} where ${admin.sql.quote('key')} = ${admin.sql.param(1)}`,
        [key],
      );
      if (rows.length === 0) return undefined;
      const r = rows[0];
      return Object.fromEntries(Object.entries(r).map(([k, v]) => [k, k === 'expiration' ? Number(v) : v]));
    }

    it('keys are the cache prefix + key with no separator, derived like the skeleton', () => {
      expect(store({ cachePrefix: undefined, laravel: 8 }).cachePrefix).to.equal('laravel_cache');
      expect(store({ cachePrefix: undefined, laravel: 11 }).cachePrefix).to.equal('laravel_cache_');
      expect(store({ cachePrefix: undefined, laravel: 13, appName: 'My App' }).cachePrefix).to.equal('my-app-cache-');
    });

    it('put writes serialize()d values (ints as i:N;) with expiration = now + TTL', async () => {
      const s = store();
      await s.put('illuminate:queue:restart', NOW, 60);
      expect(await row('cache', `${s.cachePrefix}illuminate:queue:restart`)).to.deep.equal({
        key: `${s.cachePrefix}illuminate:queue:restart`,
        value: `i:${NOW};`,
        expiration: NOW + 60,
      });
      const values: [string, Parameters<DatabaseCacheStore['put']>[1], string][] = [
        ['t', true, 'b:1;'],
        ['s', 'héllo', 's:6:"héllo";'],
        ['f', 1.5, 'd:1.5;'],
        ['n', null, 'N;'],
        ['numstr', '42', 's:2:"42";'],
      ];
      for (const [key, value, stored] of values) {
        await s.put(key, value, 10);
        expect((await row('cache', s.cachePrefix + key))?.value, key).to.equal(stored);
        expect(await s.get(key), key).to.deep.equal(value);
      }
      await s.put('t', false, 20);
      expect(await row('cache', `${s.cachePrefix}t`)).to.include({ value: 'b:0;', expiration: NOW + 20 });
    });

    it('forever is 315 360 000 seconds; a TTL <= 0 forgets', async () => {
      const s = store();
      await s.forever('illuminate:queue:restart', NOW);
      expect(await row('cache', `${s.cachePrefix}illuminate:queue:restart`)).to.include({
        value: `i:${NOW};`,
        expiration: NOW + FOREVER_SECONDS,
      });
      expect(await s.get('illuminate:queue:restart')).to.equal(NOW);
      await s.put('illuminate:queue:restart', 1, 0);
      expect(await row('cache', `${s.cachePrefix}illuminate:queue:restart`)).to.equal(undefined);
    });

    it('an expired row reads as null and is deleted', async () => {
      const s = store();
      await s.put('k', 'v', 10);
      clock.advance(9);
      expect(await s.get('k')).to.equal('v');
      clock.advance(1);
      expect(await s.get('k')).to.equal(null);
      expect(await row('cache', `${s.cachePrefix}k`)).to.equal(undefined);
    });

    it('increment adds to the value, keeps the expiration, starts a missing key at 0 (forever)', async () => {
      const s = store();
      await s.put('job-exceptions:u1', 0, 86400);
      expect(await s.increment('job-exceptions:u1')).to.equal(1);
      expect(await s.increment('job-exceptions:u1', 2)).to.equal(3);
      expect(await row('cache', `${s.cachePrefix}job-exceptions:u1`)).to.include({
        value: 'i:3;',
        expiration: NOW + 86400,
      });
      expect(await s.increment('fresh', 5)).to.equal(5);
      expect(await row('cache', `${s.cachePrefix}fresh`)).to.include({
        value: 'i:5;',
        expiration: NOW + FOREVER_SECONDS,
      });
      await s.forever('numstr', '5');
      expect(await s.increment('numstr')).to.equal(6);
      await s.forever('word', 'abc');
      await s.increment('word').then(
        () => expect.fail('expected CacheValueError'),
        (e) => expect(e).to.be.instanceOf(CacheValueError),
      );
    });

    it('concurrent increments do not lose updates', async () => {
      const s = store();
      await s.put('c', 0, 600);
      const results = await Promise.all(Array.from({ length: 10 }, () => s.increment('c')));
      expect([...results].sort((a, b) => a - b)).to.deep.equal([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
      expect(await s.get('c')).to.equal(10);
    });

    it('many reads each key; forget deletes the row', async () => {
      const s = store();
      await s.forever('a', 1);
      expect([...(await s.many(['a', 'b']))]).to.deep.equal([
        ['a', 1],
        ['b', null],
      ]);
      expect(await s.forget('a')).to.equal(true);
      expect(await s.get('a')).to.equal(null);
    });

    it('locks: a cache_locks row with owner and expiration (TTL 0 = one day); owner-checked release; force release', async () => {
      const s = store({ lockLottery: [0, 100] });
      const a = s.lock('laravel_unique_job:App\\Jobs\\Sync7', 0);
      expect(a.owner).to.match(/^[A-Za-z0-9]{16}$/);
      expect(await a.acquire()).to.equal(true);
      const key = `${s.cachePrefix}laravel_unique_job:App\\Jobs\\Sync7`;
      expect(await row('cache_locks', key)).to.deep.equal({ key, owner: a.owner, expiration: NOW + 86400 });
      const b = s.lock('laravel_unique_job:App\\Jobs\\Sync7', 30);
      expect(await b.acquire()).to.equal(false);
      expect(await b.currentOwner()).to.equal(a.owner);
      expect(await b.release()).to.equal(false);
      expect(await a.acquire()).to.equal(true); // the owner may take it again
      expect(await a.release()).to.equal(true);
      expect(await row('cache_locks', key)).to.equal(undefined);

      expect(await b.acquire()).to.equal(true);
      expect(await row('cache_locks', key)).to.include({ owner: b.owner, expiration: NOW + 30 });
      await s.lock('laravel_unique_job:App\\Jobs\\Sync7').forceRelease();
      expect(await b.currentOwner()).to.equal(null);
    });

    it('an expired lock is taken over; the lottery sweeps expired locks', async () => {
      const s = store({ lockLottery: [1, 1] });
      expect(await s.lock('old', 5, 'first').acquire()).to.equal(true);
      expect(await s.lock('other', 5, 'x').acquire()).to.equal(true);
      clock.advance(5);
      expect(await s.lock('old', 0).currentOwner()).to.equal(null);
      expect(await s.lock('old', 10, 'second').acquire()).to.equal(true);
      expect(await row('cache_locks', `${s.cachePrefix}old`)).to.include({ owner: 'second', expiration: NOW + 15 });
      expect(await row('cache_locks', `${s.cachePrefix}other`)).to.equal(undefined);
    });

    for (const single of kind === 'sqlite' ? [false] : [false, true]) {
      it(`works on a driver ${single ? 'connection' : 'pool'} of the caller's, increments' transactions included, and leaves it open`, async () => {
        const native = await nativeClient(db, { single });
        try {
          const s = store({ connection: native.config });
          await s.put('c', 0, 600);
          const results = await Promise.all(Array.from({ length: 5 }, () => s.increment('c')));
          expect([...results].sort((x, y) => x - y)).to.deep.equal([1, 2, 3, 4, 5]);
          expect(await row('cache', `${s.cachePrefix}c`)).to.deep.equal({
            key: `${s.cachePrefix}c`,
            value: 'i:5;',
            expiration: NOW + 600,
          });
          await s.close();
          expect(await store({ connection: native.config, cachePrefix: s.cachePrefix }).get('c')).to.equal(5);
        } finally {
          await native.close();
        }
      });
    }

    it('shares one SqlClient with the failed-job store; neither store closes it', async () => {
      const shared = connectSql(db.config);
      try {
        const table = freshTable();
        await createFailedJobsTable(shared, { table });
        const failed = new DatabaseFailedJobProvider(shared, { table });
        const s = store({ connection: shared });
        await s.forever('k', 'v');
        const uuid = await failed.log('redis', 'default', '{"uuid":"0b5e4f0c-0000-4000-8000-000000000001"}', 'E');
        await Promise.all([s.close(), failed.close()]);
        expect(
          await shared.select(`select * from ${admin.tables.cache} where ${shared.quote('key')} = ${shared.param(1)}`, [
            `${s.cachePrefix}k`,
          ]),
        ).to.have.length(1);
        expect(await new DatabaseFailedJobProvider(shared, { table }).ids()).to.deep.equal([uuid]);
      } finally {
        await shared.close();
      }
    });

    if (kind === 'pgsql') {
      it('PostgreSQL: values holding a NUL byte are stored base64, as DatabaseStore does there', async () => {
        const s = store();
        await s.forever('nul', 'a\0b');
        expect((await row('cache', `${s.cachePrefix}nul`))?.value).to.equal(
          Buffer.from('s:3:"a\0b";').toString('base64'),
        );
        expect(await s.get('nul')).to.equal('a\0b');
      });
    }
  });
}
