// The small pieces under lib/worker/, the cache reads the worker relies on, and the fake queue the other
// worker specs use.
import { expect } from 'chai';
import { ArrayCacheStore } from '../../../lib/cache/ArrayCacheStore';
import type { CacheValue } from '../../../lib/cache/CacheStore';
import { isPaused, pausedKey, restartRequested } from '../../../lib/cache/signals';
import { causedByLostConnection } from '../../../lib/worker/lostConnection';
import { FakeQueue, VirtualTime } from '../../support/fakeQueue';

describe('isPaused (PHP truthiness of the pause flag, as the store decodes it)', () => {
  const table: [CacheValue, boolean][] = [
    [null, false],
    ['', false],
    ['0', false],
    [0, false],
    ['0.0', true], // a numeric string other than "0" is truthy in PHP
    [1767225600, true],
    [true, true],
    [false, false],
    [5, true],
  ];
  for (const [value, truthy] of table) {
    it(`${JSON.stringify(value)} is ${truthy ? 'truthy' : 'falsy'}`, async () => {
      const store = new ArrayCacheStore();
      await store.forever(pausedKey('redis', 'default'), value);
      expect(await isPaused(store, 'redis', 'default')).to.equal(truthy);
    });
  }
});

describe('restartRequested (PHP 8 !=)', () => {
  it('compares numeric strings as numbers, others as strings, null as a boolean', () => {
    expect(restartRequested('100', '100.0')).to.equal(false);
    expect(restartRequested('1e2', '100')).to.equal(false);
    expect(restartRequested('100', '101')).to.equal(true);
    expect(restartRequested('i:1;', 'i:1;')).to.equal(false);
    expect(restartRequested(null, null)).to.equal(false);
    expect(restartRequested(null, 1767225600)).to.equal(true);
    expect(restartRequested(null, 0)).to.equal(false); // null == 0 in PHP
  });
});

describe('causedByLostConnection', () => {
  it('recognises lost connections by message or code, case-insensitively', () => {
    expect(causedByLostConnection(new Error('Connection is closed.'))).to.equal(true);
    expect(causedByLostConnection(new Error('MySQL server has gone away'))).to.equal(true);
    expect(causedByLostConnection(Object.assign(new Error('read failed'), { code: 'ECONNRESET' }))).to.equal(true);
    expect(causedByLostConnection(new Error('WRONGTYPE Operation against a key'))).to.equal(false);
  });
});

describe('FakeQueue (the Redis model the worker specs use)', () => {
  it('reserves with attempts + 1 until now + retryAfter, and keeps the original string', async () => {
    const time = new VirtualTime();
    const queue = new FakeQueue(time, 60);
    const raw = queue.push('default');
    const job = (await queue.pop('default', 0))!;
    expect(job.getRawBody()).to.equal(raw);
    expect(job.attempts()).to.equal(1);
    expect(queue.reserved('default')).to.deep.equal([[job.getReservedJob(), time.now() + 60]]);
    expect(JSON.parse(job.getReservedJob()).attempts).to.equal(1);
  });

  it('releases the reserved string to :delayed at now + delay, due again later as the next attempt', async () => {
    const time = new VirtualTime();
    const queue = new FakeQueue(time);
    queue.push('default');
    const first = (await queue.pop('default', 0))!;
    await first.release(10);
    expect(queue.delayed('default')).to.deep.equal([[first.getReservedJob(), time.now() + 10]]);
    expect(await queue.pop('default', 0)).to.equal(null);
    time.clock.advance(10);
    const second = (await queue.pop('default', 0))!;
    expect(second.getRawBody()).to.equal(first.getReservedJob());
    expect(second.attempts()).to.equal(2);
  });

  it('migrates an expired reservation back to the queue', async () => {
    const time = new VirtualTime();
    const queue = new FakeQueue(time, 90);
    queue.push('default');
    await queue.pop('default', 0);
    time.clock.advance(89);
    expect(await queue.pop('default', 0)).to.equal(null);
    time.clock.advance(1);
    expect((await queue.pop('default', 0))?.attempts()).to.equal(2);
  });

  it('virtual time wakes sleepers in due order, jumping the clock', async () => {
    const time = new VirtualTime();
    const t0 = time.now();
    const woke: number[] = [];
    await Promise.all([
      time.sleep(5000).then(() => woke.push(time.now() - t0)),
      time.sleep(2000).then(() => woke.push(time.now() - t0)),
    ]);
    expect(woke).to.deep.equal([2, 5]);
  });
});

describe('Worker defaults (real timers, a few ms)', () => {
  it('timerSleep waits, and an abort cuts it short', async () => {
    const { timerSleep } = await import('../../../lib/worker/defaults');
    let t = Date.now();
    await timerSleep(15);
    expect(Date.now() - t).to.be.at.least(10);
    const controller = new AbortController();
    t = Date.now();
    setTimeout(() => controller.abort(), 5);
    await timerSleep(10_000, controller.signal);
    expect(Date.now() - t).to.be.lessThan(1000);
  });

  it('a worker with no deps runs on the system clock and real timers', async () => {
    const { Worker } = await import('../../../lib/Worker');
    const queue = new FakeQueue(new VirtualTime());
    queue.push('default');
    const worker = new Worker(queue, { run: (job) => job.delete() }, { sleep: 0.005, stopWhenEmpty: true, memory: 0 });
    expect(await worker.daemon('default')).to.deep.equal({ status: 0, reason: 'empty' });
    expect(queue.log).to.include('delete:default');
  });
});
