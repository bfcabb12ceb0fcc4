// Max attempts, retryUntil, maxExceptions and backoff as the worker applies them (Laravel
// `Worker::handleJobException`, `markJobAsFailedIfWillExceedMaxAttempts`, `calculateBackoff`, 13.x).
import { expect } from 'chai';
import { MaxAttemptsExceededError } from '../../../lib/errors';
import { harness, succeed, throwing, type Handler } from './harness';

// A handler that records (attempt, time) and throws until `failures` attempts have thrown.
function flaky(log: [number, number][], now: () => number, failures = Infinity): Handler {
  return async (job) => {
    log.push([job.attempts(), now()]);
    if (log.length <= failures) throw new Error(`boom ${job.attempts()}`);
    await job.delete();
  };
}

describe('Worker: max attempts', () => {
  it('fails on the first exception with the default tries=1, recording the original body', async () => {
    const h = harness({ handler: throwing('boom') });
    const raw = h.queue.push('default');
    await h.worker.runNextJob('default');
    expect(h.jobEvents()).to.deep.equal([
      'JobPopped id-1',
      'JobProcessing id-1',
      'JobFailed id-1',
      'JobExceptionOccurred id-1',
      'JobAttempted id-1',
    ]);
    expect(h.failer.records).to.have.length(1);
    const record = h.failer.records[0];
    expect(record).to.include({ connection: 'redis', queue: 'default', payload: raw });
    expect(JSON.parse(record.payload).attempts).to.equal(0); // the original string, not the reserved one
    expect(record.exception.message).to.equal('boom');
    expect(h.failedHooks.map((f) => f.error?.message)).to.deep.equal(['boom']);
    expect(h.queue.reserved('default')).to.deep.equal([]);
    expect(h.queue.delayed('default')).to.deep.equal([]);
    expect(h.queue.log).to.not.include.members(['release:default:0']);
  });

  it('with tries=3 releases twice with the backoff, then fails with the job’s own exception', async () => {
    const runs: [number, number][] = [];
    const h = harness({ options: { maxTries: 3, backoff: '5,10', maxJobs: 3 } });
    h.handler = flaky(runs, () => h.time.now());
    h.queue.push('default');
    const start = h.time.now();
    const result = await h.worker.daemon('default');
    expect(result).to.deep.equal({ status: 0, reason: 'max_jobs' });
    expect(runs.map(([attempt]) => attempt)).to.deep.equal([1, 2, 3]);
    // Released at now+5, then now+10; the idle loop sleeps 3 s, so a retry starts at the first pass after.
    expect(runs[1][1] - runs[0][1]).to.be.within(5, 8);
    expect(runs[2][1] - runs[1][1]).to.be.within(10, 13);
    expect(runs[0][1]).to.equal(start);
    expect(h.queue.log.filter((l) => l.startsWith('release'))).to.deep.equal([
      'release:default:5',
      'release:default:10',
    ]);
    expect(h.failer.records.map((r) => r.exception.message)).to.deep.equal(['boom 3']);
    expect(JSON.parse(h.failer.records[0].payload).attempts).to.equal(2);
  });

  it('keeps the incremented attempts in the released string', async () => {
    const h = harness({ options: { maxTries: 3, backoff: 30 }, handler: throwing() });
    h.queue.push('default');
    await h.worker.runNextJob('default');
    const [[payload, due]] = h.queue.delayed('default');
    expect(JSON.parse(payload).attempts).to.equal(1);
    expect(due).to.equal(h.time.now() + 30);
    expect(h.events).to.include('JobReleasedAfterException id-1');
  });

  it('treats maxTries 0 as unlimited', async () => {
    const runs: [number, number][] = [];
    const h = harness({ options: { maxTries: 0, maxJobs: 6 } });
    h.handler = flaky(runs, () => h.time.now(), 5);
    h.queue.push('default');
    await h.worker.daemon('default');
    expect(runs.map(([a]) => a)).to.deep.equal([1, 2, 3, 4, 5, 6]);
    expect(h.failer.records).to.deep.equal([]);
    expect(h.queue.reserved('default')).to.deep.equal([]);
  });

  it('lets the payload maxTries beat the option, both ways', async () => {
    const fewer = harness({ options: { maxTries: 5, maxJobs: 5, stopWhenEmpty: true }, handler: throwing() });
    fewer.queue.push('default', { maxTries: 2 });
    await fewer.worker.daemon('default');
    expect(fewer.failer.records).to.have.length(1);
    expect(fewer.events.filter((e) => e.startsWith('JobProcessing'))).to.have.length(2);

    const unlimited = harness({ options: { maxTries: 1, maxJobs: 4 }, handler: throwing() });
    unlimited.queue.push('default', { maxTries: 0 });
    await unlimited.worker.daemon('default');
    expect(unlimited.failer.records).to.deep.equal([]);
    expect(unlimited.events.filter((e) => e.startsWith('JobReleasedAfterException'))).to.have.length(4);
  });

  for (const [label, setup] of [
    ['option', { options: { maxTries: -1 } }],
    ['payload', { payload: { maxTries: -1 } }],
  ] as const) {
    it(`fails a negative maxTries (${label}) before its first run`, async () => {
      let ran = false;
      const h = harness({ ...('options' in setup ? { options: setup.options } : {}) });
      h.handler = async () => {
        ran = true;
      };
      h.queue.push('default', 'payload' in setup ? setup.payload : {});
      await h.worker.runNextJob('default');
      expect(ran).to.equal(false);
      expect(h.failer.records[0].exception).to.be.instanceOf(MaxAttemptsExceededError);
    });
  }

  it('fails a job that already used its tries BEFORE running it, with MaxAttemptsExceededError', async () => {
    let ran = false;
    const h = harness();
    h.handler = async () => {
      ran = true;
    };
    h.queue.push('default', { maxTries: 3, attempts: 3, displayName: 'App\\Jobs\\SendMail' });
    await h.worker.runNextJob('default');
    expect(ran).to.equal(false);
    expect(h.jobEvents()).to.deep.equal([
      'JobPopped id-1',
      'JobProcessing id-1',
      'JobFailed id-1',
      'JobExceptionOccurred id-1',
      'JobAttempted id-1',
    ]);
    const { exception } = h.failer.records[0];
    expect(exception).to.be.instanceOf(MaxAttemptsExceededError);
    expect(exception.message).to.equal('App\\Jobs\\SendMail has been attempted too many times.');
    expect(h.failedHooks[0].error).to.equal(exception);
    expect(h.errors).to.deep.equal([exception]);
  });

  it('runs attempt == maxTries, and a job left reserved comes back and then fails as already exceeded', async () => {
    // A string job that never deletes itself stays reserved, returns after retry_after as attempt 2.
    const h = harness({ options: { maxJobs: 2 }, retryAfter: 90 });
    const attempts: number[] = [];
    h.handler = async (job) => {
      attempts.push(job.attempts());
    };
    h.queue.push('default', { job: 'App\\Handlers\\Raw@handle' });
    await h.worker.daemon('default');
    expect(attempts).to.deep.equal([1]);
    expect(h.jobEvents().slice(0, 4)).to.deep.equal([
      'JobPopped id-1',
      'JobProcessing id-1',
      'JobProcessed id-1',
      'JobAttempted id-1',
    ]);
    expect(h.failer.records[0].exception).to.be.instanceOf(MaxAttemptsExceededError);
    expect(JSON.parse(h.failer.records[0].payload).attempts).to.equal(1);
  });

  it('does not release a job that released itself before throwing', async () => {
    const h = harness({ options: { maxTries: 3 } });
    h.handler = async (job) => {
      await job.release(42);
      throw new Error('after release');
    };
    h.queue.push('default');
    await h.worker.runNextJob('default');
    expect(h.queue.log.filter((l) => l.startsWith('release'))).to.deep.equal(['release:default:42']);
    expect(h.events).to.not.include('JobReleasedAfterException id-1');
  });
});

describe('Worker: retryUntil', () => {
  it('ignores maxTries while now <= retryUntil', async () => {
    const h = harness({ handler: throwing() });
    h.queue.push('default', { maxTries: 1, attempts: 7, retryUntil: h.time.now() + 60 });
    await h.worker.runNextJob('default');
    expect(h.failer.records).to.deep.equal([]);
    expect(h.events).to.include('JobReleasedAfterException id-1');
  });

  it('lets a job start at retryUntil == now, but an exception then fails it', async () => {
    const h = harness({ handler: throwing('late') });
    h.queue.push('default', { retryUntil: h.time.now(), maxTries: 10 });
    await h.worker.runNextJob('default');
    expect(h.failer.records.map((r) => r.exception.message)).to.deep.equal(['late']);
  });

  it('fails before running once retryUntil has passed', async () => {
    let ran = false;
    const h = harness();
    h.handler = async () => {
      ran = true;
    };
    h.queue.push('default', { retryUntil: h.time.now() - 1, maxTries: 0 });
    await h.worker.runNextJob('default');
    expect(ran).to.equal(false);
    expect(h.failer.records[0].exception).to.be.instanceOf(MaxAttemptsExceededError);
  });
});

describe('Worker: maxExceptions', () => {
  it('counts exceptions in job-exceptions:{uuid} (TTL 86400) and fails at the limit, forgetting the key', async () => {
    const h = harness({ options: { maxJobs: 2 }, handler: throwing() });
    h.queue.push('default', { uuid: 'u-1', maxTries: 10, maxExceptions: 2 });
    await h.worker.daemon('default');
    const counter = h.cache.calls.filter((c) => c.includes('job-exceptions'));
    expect(counter).to.deep.equal([
      'get job-exceptions:u-1',
      'put job-exceptions:u-1 0 86400',
      'increment job-exceptions:u-1',
      'get job-exceptions:u-1',
      'increment job-exceptions:u-1',
      'forget job-exceptions:u-1',
    ]);
    expect(h.failer.records).to.have.length(1);
    expect(await h.cache.store.get('job-exceptions:u-1')).to.equal(null);
  });

  it('keeps the day-long TTL on the counter between attempts', async () => {
    const h = harness({ handler: throwing() });
    h.queue.push('default', { uuid: 'u-2', maxTries: 10, maxExceptions: 3 });
    await h.worker.runNextJob('default');
    expect(await h.cache.store.get('job-exceptions:u-2')).to.equal(1);
    h.time.clock.advance(86_399);
    expect(await h.cache.store.get('job-exceptions:u-2')).to.equal(1);
    h.time.clock.advance(1);
    expect(await h.cache.store.get('job-exceptions:u-2')).to.equal(null);
  });

  it('re-puts 0 when the counter reads as falsy (0)', async () => {
    const h = harness({ handler: throwing() });
    await h.cache.store.forever('job-exceptions:u-3', 0);
    h.queue.push('default', { uuid: 'u-3', maxTries: 10, maxExceptions: 3 });
    await h.worker.runNextJob('default');
    expect(h.cache.calls).to.include('put job-exceptions:u-3 0 86400');
  });

  it('still increments after maxTries already failed the job', async () => {
    const h = harness({ handler: throwing() });
    h.queue.push('default', { uuid: 'u-4', maxExceptions: 5 });
    await h.worker.runNextJob('default');
    expect(h.failer.records).to.have.length(1);
    expect(await h.cache.store.get('job-exceptions:u-4')).to.equal(1);
  });

  it('is skipped without a cache, or without a uuid', async () => {
    const noCache = harness({ cache: false, handler: throwing() });
    noCache.queue.push('default', { uuid: 'u-5', maxTries: 10, maxExceptions: 1 });
    await noCache.worker.runNextJob('default');
    expect(noCache.failer.records).to.deep.equal([]);

    const noUuid = harness({ handler: throwing() });
    noUuid.queue.push('default', { uuid: null, maxTries: 10, maxExceptions: 1 });
    await noUuid.worker.runNextJob('default');
    expect(noUuid.failer.records).to.deep.equal([]);
    expect(noUuid.cache.calls.filter((c) => c.includes('job-exceptions'))).to.deep.equal([]);
  });
});

describe('Worker: backoff on release', () => {
  const cases: [string, Record<string, unknown>, Record<string, unknown>, number[]][] = [
    ['the payload backoff per attempt, the last repeating', { backoff: '1,5' }, {}, [1, 5, 5]],
    ['the option when the payload has none', {}, { backoff: '2,4' }, [2, 4, 4]],
    ['the payload delay (12.11+) before the option', { delay: 15 }, { backoff: 3 }, [15, 15, 15]],
    ['PHP int parsing', { backoff: ' 7,x' }, {}, [7, 0, 0]],
  ];
  for (const [label, payload, options, expected] of cases) {
    it(`uses ${label}`, async () => {
      const h = harness({ options: { maxTries: 0, maxJobs: 3, ...options }, handler: throwing() });
      h.queue.push('default', payload);
      await h.worker.daemon('default');
      expect(h.queue.log.filter((l) => l.startsWith('release')).map((l) => Number(l.split(':')[2]))).to.deep.equal(
        expected,
      );
    });
  }

  it('a succeeding job is deleted and never released', async () => {
    const h = harness({ handler: succeed });
    h.queue.push('default');
    await h.worker.runNextJob('default');
    expect(h.queue.log).to.deep.equal(['pop:default', 'delete:default']);
  });
});
