// Slots, queue priority and rotation (Laravel `Worker::getNextJob`, 13.x), rest, and the reservation heartbeat.
import { expect } from 'chai';
import { pauseQueue } from '../../../lib/cache/signals';
import { PREFETCH_FRESH_MS } from '../../../lib/worker/CacheSignals';
import { harness, type Handler } from './harness';

describe('Worker: concurrency', () => {
  // A handler that holds its slot for `seconds` of virtual time and tracks how many run at once.
  function busy(
    h: ReturnType<typeof harness>,
    seconds: (n: number) => number,
    stats: { now: number; max: number; order: string[] },
  ): Handler {
    let n = 0;
    return async (job) => {
      stats.now++;
      stats.max = Math.max(stats.max, stats.now);
      stats.order.push(`start ${job.getJobId()}`);
      await h.time.sleep(seconds(n++) * 1000);
      stats.order.push(`end ${job.getJobId()}`);
      stats.now--;
      await job.delete();
    };
  }

  it('runs up to N jobs at once, never more', async () => {
    const h = harness({ options: { concurrency: 3, stopWhenEmpty: true } });
    const stats = { now: 0, max: 0, order: [] as string[] };
    h.handler = busy(h, (n) => [5, 1, 3, 2, 4, 1, 2][n % 7], stats);
    for (let i = 0; i < 10; i++) h.queue.push('default');
    const t0 = h.time.now();
    expect((await h.worker.daemon('default')).reason).to.equal('empty');
    expect(stats.max).to.equal(3);
    expect(h.queue.log.filter((l) => l.startsWith('delete'))).to.have.length(10);
    expect(h.time.now() - t0).to.be.lessThan(25); // 25 s of work shared by 3 slots
  });

  it('with concurrency 1 runs one job at a time, stop checks between jobs', async () => {
    const h = harness({ options: { stopWhenEmpty: true } });
    const stats = { now: 0, max: 0, order: [] as string[] };
    h.handler = busy(h, () => 2, stats);
    for (let i = 0; i < 3; i++) h.queue.push('default');
    await h.worker.daemon('default');
    expect(stats.order).to.deep.equal(['start id-1', 'end id-1', 'start id-2', 'end id-2', 'start id-3', 'end id-3']);
    expect(h.events.filter((e) => /^(Looping|JobPopped|JobAttempted)/.test(e))).to.deep.equal([
      'Looping',
      'JobPopped id-1',
      'JobAttempted id-1',
      'Looping',
      'JobPopped id-2',
      'JobAttempted id-2',
      'Looping',
      'JobPopped id-3',
      'JobAttempted id-3',
      'Looping',
    ]);
  });

  it("from concurrency 2, a slot takes the next job while the last one's delete waits for Redis; it counts as processed after", async () => {
    const h = harness({ options: { concurrency: 2, stopWhenEmpty: true }, popMany: true });
    h.handler = async (job, _signal, attempt) => {
      // what Handlers does with its final delete: hand the wait for Redis' reply over
      attempt!.deferFinalDelete!(h.time.sleep(5000).then(() => job.delete()));
    };
    for (let i = 0; i < 3; i++) h.queue.push('default');
    await h.worker.daemon('default');
    const events = h.jobEvents().filter((e) => /^Job(Processing|Processed) /.test(e));
    // job 3 took job 1's slot before job 1's delete was in; each job still ends with JobProcessed
    expect(events.indexOf('JobProcessing id-3')).to.be.lessThan(events.indexOf('JobProcessed id-1'));
    expect(events.filter((e) => e.startsWith('JobProcessed'))).to.have.members([
      'JobProcessed id-1',
      'JobProcessed id-2',
      'JobProcessed id-3',
    ]);
    expect(h.queue.log.filter((l) => l.startsWith('delete'))).to.have.length(3);
  });

  it('a handed-over delete that fails takes the exception path, not JobProcessed', async () => {
    const h = harness({ options: { concurrency: 2, stopWhenEmpty: true }, popMany: true });
    h.handler = async (_job, _signal, attempt) => attempt!.deferFinalDelete!(Promise.reject(new Error('ZREM failed')));
    h.queue.push('default');
    await h.worker.daemon('default');
    expect(h.jobEvents()).to.include('JobExceptionOccurred id-1');
    expect(h.jobEvents()).to.not.include('JobProcessed id-1');
    expect(h.errors.map((e) => e.message)).to.include('ZREM failed');
  });

  it("one job at a time, the next pop goes out while the last job's delete waits for Redis; the job ends after the reply", async () => {
    const h = harness({ options: { stopWhenEmpty: true } });
    const finishDeletes: (() => void)[] = [];
    // The runner's last step, as Handlers takes it: the final delete is handed over; its reply is held here.
    h.handler = async (job, _signal, attempt) => {
      attempt!.deferFinalDelete!(new Promise<void>((resolve) => finishDeletes.push(resolve)).then(() => job.delete()));
    };
    h.queue.push('default');
    h.queue.push('default');
    const running = h.worker.daemon('default');
    const settle = async () => {
      for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
    };
    await settle();
    // Job 1's delete has no reply yet, and the pass after it has popped job 2 (on Redis, in the same write
    // as the ZREM, behind it): job 1 has not ended, job 2 ran, and the third pass found the queue empty.
    expect(h.queue.log.filter((l) => l.startsWith('pop'))).to.deep.equal(['pop:default', 'pop:default', 'pop:default']);
    expect(finishDeletes).to.have.length(2);
    expect(h.jobEvents()).to.not.include('JobProcessed id-1');
    expect(h.events.filter((e) => /^(Looping|JobPopped|JobProcessed)/.test(e))).to.deep.equal([
      'Looping',
      'JobPopped id-1',
      'Looping',
      'JobPopped id-2',
      'Looping',
    ]);
    // Each pass takes the newest read of the flags made within PREFETCH_FRESH_MS (no virtual time passes
    // here): the first pass's own read, taken by the 3 passes, and one after the idle sleep of the third,
    // which drops the reads made before it.
    const pauseReads = () => h.cache.calls.filter((c) => c === 'get illuminate:queue:paused:redis:default').length;
    expect(pauseReads()).to.equal(2);
    expect(h.cache.calls.filter((c) => c === 'get illuminate:queues:paused')).to.have.length(2);
    finishDeletes[0]();
    await settle();
    expect(h.jobEvents()).to.include('JobProcessed id-1');
    expect(h.jobEvents()).to.not.include('JobProcessed id-2');
    finishDeletes[1]();
    expect((await running).reason).to.equal('empty');
    expect(h.jobEvents().filter((e) => e.startsWith('JobProcessed'))).to.deep.equal([
      'JobProcessed id-1',
      'JobProcessed id-2',
    ]);
    expect(h.queue.log.filter((l) => l.startsWith('delete'))).to.have.length(2);
  });

  it('one job at a time, a pause made during a job longer than the read-ahead bound holds the next pop', async () => {
    const h = harness({ options: { stopWhenEmpty: true, timeout: 0 } }); // timeout 0: virtual time races ahead while this job waits
    // The read-ahead bound is wall-clock time (CacheSignals reads Date.now), so this job really waits it out.
    h.handler = async (job) => {
      await pauseQueue(h.cache.store, 'redis', 'default');
      await new Promise((r) => setTimeout(r, PREFETCH_FRESH_MS + 50));
      await job.delete();
    };
    h.queue.push('default');
    h.queue.push('default');
    expect((await h.worker.daemon('default')).reason).to.equal('empty');
    expect(h.queue.log.filter((l) => l.startsWith('pop'))).to.deep.equal(['pop:default']);
    expect(h.queue.pending('default')).to.have.length(1);
  });

  it('pops for every free slot in one round trip, and for each slot that frees as soon as it does', async () => {
    const h = harness({ options: { concurrency: 3, stopWhenEmpty: true, memory: 0 }, popMany: true }); // memory 0: slots alone bound the pop
    const stats = { now: 0, max: 0, order: [] as string[] };
    h.handler = busy(h, () => 1, stats);
    for (let i = 0; i < 4; i++) h.queue.push('default');
    await h.worker.daemon('default');
    expect(h.queue.log.filter((l) => l.startsWith('pop')).slice(0, 2)).to.deep.equal([
      'popMany:default:3',
      'popMany:default:1',
    ]);
    expect(stats.max).to.equal(3);
  });

  it('one loop at any concurrency: one pop out at a time, never more than N jobs reserved', async () => {
    const h = harness({ options: { concurrency: 4, stopWhenEmpty: true, memory: 0 }, popMany: true }); // memory 0: slots alone bound the pop
    const stats = { now: 0, max: 0, order: [] as string[] };
    h.handler = busy(h, () => 1, stats);
    for (let i = 0; i < 9; i++) h.queue.push('default');
    let reservedMax = 0;
    h.worker.on('JobProcessing', () => void (reservedMax = Math.max(reservedMax, h.queue.reserved('default').length)));
    // a pop that takes 10 ms of (virtual) time, counting how many are out at once
    const pop = h.queue.popMany!;
    let out = 0;
    let outMax = 0;
    h.queue.popMany = async (queue, index, count) => {
      outMax = Math.max(outMax, ++out);
      await h.time.sleep(10);
      out--;
      return pop(queue, index, count);
    };
    expect((await h.worker.daemon('default')).reason).to.equal('empty');
    expect(outMax).to.equal(1);
    expect(stats.max).to.equal(4);
    expect(reservedMax).to.be.at.most(4);
    expect(h.queue.log.filter((l) => l.startsWith('delete'))).to.have.length(9);
    expect(h.queue.pending('default')).to.deep.equal([]);
  });

  it('maxJobs caps the jobs started at any concurrency', async () => {
    const h = harness({ options: { concurrency: 8, maxJobs: 3 }, popMany: true });
    const stats = { now: 0, max: 0, order: [] as string[] };
    h.handler = busy(h, () => 1, stats);
    for (let i = 0; i < 10; i++) h.queue.push('default');
    expect((await h.worker.daemon('default')).reason).to.equal('max_jobs');
    expect(stats.order.filter((o) => o.startsWith('start'))).to.have.length(3);
    expect(h.queue.pending('default')).to.have.length(7);
    expect(h.queue.reserved('default')).to.deep.equal([]);
  });

  it('never pops past maxJobs', async () => {
    const h = harness({ options: { concurrency: 4, maxJobs: 5 }, popMany: true });
    const stats = { now: 0, max: 0, order: [] as string[] };
    h.handler = busy(h, () => 1, stats);
    for (let i = 0; i < 10; i++) h.queue.push('default');
    expect((await h.worker.daemon('default')).reason).to.equal('max_jobs');
    expect(stats.order.filter((o) => o.startsWith('start'))).to.have.length(5);
    expect(h.queue.pending('default')).to.have.length(5);
    expect(h.queue.reserved('default')).to.deep.equal([]);
  });

  it('rests `rest` seconds after each job', async () => {
    const h = harness({ options: { rest: 2, stopWhenEmpty: true } });
    const starts: number[] = [];
    h.handler = async (job) => {
      starts.push(h.time.now());
      await job.delete();
    };
    h.queue.push('default');
    h.queue.push('default');
    await h.worker.daemon('default');
    expect(starts[1] - starts[0]).to.equal(2);
  });
});

describe('Worker: queue priority', () => {
  it('strict priority: a lower queue only when the higher ones are empty', async () => {
    const h = harness({ options: { stopWhenEmpty: true } });
    const order: string[] = [];
    h.handler = async (job) => {
      order.push(job.getJobId()!);
      if (job.getJobId() === 'low-1') h.queue.push('high', { id: 'high-3' });
      await job.delete();
    };
    h.queue.push('low', { id: 'low-1' });
    h.queue.push('low', { id: 'low-2' });
    h.queue.push('high', { id: 'high-1' });
    h.queue.push('high', { id: 'high-2' });
    await h.worker.daemon('high,low');
    expect(order).to.deep.equal(['high-1', 'high-2', 'low-1', 'high-3', 'low-2']);
  });

  it('passes each queue its position in the pass', async () => {
    const h = harness({ options: { stopWhenEmpty: true } });
    const calls: string[] = [];
    const pop = h.queue.pop.bind(h.queue);
    h.queue.pop = (queue, index) => {
      calls.push(`${queue}@${index}`);
      return pop(queue, index);
    };
    await h.worker.daemon(['a', 'b', 'c']);
    expect(calls).to.deep.equal(['a@0', 'b@1', 'c@2']);
  });

  it('rotateQueues starts each pass one queue further on', async () => {
    const h = harness({ options: { stopWhenEmpty: true, rotateQueues: true } });
    const order: string[] = [];
    h.handler = async (job) => {
      order.push(job.getJobId()!);
      await job.delete();
    };
    for (const q of ['a', 'b']) for (const n of [1, 2]) h.queue.push(q, { id: `${q}${n}` });
    await h.worker.daemon('a,b');
    expect(order).to.deep.equal(['a1', 'b1', 'a2', 'b2']);
  });
});

describe('Worker: heartbeat', () => {
  it('keeps a long job reserved so no other worker can pop it meanwhile', async () => {
    const run = async (heartbeat: number | false) => {
      const h = harness({
        options: { timeout: 0, maxJobs: 1, heartbeat, retryAfter: 90 },
        retryAfter: 90,
        extendReservation: true,
      });
      let duplicate: unknown = 'not checked';
      h.handler = async (job) => {
        await h.time.sleep(150_000);
        duplicate = await h.queue.pop('default', 0); // another worker, 150 s in
        await job.delete();
      };
      h.queue.push('default');
      await h.worker.daemon('default');
      return { h, duplicate };
    };
    const without = await run(false);
    expect(without.duplicate).to.not.equal(null); // Laravel's outcome: migrated back and run twice
    const withBeat = await run(30);
    expect(withBeat.duplicate).to.equal(null);
    expect(withBeat.h.queue.log.filter((l) => l.startsWith('extend')).length).to.be.within(4, 5);
  });

  it('never extends a timed-out job, which must expire like under Laravel', async () => {
    const h = harness({
      options: { maxJobs: 1, maxTries: 3, heartbeat: 5, retryAfter: 90 },
      retryAfter: 90,
      extendReservation: true,
    });
    const t0 = h.time.now();
    h.handler = (_job, signal) =>
      new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason)));
    h.queue.push('default', { timeout: 12 });
    await h.worker.daemon('default');
    expect(h.queue.log.filter((l) => l.startsWith('extend'))).to.deep.equal([
      `extend:default:${t0 + 5 + 90}`,
      `extend:default:${t0 + 10 + 90}`,
    ]);
  });

  it('reports a reservation that was lost', async () => {
    const h = harness({ options: { timeout: 0, maxJobs: 1, heartbeat: 10, retryAfter: 90 }, extendReservation: true });
    h.handler = async (job) => {
      h.queue.deleteReserved(job); // someone else removed it
      await h.time.sleep(25_000);
    };
    h.queue.push('default');
    await h.worker.daemon('default');
    expect(h.errors.map((e) => e.message)).to.deep.equal([
      'App\\Jobs\\Example (attempt 1) is no longer reserved; it may run twice',
    ]);
  });
});
