// readAtMostEvery: the worker's memory readings (V8's statistics, built in C++ on every call) taken at most
// once per MEMORY_READING_MS, however often a pass asks.
import { expect } from 'chai';
// the module object itself (not a namespace of getters), so its function can be counted
import v8 from 'v8';
import { MEMORY_READING_MS, readAtMostEvery } from '../../../lib/support/readAtMostEvery';
import { RetainedMemory } from '../../../lib/cli/RetainedMemory';
import { heapMemoryUsage } from '../../../lib/worker/defaults';

describe('readAtMostEvery', () => {
  it('reads once per period and hands out that reading in between', () => {
    let now = 1000;
    let reads = 0;
    const reading = readAtMostEvery(
      10,
      () => ++reads,
      () => now,
    );
    expect([reading(), reading(), reading()]).to.deep.equal([1, 1, 1]);
    now += 9.9;
    expect(reading()).to.equal(1);
    now += 0.1;
    expect(reading()).to.equal(2);
    expect(reads).to.equal(2);
  });

  it('keeps no reading that threw: the next call reads again', () => {
    let fail = true;
    const reading = readAtMostEvery(
      10,
      () => {
        if (fail) throw new Error('no statistics');
        return 42;
      },
      () => 0,
    );
    expect(() => reading()).to.throw('no statistics');
    fail = false;
    expect(reading()).to.equal(42);
  });

  // V8's statistics, counted while `gauge` is called 1,000 times: at most one reading per period.
  async function readingsOf(gauge: () => number): Promise<void> {
    const real = v8.getHeapStatistics;
    let calls = 0;
    (v8 as { getHeapStatistics: typeof real }).getHeapStatistics = () => {
      calls++;
      return real();
    };
    try {
      await new Promise((resolve) => setTimeout(resolve, MEMORY_READING_MS)); // past any earlier reading
      const started = performance.now();
      let total = 0;
      for (let i = 0; i < 1000; i++) total += gauge();
      const elapsed = performance.now() - started;
      expect(total).to.be.greaterThan(0);
      expect(calls).to.be.within(1, Math.floor(elapsed / MEMORY_READING_MS) + 1);
      calls = 0;
      await new Promise((resolve) => setTimeout(resolve, MEMORY_READING_MS));
      gauge();
      expect(calls, 'a reading after the period').to.equal(1);
    } finally {
      (v8 as { getHeapStatistics: typeof real }).getHeapStatistics = real;
    }
  }

  it("the worker's default memory gauge asks V8 at most once per MEMORY_READING_MS", async () => {
    await readingsOf(heapMemoryUsage);
  });

  it("larq work's --memory gauge (RetainedMemory) asks V8 at most once per MEMORY_READING_MS", async () => {
    const retained = new RetainedMemory().start();
    try {
      await readingsOf(() => retained.usage());
    } finally {
      retained.stop();
    }
  });
});
