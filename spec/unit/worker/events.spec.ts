// Event order (Laravel `Illuminate\Queue\Events`, 13.x), the `error` event, and failure bookkeeping
// (`Job::fail`).
import { expect } from 'chai';
import { RedisUnavailableError } from '../../../lib/errors';
import { TypedEmitter, type WorkerEvents } from '../../../lib/events';
import { Worker } from '../../../lib/Worker';
import { FakeJob, FakeQueue, tick, VirtualTime } from '../../support/fakeQueue';
import { harness, throwing } from './harness';

describe('Worker: event order', () => {
  it('success: popping, popped, processing, processed, attempted, then the next pass', async () => {
    const h = harness({ options: { stopWhenEmpty: true } });
    h.queue.push('default');
    const result = await h.worker.daemon('default');
    expect(result).to.deep.equal({ status: 0, reason: 'empty' });
    expect(h.events).to.deep.equal([
      'WorkerStarting',
      'Looping',
      'JobPopping',
      'JobPopped id-1',
      'JobProcessing id-1',
      'JobProcessed id-1',
      'JobAttempted id-1',
      'Looping',
      'JobPopping',
      'WorkerIdle',
      'WorkerStopping',
    ]);
  });

  it('exception, retried: processing, exception occurred, released after exception, attempted', async () => {
    const h = harness({ options: { maxTries: 2 }, handler: throwing() });
    h.queue.push('default');
    await h.worker.runNextJob('default');
    expect(h.jobEvents()).to.deep.equal([
      'JobPopped id-1',
      'JobProcessing id-1',
      'JobExceptionOccurred id-1',
      'JobReleasedAfterException id-1',
      'JobAttempted id-1',
    ]);
  });

  it('exception, final: the failed hook runs before JobFailed, which comes before JobExceptionOccurred', async () => {
    const h = harness({ handler: throwing() });
    h.worker.on('JobFailed', () => h.events.push(`hooks so far: ${h.failedHooks.length}`));
    h.queue.push('default');
    await h.worker.runNextJob('default');
    expect(h.jobEvents()).to.deep.equal([
      'JobPopped id-1',
      'JobProcessing id-1',
      'JobFailed id-1',
      'JobExceptionOccurred id-1',
      'JobAttempted id-1',
    ]);
    expect(h.events).to.include('hooks so far: 1');
  });

  it('JobReleasedAfterException carries the backoff and the exception; JobAttempted the exception or null', async () => {
    const h = harness({ options: { maxTries: 2, backoff: 9 }, handler: throwing('x') });
    const seen: unknown[] = [];
    h.worker.on('JobReleasedAfterException', (e) => seen.push([e.backoff, e.exception.message]));
    h.worker.on('JobAttempted', (e) => seen.push(e.exception?.message ?? null));
    h.queue.push('default');
    await h.worker.runNextJob('default');
    h.handler = async (job) => job.delete();
    h.time.clock.advance(9);
    await h.worker.runNextJob('default');
    expect(seen).to.deep.equal([[9, 'x'], 'x', null]);
  });

  it('a job deleted by a JobProcessing listener is reported processed without running', async () => {
    const h = harness();
    let ran = false;
    h.handler = async () => {
      ran = true;
    };
    h.worker.on('JobProcessing', ({ job }) => void job.delete());
    h.queue.push('default');
    await h.worker.runNextJob('default');
    expect(ran).to.equal(false);
    expect(h.jobEvents()).to.deep.equal([
      'JobPopped id-1',
      'JobProcessing id-1',
      'JobProcessed id-1',
      'JobAttempted id-1',
    ]);
  });
});

describe('Worker: the error event', () => {
  it('carries a throwing pop; the worker sleeps 1 s and carries on', async () => {
    const h = harness({ options: { maxJobs: 1 } });
    h.queue.popErrors.push(new Error('READONLY You can not write against a read only replica.'));
    h.queue.push('default');
    const result = await h.worker.daemon('default');
    expect(result.reason).to.equal('max_jobs');
    expect(h.errors.map((e) => e.message)).to.deep.equal(['READONLY You can not write against a read only replica.']);
    expect(h.time.sleeps.slice(0, 2)).to.deep.equal([1000, 3000]); // getNextJob's second, then --sleep
  });

  it('after a pop that waited its second for a lost connection (RedisUnavailableError), tries again without sleeping another', async () => {
    // The wait for the connection was the breath: a second sleep would let a worker resume up to 1.5 s
    // after Redis is back (reconnect delay, then the sleep begun just before), not within a second.
    const h = harness({ options: { maxJobs: 1 } });
    h.queue.popErrors.push(new RedisUnavailableError(1, 'the pop from queues:default'));
    h.queue.push('default');
    const result = await h.worker.daemon('default');
    expect(result.reason).to.equal('max_jobs');
    expect(h.errors.map((e) => e.name)).to.deep.equal(['RedisUnavailableError']);
    expect(h.time.sleeps.slice(0, 1)).to.deep.equal([3000]); // only --sleep, after the job
  });

  it('stops with lost_connection, status 1, when a pop error reads like one', async () => {
    const h = harness();
    h.queue.popErrors.push(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6379'), { code: 'ECONNREFUSED' }));
    const result = await h.worker.daemon('default');
    // non-zero, unlike Laravel's 0: a supervisor restarting only failed workers must restart this one (issue 21)
    expect(result).to.deep.equal({ status: 1, reason: 'lost_connection' });
  });

  it('carries job exceptions too (Laravel reports every one)', async () => {
    const h = harness({ options: { maxTries: 3 }, handler: throwing('job broke') });
    h.queue.push('default');
    await h.worker.runNextJob('default');
    expect(h.errors.map((e) => e.message)).to.deep.equal(['job broke']);
  });

  it('never crashes the process when nobody listens', async () => {
    const time = new VirtualTime();
    const queue = new FakeQueue(time);
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const worker = new Worker<FakeJob>(
        queue,
        { run: (job, attempt) => throwing()(job, attempt.signal), failed: () => Promise.reject(new Error('hook')) },
        { maxJobs: 2 },
        { clock: time.clock, sleep: time.sleep, memoryUsage: () => 0 },
      );
      worker.on('JobProcessing', () => {
        throw new Error('listener');
      });
      queue.popErrors.push(new Error('pop'));
      queue.push('default');
      queue.push('default');
      const result = await worker.daemon('default');
      await tick();
      expect(result.reason).to.equal('max_jobs');
      expect(unhandled).to.deep.equal([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  it('reports listener failures (thrown or rejected) without changing the job’s fate', async () => {
    const h = harness();
    h.worker.on('JobProcessing', () => {
      throw new Error('sync listener');
    });
    h.worker.on('JobProcessed', async () => {
      throw new Error('async listener');
    });
    h.queue.push('default');
    await h.worker.runNextJob('default');
    await tick();
    expect(h.errors.map((e) => e.message)).to.deep.equal(['sync listener', 'async listener']);
    expect(h.queue.log).to.include('delete:default');
    expect(h.failer.records).to.deep.equal([]);
  });
});

describe('Worker: failing a job', () => {
  it('still fires JobFailed and writes the record when the failed hook throws', async () => {
    const h = harness({ handler: throwing('original') });
    const worker = h.worker as unknown as { runner: { failed: () => never } };
    worker.runner.failed = () => {
      throw new Error('hook broke');
    };
    h.queue.push('default');
    await h.worker.runNextJob('default');
    expect(h.events).to.include('JobFailed id-1');
    expect(h.failer.records.map((r) => r.exception.message)).to.deep.equal(['original']);
    expect(h.errors.map((e) => e.message)).to.have.members(['hook broke', 'original']);
  });

  it('reports a failing failed-job store and carries on', async () => {
    const h = harness({ handler: throwing(), options: { stopWhenEmpty: true } });
    h.failer.log = () => Promise.reject(new Error('store down'));
    h.queue.push('default');
    h.queue.push('default');
    const result = await h.worker.daemon('default');
    expect(result.reason).to.equal('empty');
    expect(h.events.filter((e) => e.startsWith('JobFailed'))).to.have.length(2);
    expect(h.errors.map((e) => e.message)).to.include('store down');
  });

  it('failJob without an exception records a ManuallyFailedError with an empty message', async () => {
    const h = harness();
    h.handler = async (job) => h.worker.failJob(job);
    h.queue.push('default');
    await h.worker.runNextJob('default');
    expect(h.failer.records[0].exception.name).to.equal('ManuallyFailedError');
    expect(h.failer.records[0].exception.message).to.equal('');
    // A job that failed itself without throwing still counts as processed (Laravel fires JobProcessed).
    expect(h.jobEvents()).to.deep.equal([
      'JobPopped id-1',
      'JobProcessing id-1',
      'JobFailed id-1',
      'JobProcessed id-1',
      'JobAttempted id-1',
    ]);
  });

  it('does nothing more for a job that is already deleted', async () => {
    const h = harness();
    h.handler = async (job) => {
      await job.delete();
      await h.worker.failJob(job, new Error('late'));
    };
    h.queue.push('default');
    await h.worker.runNextJob('default');
    expect(h.failer.records).to.deep.equal([]);
    expect(h.failedHooks).to.deep.equal([]);
    expect(h.events).to.not.include('JobFailed id-1');
  });
});

describe('TypedEmitter', () => {
  it('calls once-listeners once and drops errors nobody listens to', () => {
    const emitter = new TypedEmitter<Pick<WorkerEvents, 'error'> & { ping: number }>();
    const got: number[] = [];
    emitter.once('ping', (n) => got.push(n));
    emitter.emit('ping', 1);
    emitter.emit('ping', 2);
    expect(got).to.deep.equal([1]);
    expect(() => emitter.emit('error', new Error('nobody'))).to.not.throw();
    emitter.on('error', () => {
      throw new Error('error listener broke');
    });
    expect(() => emitter.emit('error', new Error('x'))).to.not.throw();
  });
});
