// The worker's reads of the restart and pause signals made ahead of their checks: without readAhead a
// prefetched read is taken once, only while fresh; with it (the Worker's mode) a check takes any read
// started within PREFETCH_FRESH_MS, the README's bound, and never one older.
import { expect } from 'chai';
import { ArrayCacheStore } from '../../../lib/cache';
import { globalPausedKey, pausedKey, restartKey } from '../../../lib/cache/signals';
import { CacheSignals, PREFETCH_FRESH_MS, REFRESH_AFTER_MS } from '../../../lib/worker/CacheSignals';

describe('CacheSignals: reads made ahead of their checks', () => {
  let now: number;
  let reads: string[];
  let store: ArrayCacheStore;
  let signals: CacheSignals;

  beforeEach(async () => {
    now = 1_000_000;
    reads = [];
    store = new ArrayCacheStore();
    const cache = {
      get: (key: string) => {
        reads.push(key);
        return store.get(key);
      },
      put: store.put.bind(store),
      increment: store.increment.bind(store),
      forget: store.forget.bind(store),
    };
    signals = new CacheSignals(
      cache,
      (e) => {
        throw e;
      },
      { clock: { nowMs: () => now } },
    );
    await signals.start();
    reads.length = 0;
  });

  it('starts the restart read and both pause reads at once, and the checks take them without reading again', async () => {
    signals.prefetch('redis', ['default']);
    expect(reads).to.deep.equal([restartKey, globalPausedKey, pausedKey('redis', 'default')]);
    expect(await signals.shouldRestart()).to.equal(false);
    expect(await signals.isPaused('redis', 'default')).to.equal(false);
    expect(reads).to.have.length(3);
  });

  it('takes a prefetched read once: the next check reads again', async () => {
    signals.prefetch('redis', ['default']);
    await signals.shouldRestart();
    await signals.isPaused('redis', 'default');
    await store.forever(pausedKey('redis', 'default'), true);
    expect(await signals.isPaused('redis', 'default')).to.equal(true);
    expect(reads.slice(3)).to.deep.equal([globalPausedKey, pausedKey('redis', 'default')]);
  });

  it(`reads afresh when the check comes more than ${PREFETCH_FRESH_MS} ms after the prefetch`, async () => {
    signals.prefetch('redis', ['default']);
    await store.forever(restartKey, 1795276770);
    await store.forever(globalPausedKey, true);
    now += PREFETCH_FRESH_MS + 1;
    expect(await signals.shouldRestart()).to.equal(true);
    expect(await signals.isPaused('redis', 'default')).to.equal(true);
    expect(reads).to.have.length(6);
  });

  it('does not start a read again while one is fresh, and drops what no check took', async () => {
    signals.prefetch('redis', ['default']);
    signals.prefetch('redis', ['default', 'mail']);
    expect(reads).to.deep.equal([
      restartKey,
      globalPausedKey,
      pausedKey('redis', 'default'),
      globalPausedKey,
      pausedKey('redis', 'mail'),
    ]);
    signals.dropPrefetched();
    await signals.shouldRestart();
    expect(reads).to.have.length(6);
  });

  it('reading ahead: a check takes the newest answered read within the bound, refreshes it once it is old, and waits past the bound', async () => {
    const reported: unknown[] = [];
    const ahead = new CacheSignals(
      {
        get: (key: string) => (reads.push(key), store.get(key)),
        put: store.put.bind(store),
        increment: store.increment.bind(store),
        forget: store.forget.bind(store),
      },
      (e) => reported.push(e),
      { clock: { nowMs: () => now }, readAhead: true },
    );
    await ahead.start();
    reads.length = 0;
    expect(await ahead.shouldRestart()).to.equal(false);
    expect(reads).to.deep.equal([restartKey]);
    await store.forever(restartKey, 1795276770);
    // Within REFRESH_AFTER_MS, checks take the read made before the signal, without reading again.
    expect(await ahead.shouldRestart()).to.equal(false);
    expect(reads).to.have.length(1);
    // Older than that, a check still takes it (it is within the bound) and starts the next beside it...
    now += REFRESH_AFTER_MS + 1;
    expect(await ahead.shouldRestart()).to.equal(false);
    expect(reads).to.have.length(2);
    // ...which the checks after it take once it has answered: the signal is seen within PREFETCH_FRESH_MS.
    await new Promise((resolve) => setImmediate(resolve));
    expect(await ahead.shouldRestart()).to.equal(true);
    expect(reads).to.have.length(2);
    // Past the bound, a check waits for a read of its own: the key is gone again (as at start), which the
    // read taken last, still holding the signal, would not show.
    await store.forget(restartKey);
    now += PREFETCH_FRESH_MS + 1;
    expect(await ahead.shouldRestart()).to.equal(false);
    expect(reads).to.have.length(3);
    expect(reported).to.deep.equal([]);
  });

  it('reading ahead: a failed read is reported by the check that takes it and never taken again', async () => {
    const reported: unknown[] = [];
    let fail = false;
    const ahead = new CacheSignals(
      {
        get: (key: string) => {
          reads.push(key);
          return fail ? Promise.reject(new Error('cache down')) : store.get(key);
        },
        put: store.put.bind(store),
        increment: store.increment.bind(store),
        forget: store.forget.bind(store),
      },
      (e) => reported.push(e),
      { clock: { nowMs: () => now }, readAhead: true },
    );
    await ahead.start();
    reads.length = 0;
    fail = true;
    expect(await ahead.shouldRestart()).to.equal(false);
    expect(reported).to.have.length(1);
    fail = false;
    await store.forever(restartKey, 1795276770);
    expect(await ahead.shouldRestart()).to.equal(true);
    expect(reads).to.have.length(2);
    expect(reported).to.have.length(1);
  });

  it('reads ahead through a store that reads many keys at once: the reads of one turn are one many()', async () => {
    const calls: string[][] = [];
    const ahead = new CacheSignals(
      {
        get: (key: string) => (calls.push([key]), store.get(key)),
        many: (keys: readonly string[]) => (calls.push([...keys]), store.many(keys)),
        put: store.put.bind(store),
        increment: store.increment.bind(store),
        forget: store.forget.bind(store),
      },
      (e) => {
        throw e;
      },
      { clock: { nowMs: () => now }, readAhead: true },
    );
    await ahead.start();
    calls.length = 0;
    ahead.prefetch('redis', ['default', 'mail']);
    expect(await ahead.shouldRestart()).to.equal(false);
    expect(await ahead.isPaused('redis', 'default')).to.equal(false);
    expect(await ahead.isPaused('redis', 'mail')).to.equal(false);
    expect(calls).to.deep.equal([
      [restartKey, globalPausedKey, pausedKey('redis', 'default'), pausedKey('redis', 'mail')],
    ]);
    // What the checks take is what Redis held when the many() ran, key by key; once it is old, the check
    // that takes it last starts the next read, in a many() of its own.
    await store.forever(pausedKey('redis', 'mail'), true);
    expect(await ahead.isPaused('redis', 'mail')).to.equal(false);
    now += REFRESH_AFTER_MS + 1;
    expect(await ahead.isPaused('redis', 'mail')).to.equal(false);
    await new Promise((resolve) => setImmediate(resolve));
    expect(calls.slice(1)).to.deep.equal([[globalPausedKey, pausedKey('redis', 'mail')]]);
    expect(await ahead.isPaused('redis', 'mail')).to.equal(true);
  });
});
