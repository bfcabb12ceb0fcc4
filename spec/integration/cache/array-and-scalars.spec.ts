// The in-memory ArrayCacheStore, the factory, and the PHP scalar rules the stores rely on (serialize of
// scalars, is_numeric, truthiness, loose ==). Expected texts were taken from PHP 8.2.
import { expect } from 'chai';
import { FakeClock } from '../../../lib/clock';
import { ArrayCacheStore, createCacheStore, DatabaseCacheStore, RedisCacheStore } from '../../../lib/cache';
import {
  isPhpNumeric,
  phpFloatText,
  phpIntCast,
  phpLooseEquals,
  phpTruthy,
  serializeScalar,
  unserializeScalar,
} from '../../../lib/cache/scalar';
import { InvalidOptionError } from '../../../lib/errors';

describe('cache: PHP scalar rules', () => {
  it('serialize() of scalars, as PHP 8.2 writes them', () => {
    expect(serializeScalar(true)).to.equal('b:1;');
    expect(serializeScalar(false)).to.equal('b:0;');
    expect(serializeScalar(null)).to.equal('N;');
    expect(serializeScalar(1767225600)).to.equal('i:1767225600;');
    expect(serializeScalar(-7)).to.equal('i:-7;');
    expect(serializeScalar('héllo')).to.equal('s:6:"héllo";');
    const floats: [number, string][] = [
      [1.5, 'd:1.5;'],
      [0.1, 'd:0.1;'],
      [0.0001, 'd:0.0001;'],
      [0.00001, 'd:1.0E-5;'],
      [1.5e17, 'd:1.5E+17;'],
      [1e20, 'd:1.0E+20;'],
      [2 ** 63, 'd:9.223372036854776E+18;'],
      [1 / 3, 'd:0.3333333333333333;'],
      [Infinity, 'd:INF;'],
      [-Infinity, 'd:-INF;'],
      [NaN, 'd:NAN;'],
    ];
    for (const [n, text] of floats) expect(serializeScalar(n), String(n)).to.equal(text);
    expect(phpFloatText(-0)).to.equal('-0');
  });

  it('reads exactly one serialized scalar, and nothing else', () => {
    const read = (s: string) => unserializeScalar(Buffer.from(s, 'utf8'));
    expect(read('b:1;')).to.deep.equal({ ok: true, value: true });
    expect(read('i:-12;')).to.deep.equal({ ok: true, value: -12 });
    expect(read('i:9223372036854775807;')).to.deep.equal({ ok: true, value: '9223372036854775807' });
    expect(read('d:1.0E+25;')).to.deep.equal({ ok: true, value: 1e25 });
    expect(read('s:6:"héllo";')).to.deep.equal({ ok: true, value: 'héllo' });
    expect(read('s:2:"a"";')).to.deep.equal({ ok: true, value: 'a"' });
    expect(read('N;')).to.deep.equal({ ok: true, value: null });
    for (const bad of ['s:5:"héllo";', 'b:2;', 'i:1', 'a:0:{}', 'O:8:"stdClass":0:{}', 'N;x', '', 'x'])
      expect(read(bad).ok, bad).to.equal(false);
  });

  it('is_numeric, truthiness, (int) and loose ==, as PHP 8', () => {
    for (const yes of ['1', ' 1', '1 ', '-1.5', '.5', '5.', '1e3', '+2']) expect(isPhpNumeric(yes), yes).to.equal(true);
    for (const no of ['', ' ', '0x1A', 'Infinity', '1e', 'abc', '1 2']) expect(isPhpNumeric(no), no).to.equal(false);
    expect([null, false, 0, '', '0'].map(phpTruthy)).to.deep.equal([false, false, false, false, false]);
    expect([true, 1, '00', ' ', NaN].map(phpTruthy)).to.deep.equal([true, true, true, true, true]);
    expect([phpIntCast('12abc'), phpIntCast(2.9), phpIntCast(true), phpIntCast('x')]).to.deep.equal([12, 2, 1, 0]);
    expect(phpLooseEquals('1767225600', 1767225600)).to.equal(true);
    expect(phpLooseEquals(null, 0)).to.equal(true);
    expect(phpLooseEquals(null, '0')).to.equal(false);
    expect(phpLooseEquals('abc', 0)).to.equal(false);
    expect(phpLooseEquals('1e3', '1000')).to.equal(true);
    expect(phpLooseEquals(null, 1767225600)).to.equal(false);
  });
});

describe('cache: ArrayCacheStore', () => {
  function store(): { s: ArrayCacheStore; clock: FakeClock } {
    const clock = new FakeClock();
    clock.setSeconds(1767225600);
    return { s: new ArrayCacheStore({ clock }), clock };
  }

  it('keeps values as given, expires them by the clock, forgets on TTL <= 0', async () => {
    const { s, clock } = store();
    await s.put('k', 'v', 10);
    await s.forever('f', 3);
    clock.advance(9);
    expect(await s.get('k')).to.equal('v');
    clock.advance(1);
    expect(await s.get('k')).to.equal(null);
    expect(await s.get('f')).to.equal(3);
    await s.put('f', 1, -1);
    expect([...(await s.many(['f', 'k']))]).to.deep.equal([
      ['f', null],
      ['k', null],
    ]);
  });

  it('increments with (int) arithmetic; a missing key becomes `by`', async () => {
    const { s } = store();
    expect(await s.increment('n', 2)).to.equal(2);
    expect(await s.increment('n')).to.equal(3);
    await s.put('f', 2.7, 60);
    expect(await s.increment('f')).to.equal(3);
  });

  it('locks: exclusive, owner-checked release, force release, TTL expiry, 0 = forever', async () => {
    const { s, clock } = store();
    const a = s.lock('l', 5);
    expect(await a.acquire()).to.equal(true);
    expect(await s.lock('l').acquire()).to.equal(false);
    expect(await s.lock('l', 0, 'someone').release()).to.equal(false);
    clock.advance(5);
    const b = s.lock('l', 0);
    expect(await b.acquire()).to.equal(true);
    clock.advance(1e6);
    expect(await b.currentOwner()).to.equal(b.owner);
    await s.lock('l').forceRelease();
    expect(await b.currentOwner()).to.equal(null);
  });
});

describe('cache: createCacheStore', () => {
  it('builds each driver and refuses unknown ones', async () => {
    expect(createCacheStore({ driver: 'array' })).to.be.instanceOf(ArrayCacheStore);
    const redis = createCacheStore({ driver: 'redis', connection: { lazyConnect: true }, laravel: 8 });
    expect(redis).to.be.instanceOf(RedisCacheStore);
    expect(redis.key('k')).to.equal('laravel_database_laravel_cache:k');
    await redis.close();
    const db = createCacheStore({ driver: 'database', connection: { driver: 'sqlite', database: ':memory:' } });
    expect(db).to.be.instanceOf(DatabaseCacheStore);
    await db.close();
    expect(() => createCacheStore({ driver: 'file' } as never)).to.throw(InvalidOptionError, /driver/);
    expect(() => createCacheStore({ driver: 'redis', cache_prefix: 'x' } as never)).to.throw(
      InvalidOptionError,
      /cache_prefix/,
    );
    expect(() =>
      createCacheStore({
        driver: 'database',
        connection: { driver: 'sqlite', database: ':memory:' },
        tabel: 'c',
      } as never),
    ).to.throw(InvalidOptionError, /tabel/);
  });
});
