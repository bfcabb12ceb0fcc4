// The rules every attempt keeps, whatever else happens in it: its failure is recorded (and its failed hook
// and JobFailed run) once; it is fenced, with or without a timeout; and a handler that hangs makes the
// worker end with status 1 even when a stop came first.
import { expect } from 'chai';
import { MaxAttemptsExceededError } from '../../../lib/errors';
import type { FakeJob } from '../../support/fakeQueue';
import { harness, type Handler } from './harness';

const never: Handler = () => new Promise<void>(() => undefined);
const untilAborted: Handler = (_job, signal) =>
  new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true }));

describe('Worker: a failure is recorded once per attempt', () => {
  // A failed-job store that takes 2 s (virtual) to answer, with a 1 s timeout: the timeout fires while
  // the first failure is still being recorded.
  function slowStore(h: ReturnType<typeof harness>): void {
    const log = h.failer.log.bind(h.failer);
    h.failer.log = async (...args) => {
      await h.time.sleep(2000);
      return log(...args);
    };
  }

  it('a job that already exceeded its tries and times out while its failure is recorded: one record, hook and JobFailed', async () => {
    const h = harness({ options: { maxTries: 1, timeout: 1, maxJobs: 1 }, handler: never });
    slowStore(h);
    h.queue.push('default', { attempts: 1 });
    expect(await h.worker.daemon('default')).to.deep.equal({ status: 0, reason: 'max_jobs' });
    expect(h.failer.records.map((r) => r.exception.constructor)).to.deep.equal([MaxAttemptsExceededError]);
    expect(h.failedHooks).to.have.length(1);
    expect(h.events.filter((e) => e.startsWith('JobFailed'))).to.deep.equal(['JobFailed id-1']);
    expect(h.queue.reserved('default')).to.deep.equal([]);
  });

  it('a handler that calls fail() and outlives its timeout while the failure is recorded: one record, hook and JobFailed', async () => {
    const h = harness({ options: { maxTries: 1, timeout: 1, maxJobs: 1 } });
    slowStore(h);
    h.handler = async (job, signal) => {
      await h.worker.failJob(job, new Error('given up'));
      await untilAborted(job, signal).catch(() => undefined);
    };
    h.queue.push('default');
    await h.worker.daemon('default');
    expect(h.failer.records.map((r) => r.exception.message)).to.deep.equal(['given up']);
    expect(h.failedHooks).to.have.length(1);
    expect(h.events.filter((e) => e.startsWith('JobFailed'))).to.deep.equal(['JobFailed id-1']);
  });

  it('a failure neither the store nor Redis kept (the job stays reserved) is not failed again by the timeout', async () => {
    const h = harness({ options: { maxTries: 1, timeout: 1, maxJobs: 1 } });
    h.failer.log = () => Promise.reject(new Error('store down'));
    h.handler = async (job, signal) => {
      await h.worker.failJob(job, new Error('given up'));
      await untilAborted(job, signal).catch(() => undefined);
    };
    h.queue.push('default');
    await h.worker.daemon('default');
    expect(h.failedHooks.map((f) => f.error?.message)).to.deep.equal(['given up']);
    expect(h.events.filter((e) => e.startsWith('JobFailed'))).to.deep.equal(['JobFailed id-1']);
    expect(h.errors.filter((e) => e.name === 'FailedJobNotRecordedError')).to.have.length(1);
    expect(h.queue.reserved('default')).to.have.length(1);
  });
});

describe('Worker: every attempt is fenced, whatever its timeout', () => {
  // A handler that keeps its job and releases it after it returned (a stray callback).
  function lateRelease(h: ReturnType<typeof harness>): { done: Promise<void> } {
    let late!: () => void;
    const done = new Promise<void>((resolve) => (late = resolve));
    h.handler = async (job: FakeJob) => {
      await job.delete();
      setImmediate(() => void job.release(0).then(late));
    };
    return { done };
  }

  it('timeout 0: a release after the handler returned is refused and the finished job does not come back', async () => {
    const h = harness({ options: { timeout: 0, maxJobs: 1 } });
    const { done } = lateRelease(h);
    const refused: string[] = [];
    h.worker.on('JobActionRefused', (e) => refused.push(`${e.action} ${e.state}`));
    h.queue.push('default');
    await h.worker.daemon('default');
    await done;
    expect(refused).to.deep.equal(['release processed']);
    expect(h.queue.delayed('default')).to.deep.equal([]);
    expect(h.queue.log.filter((l) => !l.startsWith('pop'))).to.deep.equal(['delete:default']);
  });

  it('runNextJob (--once): a release after the handler returned is refused', async () => {
    const h = harness();
    const { done } = lateRelease(h);
    h.queue.push('default');
    await h.worker.runNextJob('default');
    await done;
    expect(h.queue.delayed('default')).to.deep.equal([]);
    expect(h.errors.map((e) => e.name)).to.deep.equal(['AttemptOverError']);
  });
});

describe('Worker: a hung handler ends the worker with status 1 whatever stop came first', () => {
  it('a stop (SIGTERM) while a handler runs, which then hangs past timeout + grace: status 1, timed_out', async () => {
    const h = harness({ options: { maxTries: 3, timeout: 10, shutdownGraceSeconds: 0 }, handler: never });
    h.worker.on('JobProcessing', () => h.worker.stop());
    h.queue.push('default');
    expect(await h.worker.daemon('default')).to.deep.equal({ status: 1, reason: 'timed_out' });
    expect(h.errors.map((e) => e.name)).to.include('HungHandlerError');
  });

  it('maxTime reached while a handler runs, which then hangs past timeout + grace: status 1, timed_out', async () => {
    const h = harness({ options: { maxTries: 3, timeout: 10, maxTime: 5, shutdownGraceSeconds: 0 }, handler: never });
    h.queue.push('default');
    let stopping: unknown;
    h.worker.on('WorkerStopping', (e) => (stopping = { status: e.status, reason: e.reason }));
    expect(await h.worker.daemon('default')).to.deep.equal({ status: 1, reason: 'timed_out' });
    expect(stopping).to.deep.equal({ status: 1, reason: 'timed_out' });
  });
});
