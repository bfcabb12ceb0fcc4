// The attempt lifecycle on virtual time (issue 21): hung handlers and the grace after a timeout, stop
// checks while every slot is busy, a job never started twice at once, late side effects refused, one
// timer for every deadline, pops bounded by payload bytes, and the options that go with them.
import { expect } from 'chai';
import { InvalidOptionError } from '../../../lib/errors';
import { resolveWorkerOptions } from '../../../lib/WorkerOptions';
import { PopBudget } from '../../../lib/worker/PopBudget';
import { tick } from '../../support/fakeQueue';
import { harness, type Handler } from './harness';

const never: Handler = () => new Promise<void>(() => undefined);

describe('Worker: a hung handler', () => {
  it("default 'stop': after timeout + timeoutGraceSeconds the worker takes no more jobs, lets the other slot finish and ends with status 1", async () => {
    const h = harness({ options: { concurrency: 2, maxTries: 3 } });
    const t0 = h.time.now();
    const started: string[] = [];
    let hungAt = 0;
    let stoppedAt = 0;
    h.handler = async (job) => {
      started.push(job.getJobId()!);
      if (job.getJobId() === 'hung') return never(job, new AbortController().signal);
      await h.time.sleep(20_000);
      await job.delete();
    };
    h.worker.on('JobHandlerHung', (e) => {
      hungAt = h.time.now();
      expect(e).to.include({ timeout: 10, graceSeconds: 5, policy: 'stop' });
    });
    h.worker.on('WorkerStopping', () => (stoppedAt = h.time.now()));
    h.queue.push('default', { id: 'hung', timeout: 10 });
    h.queue.push('default', { id: 'long', timeout: 60 });
    h.queue.push('default', { id: 'never-taken' });
    const result = await h.worker.daemon('default');
    expect(result).to.deep.equal({ status: 1, reason: 'timed_out' });
    expect(hungAt - t0).to.equal(15);
    expect(stoppedAt - t0).to.equal(20); // once 'long' was done
    expect(started).to.deep.equal(['hung', 'long']);
    expect(h.queue.pending('default').map((p) => JSON.parse(p).id)).to.deep.equal(['never-taken']);
    expect(h.errors.map((e) => e.name)).to.include('HungHandlerError');
  });

  it("'continue': the hung handler keeps its slot and the stop checks still run while it does (maxTime)", async () => {
    const h = harness({ options: { maxTries: 3, maxTime: 30, onHungHandler: 'continue' }, handler: never });
    const t0 = h.time.now();
    let stoppedAt = 0;
    h.worker.on('WorkerStopping', () => (stoppedAt = h.time.now()));
    h.queue.push('default', { timeout: 10 });
    h.queue.push('default');
    const result = await h.worker.daemon('default');
    expect(result).to.deep.equal({ status: 0, reason: 'max_time' });
    expect(stoppedAt - t0).to.be.within(30, 31);
    expect(h.jobEvents().filter((e) => e.startsWith('JobProcessing'))).to.have.length(1);
  });

  it('a timed-out handler that settles within the grace is waited for by a stop, and nothing it does late runs', async () => {
    const h = harness({ options: { maxTries: 3, maxJobs: 1 } });
    h.handler = async (job, signal) => {
      await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve()));
      await h.time.sleep(2000);
      await job.release(0);
      await h.worker.failJob(job, new Error('too late'));
    };
    const refused: string[] = [];
    h.worker.on('JobActionRefused', (e) => refused.push(`${e.action} ${e.state}`));
    h.queue.push('default', { timeout: 10 });
    expect(await h.worker.daemon('default')).to.deep.equal({ status: 0, reason: 'max_jobs' });
    expect(refused).to.deep.equal(['release timedOut', 'fail timedOut']);
    expect(h.failer.records).to.deep.equal([]);
    expect(h.queue.log.filter((l) => !l.startsWith('pop'))).to.deep.equal([]);
    expect(h.queue.reserved('default')).to.have.length(1);
  });
});

describe('Worker: one job never runs twice at once in one process (finding 5)', () => {
  it('a job that came back after retry_after while its first attempt still runs is not started; it stays reserved and runs later', async () => {
    const h = harness({ options: { concurrency: 2, timeout: 0, maxTries: 0, maxJobs: 2 }, retryAfter: 5 });
    const runs: { attempt: number; from: number; to: number }[] = [];
    h.handler = async (job) => {
      const run = { attempt: job.attempts(), from: h.time.now(), to: 0 };
      runs.push(run);
      if (job.attempts() === 1) await h.time.sleep(12_000);
      run.to = h.time.now();
      await job.delete();
    };
    const skipped: number[] = [];
    h.worker.on('JobAlreadyRunning', (e) => skipped.push(e.job.attempts()));
    h.queue.push('default', { uuid: 'same' });
    await h.worker.daemon('default');
    expect(runs.length).to.equal(2);
    expect(runs[1].from).to.be.at.least(runs[0].to);
    expect(skipped.length).to.be.at.least(1);
    expect(skipped[0]).to.equal(2);
    expect(h.errors.map((e) => e.name)).to.include('JobAlreadyRunningError');
    // the skipped reservations were neither deleted nor released: they expired, as a crashed worker's do
    expect(h.queue.log.filter((l) => /^(delete|release)/.test(l))).to.deep.equal(['delete:default', 'delete:default']);
  });
});

describe('Worker: one timer for every deadline', () => {
  it('100 jobs with a 60 s timeout at concurrency 50 arm a handful of timers, not one per job', async () => {
    const h = harness({ options: { concurrency: 50, stopWhenEmpty: true, memory: 0 }, popMany: true });
    h.handler = async (job) => {
      await tick(1);
      await job.delete();
    };
    for (let i = 0; i < 100; i++) h.queue.push('default');
    expect((await h.worker.daemon('default')).reason).to.equal('empty');
    expect(h.jobEvents().filter((e) => e.startsWith('JobProcessed'))).to.have.length(100);
    expect(h.time.sleeps.filter((ms) => ms > 59_000 && ms <= 60_000).length).to.be.at.most(3);
  });
});

describe('PopBudget: pops bounded by payload bytes (finding 11)', () => {
  const MB = 1024 * 1024;

  it('takes one job first, when nothing is known of the payloads, then as many as the memory left holds', () => {
    let used = 20 * MB;
    const budget = new PopBudget(128 * MB, () => used);
    expect(budget.limit(10, 0)).to.equal(1);
    expect(budget.limit(10, 1)).to.equal(0); // one in flight, still nothing known: wait for it
    budget.record([10 * MB]);
    used = 60 * MB; // 68 MB left, 40 MB a job
    expect(budget.limit(10, 1)).to.equal(1);
    used = 100 * MB;
    expect(budget.limit(10, 1)).to.equal(0);
    expect(budget.limit(10, 0)).to.equal(1); // nothing in flight: one job, whatever its size, as Laravel
    used = 130 * MB;
    expect(budget.limit(10, 0)).to.equal(0); // at the limit: nothing more
  });

  it('pops never take more jobs than the memory left holds, at concurrency 20', async () => {
    // Memory in use modelled from the events (a base plus four copies of every payload popped and not yet
    // attempted), so the count does not depend on when V8 collects garbage. 2 MB hold two such jobs, not three.
    const payload = 'x'.repeat(200_000);
    const h = harness({ options: { concurrency: 20, stopWhenEmpty: true, memory: 2, timeout: 0 }, popMany: true });
    const popMany = h.queue.popMany!;
    // Each pop takes a real moment, as a round trip to Redis does.
    h.queue.popMany = async (queue, index, count) => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      return popMany(queue, index, count);
    };
    for (let i = 0; i < 10; i++) h.queue.push('default', { data: payload });
    let held = 0;
    let mostHeld = 0;
    let bytes = 0;
    h.worker.on('JobPopped', (e) => {
      mostHeld = Math.max(mostHeld, ++held);
      bytes = e.job.getRawBody().length;
    });
    h.worker.on('JobAttempted', () => held--);
    Object.defineProperty(h, 'memoryBytes', { get: () => 300_000 + held * 4 * bytes });
    h.handler = async (job) => {
      await new Promise((resolve) => setTimeout(resolve, 10));
      await job.delete();
    };
    expect(await h.worker.daemon('default')).to.deep.equal({ status: 0, reason: 'empty' });
    expect(h.jobEvents().filter((e) => e.startsWith('JobProcessed'))).to.have.length(10);
    expect(mostHeld, 'jobs held at once').to.be.within(1, 2);
  });

  it('counts only the slots with small payloads or no limit, and forgets a big payload after a few small pops', () => {
    const budget = new PopBudget(128 * MB, () => 20 * MB);
    budget.record([2000]);
    expect(budget.limit(25, 10)).to.equal(25);
    budget.record([40 * MB]);
    expect(budget.limit(25, 10)).to.equal(0);
    for (let i = 0; i < 20; i++) budget.record([2000]);
    expect(budget.limit(25, 10)).to.equal(25);
    expect(new PopBudget(0, () => 10_000 * MB).limit(25, 10)).to.equal(25);
  });
});

describe('Worker options of the lifecycle', () => {
  it('timeoutGraceSeconds defaults to 5 and onHungHandler to stop; bad values are refused naming the option', () => {
    expect(resolveWorkerOptions()).to.include({ timeoutGraceSeconds: 5, onHungHandler: 'stop' });
    expect(() => resolveWorkerOptions({ timeoutGraceSeconds: -1 })).to.throw(InvalidOptionError, /timeoutGraceSeconds/);
    expect(() => resolveWorkerOptions({ onHungHandler: 'exit' as 'stop' })).to.throw(
      InvalidOptionError,
      /onHungHandler/,
    );
  });

  it('retryAfter as Laravel means it, checked as RedisQueue checks it: whole seconds >= 0 or null', () => {
    expect(resolveWorkerOptions({ retryAfter: 0 }).retryAfter).to.equal(0);
    expect(resolveWorkerOptions({ retryAfter: null }).retryAfter).to.equal(null);
    expect(() => resolveWorkerOptions({ retryAfter: 1.5 })).to.throw(
      InvalidOptionError,
      /retryAfter: must be a whole number of seconds >= 0, or null/,
    );
    expect(() => resolveWorkerOptions({ retryAfter: -1 })).to.throw(InvalidOptionError, /retryAfter/);
    expect(() => resolveWorkerOptions({ retryAfter: 0, heartbeat: 1 })).to.throw(InvalidOptionError, /heartbeat/);
  });
});
