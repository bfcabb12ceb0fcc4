// Timeouts (Laravel `Worker::registerTimeoutHandler`, 13.x), the Node way: the signal aborts, the job is failed or left reserved exactly as
// Laravel leaves it, and the slot stays busy until the handler really settles.
import { expect } from 'chai';
import { MaxAttemptsExceededError, TimeoutExceededError } from '../../../lib/errors';
import { deferred, tick } from '../../support/fakeQueue';
import { harness, type Handler } from './harness';

// A handler that runs until its signal aborts, then rejects with the abort reason.
const untilAborted: Handler = (_job, signal) =>
  new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true }));

async function until(condition: () => boolean, rounds = 200): Promise<void> {
  for (let i = 0; i < rounds && !condition(); i++) await tick(1);
  expect(condition()).to.equal(true, 'condition never became true');
}

describe('Worker: timeouts', () => {
  it('aborts the signal, leaves the job reserved, and it is retried after retry_after with one more attempt', async () => {
    const h = harness({ options: { maxTries: 3, maxJobs: 2 }, retryAfter: 90 });
    const t0 = h.time.now();
    const seen: { attempt: number; at: number; signal: AbortSignal }[] = [];
    h.handler = async (job, signal) => {
      seen.push({ attempt: job.attempts(), at: h.time.now(), signal });
      if (job.attempts() === 1) return untilAborted(job, signal);
      await job.delete();
    };
    let reservedAtTimeout: [string, number][] = [];
    h.worker.on('JobTimedOut', (e) => {
      expect(e.timeout).to.equal(10);
      reservedAtTimeout = h.queue.reserved('default');
    });
    h.queue.push('default', { timeout: 10, displayName: 'App\\Jobs\\Slow' });
    await h.worker.daemon('default');

    expect(seen.map((s) => s.attempt)).to.deep.equal([1, 2]);
    expect(seen[0].signal.aborted).to.equal(true);
    expect(seen[0].signal.reason).to.be.instanceOf(TimeoutExceededError);
    expect(reservedAtTimeout.map(([p, until]) => [JSON.parse(p).attempts, until])).to.deep.equal([[1, t0 + 90]]);
    expect(seen[1].at).to.be.within(t0 + 90, t0 + 93);
    expect(h.failer.records).to.deep.equal([]);
    // Neither released nor deleted by the timed-out attempt; only attempt 2 deleted its own reservation.
    expect(h.queue.log.filter((l) => !l.startsWith('pop'))).to.deep.equal(['delete:default']);
    expect(
      h
        .jobEvents()
        .filter((e) => e.endsWith('id-1'))
        .slice(0, 4),
    ).to.deep.equal(['JobPopped id-1', 'JobProcessing id-1', 'JobTimedOut id-1', 'JobPopped id-1']);
    expect(h.errors.map((e) => e.message)).to.deep.equal(['App\\Jobs\\Slow has timed out.']);
  });

  it('fails the job with TimeoutExceededError when the timeout used its last try', async () => {
    const h = harness({ options: { maxTries: 2, maxJobs: 2 }, handler: untilAborted });
    h.queue.push('default', { timeout: 5 });
    await h.worker.daemon('default');
    expect(h.events.filter((e) => /JobTimedOut|JobFailed/.test(e))).to.deep.equal([
      'JobTimedOut id-1',
      'JobFailed id-1',
      'JobTimedOut id-1',
    ]);
    expect(h.failer.records).to.have.length(1);
    expect(h.failer.records[0].exception).to.be.instanceOf(TimeoutExceededError);
    expect(h.queue.reserved('default')).to.deep.equal([]);
  });

  it('a timed-out job that comes back past its retryUntil fails before running with MaxAttemptsExceededError', async () => {
    const h = harness({ options: { maxJobs: 2 }, retryAfter: 90 });
    let runs = 0;
    h.handler = (job, signal) => {
      runs++;
      return untilAborted(job, signal);
    };
    h.queue.push('default', { timeout: 10, retryUntil: h.time.now() + 50 });
    await h.worker.daemon('default');
    expect(runs).to.equal(1);
    expect(h.failer.records[0].exception).to.be.instanceOf(MaxAttemptsExceededError);
    expect(JSON.parse(h.failer.records[0].payload).attempts).to.equal(1);
  });

  it('with failOnTimeout fails at once, JobFailed before JobTimedOut', async () => {
    const h = harness({ options: { maxTries: 5, maxJobs: 1 }, handler: untilAborted });
    h.queue.push('default', { timeout: 3, failOnTimeout: true });
    await h.worker.daemon('default');
    expect(h.jobEvents()).to.deep.equal(['JobPopped id-1', 'JobProcessing id-1', 'JobFailed id-1', 'JobTimedOut id-1']);
    expect(h.failer.records[0].exception).to.be.instanceOf(TimeoutExceededError);
    expect(h.queue.reserved('default')).to.deep.equal([]);
  });

  it('counts the timeout against maxExceptions', async () => {
    const h = harness({ options: { maxTries: 5, maxJobs: 1 }, handler: untilAborted });
    h.queue.push('default', { timeout: 3, uuid: 'u-t', maxExceptions: 1 });
    await h.worker.daemon('default');
    expect(h.failer.records[0].exception).to.be.instanceOf(TimeoutExceededError);
    expect(h.cache.calls).to.include('forget job-exceptions:u-t');
  });

  it('keeps the slot busy until the handler settles, and fences what it does late', async () => {
    // onHungHandler 'continue': the handler settles only when the spec says so, long after the grace.
    const h = harness({ options: { maxTries: 3, stopWhenEmpty: true, onHungHandler: 'continue' } });
    const late = deferred();
    const started: string[] = [];
    h.handler = async (job) => {
      started.push(job.getJobId()!);
      if (job.getJobId() === 'a') {
        await late.promise; // ignores its signal
        await job.release(0); // too late: must not touch Redis
        await job.delete();
        return;
      }
      await job.delete();
    };
    h.queue.push('default', { id: 'a', timeout: 10 });
    h.queue.push('default', { id: 'b' });
    const done = h.worker.daemon('default');
    await until(() => h.events.includes('JobTimedOut a'));
    await tick(20);
    expect(started).to.deep.equal(['a']);
    late.resolve();
    const result = await done;
    expect(result.reason).to.equal('empty');
    expect(started).to.deep.equal(['a', 'b']);
    expect(h.queue.log.filter((l) => !l.startsWith('pop'))).to.deep.equal(['delete:default']); // b's only
    expect(h.queue.reserved('default').map(([p]) => JSON.parse(p).id)).to.deep.equal(['a']);
    expect(h.events.filter((e) => e.endsWith(' a'))).to.deep.equal(['JobPopped a', 'JobProcessing a', 'JobTimedOut a']);
  });

  it('reports a late exception but neither releases nor fires job events for it', async () => {
    const h = harness({ options: { maxTries: 3, maxJobs: 1 } });
    const late = deferred();
    h.handler = async () => {
      await late.promise;
      throw new Error('late failure');
    };
    h.queue.push('default', { timeout: 10 });
    const done = h.worker.daemon('default');
    await until(() => h.events.includes('JobTimedOut id-1'));
    late.resolve();
    await done;
    expect(h.errors.map((e) => e.message)).to.deep.equal(['App\\Jobs\\Example has timed out.', 'late failure']);
    expect(h.queue.log.filter((l) => l.startsWith('release'))).to.deep.equal([]);
    expect(h.events).to.not.include('JobExceptionOccurred id-1');
    expect(h.events).to.not.include('JobAttempted id-1');
  });

  it("onTimeout 'stop' ends the daemon like Laravel: status 1, reason timed_out, after JobTimedOut", async () => {
    const h = harness({ options: { maxTries: 3, onTimeout: 'stop' }, handler: untilAborted });
    h.queue.push('default', { timeout: 10 });
    const result = await h.worker.daemon('default');
    expect(result).to.deep.equal({ status: 1, reason: 'timed_out' });
    expect(h.events.slice(-2)).to.deep.equal(['JobTimedOut id-1', 'WorkerStopping']);
  });

  it('uses the payload timeout over the option, and 0 means no limit', async () => {
    const slow: Handler = async (job) => {
      await h.time.sleep(500_000);
      await job.delete();
    };
    const h = harness({ options: { timeout: 0, maxJobs: 1 }, handler: slow });
    h.queue.push('default');
    await h.worker.daemon('default');
    expect(h.events).to.not.include('JobTimedOut id-1');
    expect(h.queue.log).to.include('delete:default');

    const h2 = harness({ options: { timeout: 0, maxJobs: 1, maxTries: 2 }, handler: untilAborted });
    h2.queue.push('default', { timeout: 4 });
    const t0 = h2.time.now();
    let at = 0;
    h2.worker.on('JobTimedOut', () => (at = h2.time.now()));
    await h2.worker.daemon('default');
    expect(at - t0).to.equal(4);
  });

  it('defaults to the option timeout (60 s)', async () => {
    const h = harness({ options: { maxJobs: 1, maxTries: 2 }, handler: untilAborted });
    const t0 = h.time.now();
    let at = 0;
    h.worker.on('JobTimedOut', () => (at = h.time.now()));
    h.queue.push('default');
    await h.worker.daemon('default');
    expect(at - t0).to.equal(60);
  });
});
