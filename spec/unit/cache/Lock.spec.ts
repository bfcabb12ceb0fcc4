// What every cache store shares (lib/cache/Lock.ts and CacheStore.ts): lock handles read seconds and
// owner the same way, `many` answers key by key, and a misspelt option is refused naming the store.
import { expect } from 'chai';
import Redis from 'ioredis';
import { ArrayCacheStore, DatabaseCacheStore, RedisCacheStore, type CacheStore } from '../../../lib/cache';
import { InvalidOptionError } from '../../../lib/errors';

describe('cache stores: shared lock handles and options', () => {
  const client = new Redis({ lazyConnect: true }); // never connected: lock() and the options write nothing
  const stores: [string, () => CacheStore][] = [
    ['ArrayCacheStore', () => new ArrayCacheStore()],
    ['DatabaseCacheStore', () => new DatabaseCacheStore({ connection: { driver: 'sqlite', database: ':memory:' } })],
    ['RedisCacheStore', () => new RedisCacheStore({ connection: client })],
  ];
  after(() => client.disconnect());

  for (const [name, make] of stores) {
    it(`${name}: a lock handle truncates seconds, draws a 16-character owner unless given, refuses NaN`, async () => {
      const store = make();
      try {
        const drawn = store.lock('reports', 9.9);
        expect(drawn).to.include({ name: 'reports', seconds: 9 });
        expect(drawn.owner).to.match(/^[A-Za-z0-9]{16}$/);
        expect(store.lock('reports').owner).to.not.equal(drawn.owner);
        expect(store.lock('reports', 0, 'me')).to.include({ seconds: 0, owner: 'me' });
        expect(() => store.lock('reports', NaN)).to.throw(
          InvalidOptionError,
          'seconds: must be a finite number of seconds',
        );
      } finally {
        await store.close();
      }
    });
  }

  it('refuses an unknown option, naming it and the store', () => {
    expect(() => new ArrayCacheStore({ clok: 1 } as never)).to.throw(
      InvalidOptionError,
      'clok: is not an option of ArrayCacheStore',
    );
    expect(
      () => new DatabaseCacheStore({ connection: { driver: 'sqlite', database: ':memory:' }, tabel: 'x' } as never),
    ).to.throw(InvalidOptionError, 'tabel: is not an option of DatabaseCacheStore');
    expect(() => new RedisCacheStore({ connection: client, prefx: 'x' } as never)).to.throw(
      InvalidOptionError,
      'prefx: is not an option of RedisCacheStore',
    );
  });

  it('answers many() key by key, in the order asked, missing keys as null', async () => {
    const store = new ArrayCacheStore();
    await store.forever('a', 1);
    await store.put('b', 'two', 60);
    expect([...(await store.many(['b', 'missing', 'a']))]).to.deep.equal([
      ['b', 'two'],
      ['missing', null],
      ['a', 1],
    ]);
  });
});
