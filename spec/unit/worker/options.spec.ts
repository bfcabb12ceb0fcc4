import { expect } from 'chai';
import { InvalidOptionError } from '../../../lib/errors';
import { DEFAULT_WORKER_OPTIONS, resolveWorkerOptions } from '../../../lib/WorkerOptions';

describe('WorkerOptions', () => {
  it("has queue:work's defaults", () => {
    expect(DEFAULT_WORKER_OPTIONS).to.include({
      name: 'default',
      backoff: 0,
      maxTries: 1,
      timeout: 60,
      sleep: 3,
      rest: 0,
      memory: 128,
      maxJobs: 0,
      maxTime: 0,
      stopWhenEmpty: false,
      force: false,
      concurrency: 1,
      rotateQueues: false,
      heartbeat: false,
    });
    expect(Object.isFrozen(DEFAULT_WORKER_OPTIONS)).to.equal(true);
  });

  it('merges over the defaults and freezes the result', () => {
    const options = resolveWorkerOptions({ maxTries: 3, sleep: 0.5, backoff: '1,5,10', timeout: undefined });
    expect(options).to.include({ maxTries: 3, sleep: 0.5, backoff: '1,5,10', timeout: 60 });
    expect(Object.isFrozen(options)).to.equal(true);
  });

  it('accepts what Laravel accepts: tries 0 (unlimited) and negative tries', () => {
    expect(resolveWorkerOptions({ maxTries: 0 }).maxTries).to.equal(0);
    expect(resolveWorkerOptions({ maxTries: -1 }).maxTries).to.equal(-1);
  });

  const bad: [Record<string, unknown>, string][] = [
    [{ maxTries: 1.5 }, 'maxTries'],
    [{ timeout: -1 }, 'timeout'],
    [{ sleep: Number.NaN }, 'sleep'],
    [{ concurrency: 0 }, 'concurrency'],
    [{ maxJobs: -2 }, 'maxJobs'],
    [{ backoff: -1 }, 'backoff'],
    [{ stopWhenEmpty: 'yes' }, 'stopWhenEmpty'],
    [{ heartbeat: 0 }, 'heartbeat'],
    [{ heartbeat: 30 }, 'retryAfter'],
    [{ heartbeat: 90, retryAfter: 90 }, 'heartbeat'],
    [{ onTimeout: 'kill' }, 'onTimeout'],
    [{ tries: 3 }, 'tries'],
  ];
  for (const [partial, option] of bad) {
    it(`rejects ${JSON.stringify(partial)} naming ${option}`, () => {
      let error: unknown;
      try {
        resolveWorkerOptions(partial as never);
      } catch (e) {
        error = e;
      }
      expect(error).to.be.instanceOf(InvalidOptionError);
      expect((error as InvalidOptionError).option).to.equal(option);
    });
  }
});
