// Stop conditions and their order (Laravel `Worker::stopIfNecessary`, 13.x), the restart and pause signals
// (`Worker::queueShouldRestart`, `getNextJob`), signals (`Worker::listenForSignals`), maintenance mode
// (`Worker::daemonShouldRun`) and `--once` (`Worker::runNextJob`).
import { expect } from 'chai';
import { pauseQueue, restartKey } from '../../../lib/cache/signals';
import { PREFETCH_FRESH_MS } from '../../../lib/worker/CacheSignals';
import { deferred, tick } from '../../support/fakeQueue';
import { harness, type HarnessOptions } from './harness';

const MB = 1024 * 1024;

// `jobs` jobs run back to back, each `jobMs` of virtual time; the handler of job `signalAfter` sends
// `signal` (a PHP command's write) halfway. startedLate(): the start times of the jobs that began more
// than PREFETCH_FRESH_MS (the README's bound) after the signal; it throws if no signal was sent.
function backToBack(
  h: ReturnType<typeof harness>,
  run: { jobs: number; jobMs: number; signalAfter: number },
  signal: () => unknown,
): { starts: number[]; startedLate(): number[] } {
  const starts: number[] = [];
  let signalledAt = Infinity;
  h.handler = async (job) => {
    starts.push(h.time.clock.nowMs());
    await h.time.sleep(run.jobMs);
    if (starts.length === run.signalAfter) {
      signalledAt = h.time.clock.nowMs();
      await signal();
    }
    await job.delete();
  };
  for (let i = 0; i < run.jobs; i++) h.queue.push('default');
  const startedLate = (): number[] => {
    if (signalledAt === Infinity) throw new Error(`fewer than ${run.signalAfter} jobs started: no signal was sent`);
    return starts.filter((at) => at - signalledAt > PREFETCH_FRESH_MS);
  };
  return { starts, startedLate };
}

describe('Worker: stop conditions', () => {
  it('stopWhenEmpty: status 0, reason empty', async () => {
    const h = harness({ options: { stopWhenEmpty: true } });
    expect(await h.worker.daemon('default')).to.deep.equal({ status: 0, reason: 'empty' });
  });

  it('maxJobs: stops after N jobs, leaving the rest queued', async () => {
    const h = harness({ options: { maxJobs: 2 } });
    for (let i = 0; i < 3; i++) h.queue.push('default');
    expect(await h.worker.daemon('default')).to.deep.equal({ status: 0, reason: 'max_jobs' });
    expect(h.queue.pending('default')).to.have.length(1);
  });

  it('maxTime: stops once the seconds have passed', async () => {
    const h = harness({ options: { maxTime: 10, sleep: 3 } });
    const t0 = h.time.now();
    expect(await h.worker.daemon('default')).to.deep.equal({ status: 0, reason: 'max_time' });
    expect(h.time.now() - t0).to.equal(12);
  });

  it('memory: status 12 once usage reaches the limit; 0 disables the check (12.54+)', async () => {
    const h = harness({ options: { memory: 128 }, memoryBytes: 128 * MB });
    expect(await h.worker.daemon('default')).to.deep.equal({ status: 12, reason: 'memory' });
    const off = harness({ options: { memory: 0, stopWhenEmpty: true }, memoryBytes: 4096 * MB });
    expect(await off.worker.daemon('default')).to.deep.equal({ status: 0, reason: 'empty' });
  });

  it('WorkerStopping carries status, reason, jobsProcessed and memory', async () => {
    const h = harness({ options: { maxJobs: 1 } });
    let stopping: unknown;
    h.worker.on('WorkerStopping', (e) => (stopping = { ...e, options: undefined }));
    h.queue.push('default');
    await h.worker.daemon('default');
    expect(stopping).to.deep.include({
      status: 0,
      reason: 'max_jobs',
      jobsProcessed: 1,
      lastJobProcessedAt: h.time.now(),
      memoryUsage: h.memoryBytes,
    });
  });

  describe('order: the first that holds wins', () => {
    const table: [string, HarnessOptions, (h: ReturnType<typeof harness>) => void, string][] = [
      [
        'lost_connection before interrupted',
        {},
        (h) => h.queue.popErrors.push(new Error('Connection lost')),
        'lost_connection',
      ],
      [
        'interrupted before memory',
        { memoryBytes: 500 * MB },
        (h) => h.worker.on('WorkerStarting', () => h.worker.stop()),
        'interrupted',
      ],
      [
        'memory before restart',
        { memoryBytes: 500 * MB },
        (h) => h.worker.on('Looping', () => void h.cache.store.forever(restartKey, 2)),
        'memory',
      ],
      [
        'restart before empty',
        { options: { stopWhenEmpty: true } },
        (h) => h.worker.on('Looping', () => void h.cache.store.forever(restartKey, 2)),
        'restart_signal',
      ],
      ['empty before max_time', { options: { stopWhenEmpty: true, maxTime: 1, sleep: 5 } }, () => undefined, 'empty'],
      [
        'max_time before max_jobs',
        { options: { maxTime: 1, maxJobs: 1 } },
        (h) => {
          h.queue.push('default');
          h.handler = async (job) => h.time.sleep(2000).then(() => job.delete());
        },
        'max_time',
      ],
    ];
    for (const [label, setup, arrange, reason] of table) {
      it(label, async () => {
        const h = harness(setup);
        await h.cache.store.forever(restartKey, 1);
        arrange(h);
        expect((await h.worker.daemon('default')).reason).to.equal(reason);
      });
    }
  });
});

describe('Worker: restart signal', () => {
  it('stops after the current job when queue:restart writes a new timestamp', async () => {
    const h = harness();
    await h.cache.store.forever(restartKey, 1767225000);
    h.handler = async (job) => {
      await h.cache.store.forever(restartKey, 1767225600);
      await job.delete();
    };
    h.queue.push('default');
    h.queue.push('default');
    expect(await h.worker.daemon('default')).to.deep.equal({ status: 0, reason: 'restart_signal' });
    expect(h.queue.pending('default')).to.have.length(1);
  });

  it('WorkerStopping says which restart values stopped it: the one at start (null: no key) and the new one', async () => {
    const appear = harness();
    let seen: unknown;
    appear.worker.on('WorkerStopping', (e) => (seen = e.restartSignal));
    appear.worker.on('Looping', () => void appear.cache.store.forever(restartKey, 5));
    await appear.worker.daemon('default');
    expect(seen).to.deep.equal({ atStart: null, now: 5 });

    const changed = harness();
    await changed.cache.store.forever(restartKey, 1767225000);
    changed.worker.on('WorkerStopping', (e) => (seen = e.restartSignal));
    changed.worker.on('Looping', () => void changed.cache.store.forget(restartKey));
    await changed.worker.daemon('default');
    expect(seen).to.deep.equal({ atStart: 1767225000, now: null });

    const other = harness({ options: { maxJobs: 1 } });
    other.worker.on('WorkerStopping', (e) => (seen = e));
    other.queue.push('default');
    await other.worker.daemon('default');
    expect(seen).not.to.have.property('restartSignal');
  });

  it('treats the key appearing as a restart, and loosely equal values as none', async () => {
    const appear = harness();
    appear.worker.on('Looping', () => void appear.cache.store.forever(restartKey, 5));
    expect((await appear.worker.daemon('default')).reason).to.equal('restart_signal');

    const same = harness({ options: { maxJobs: 1 } });
    await same.cache.store.forever(restartKey, 100);
    same.worker.on('Looping', () => void same.cache.store.forever(restartKey, '100.0'));
    same.queue.push('default');
    expect((await same.worker.daemon('default')).reason).to.equal('max_jobs');
  });

  it(`jobs back to back: queue:restart stops the worker within ${PREFETCH_FRESH_MS} ms, no job starting later`, async () => {
    const h = harness();
    const run = backToBack(h, { jobs: 100, jobMs: 7, signalAfter: 20 }, () =>
      h.cache.store.forever(restartKey, 1767225600),
    );
    expect((await h.worker.daemon('default')).reason).to.equal('restart_signal');
    expect(run.startedLate()).to.deep.equal([]);
    expect(run.starts.length).to.be.lessThan(100);
  });

  it('is not checked without a cache', async () => {
    const h = harness({ cache: false, options: { stopWhenEmpty: true } });
    expect((await h.worker.daemon('default')).reason).to.equal('empty');
    expect(h.cache.calls).to.deep.equal([]);
  });
});

describe('Worker: pausing', () => {
  it('skips a queue paused through the cache (12.40+) and takes the next one', async () => {
    const h = harness({ options: { stopWhenEmpty: true } });
    await pauseQueue(h.cache.store, 'redis', 'high'); // `true` forever, `b:1;` under Redis
    h.queue.push('high', { id: 'h' });
    h.queue.push('low', { id: 'l' });
    await h.worker.daemon('high,low');
    expect(h.events.filter((e) => e.startsWith('JobProcessing'))).to.deep.equal(['JobProcessing l']);
    expect(h.queue.pending('high')).to.have.length(1);
    expect(h.queue.log).to.not.include('pop:high');
  });

  it(`jobs back to back: a queue:pause holds the next pops within ${PREFETCH_FRESH_MS} ms, no job starting later`, async () => {
    const h = harness({ options: { stopWhenEmpty: true, maxTime: 2 } });
    const run = backToBack(h, { jobs: 100, jobMs: 7, signalAfter: 20 }, () =>
      pauseQueue(h.cache.store, 'redis', 'default'),
    );
    await h.worker.daemon('default');
    expect(run.startedLate()).to.deep.equal([]);
    expect(h.queue.pending('default').length).to.be.greaterThan(0);
  });

  it('pause() stops taking jobs (no Looping), and the stop checks still run', async () => {
    const h = harness({ options: { stopWhenEmpty: true } });
    h.queue.push('default');
    h.worker.pause();
    expect((await h.worker.daemon('default')).reason).to.equal('empty');
    expect(h.queue.log).to.deep.equal([]);
    expect(h.events).to.not.include('Looping');
    h.worker.resume();
    await h.worker.daemon('default');
    expect(h.queue.pending('default')).to.deep.equal([]);
  });

  it('takes no jobs while down for maintenance unless forced, sleeping 1 s when sleep is 0', async () => {
    const down = harness({ options: { maxTime: 3, sleep: 0 }, isDownForMaintenance: () => true });
    down.queue.push('default');
    await down.worker.daemon('default');
    expect(down.queue.log).to.deep.equal([]);
    expect(down.time.sleeps.slice(0, 3)).to.deep.equal([1000, 1000, 1000]);

    const forced = harness({ options: { maxJobs: 1, force: true }, isDownForMaintenance: () => true });
    forced.queue.push('default');
    await forced.worker.daemon('default');
    expect(forced.queue.log).to.include('delete:default');
  });

  it(`jobs back to back: the maintenance flag is read ahead, once per ${PREFETCH_FRESH_MS / 2} ms, not once a pass`, async () => {
    let reads = 0;
    let down = false;
    const h = harness({
      options: { maxTime: 2 },
      isDownForMaintenance: () => {
        reads++;
        return down;
      },
    });
    const run = backToBack(h, { jobs: 400, jobMs: 1, signalAfter: 300 }, () => {
      down = true; // `php artisan down`
    });
    expect((await h.worker.daemon('default')).reason).to.equal('max_time');
    // 300 jobs in about 300 ms: the flag was read some 10 times, not before each of the 300 passes...
    expect(reads).to.be.at.most(20);
    // ...and `down` held the pops within the bound: no job started more than PREFETCH_FRESH_MS after it.
    expect(run.startedLate()).to.deep.equal([]);
    expect(h.queue.pending('default').length).to.be.greaterThan(0);
  });
});

describe('Worker: signals', () => {
  const signals = ['SIGTERM', 'SIGINT', 'SIGQUIT', 'SIGUSR2', 'SIGCONT'] as const;
  const counts = () => signals.map((s) => process.listenerCount(s));

  for (const signal of ['SIGTERM', 'SIGINT', 'SIGQUIT'] as const) {
    it(`${signal} lets the job in flight finish, then stops with status 0, reason interrupted`, async () => {
      const before = counts();
      // timeout 0: virtual time would otherwise run to the 60 s timeout while the gate is closed.
      const h = harness({ options: { handleSignals: true, timeout: 0 } });
      const gate = deferred();
      h.handler = async (job) => {
        await gate.promise;
        await job.delete();
      };
      h.queue.push('default');
      h.queue.push('default');
      const done = h.worker.daemon('default');
      await tick();
      expect(counts()).to.not.deep.equal(before);
      process.emit(signal);
      gate.resolve();
      expect(await done).to.deep.equal({ status: 0, reason: 'interrupted' });
      expect(h.events).to.not.include('JobTimedOut id-1');
      expect(h.queue.log.filter((l) => l.startsWith('delete'))).to.have.length(1);
      expect(h.queue.pending('default')).to.have.length(1);
      expect(counts()).to.deep.equal(before);
    });
  }

  it('SIGUSR2 pauses and SIGCONT resumes', async () => {
    const h = harness({ options: { handleSignals: true, maxJobs: 1 } });
    const done = h.worker.daemon('default');
    process.emit('SIGUSR2');
    h.queue.push('default');
    await tick(20);
    expect(h.queue.log).to.deep.equal([]);
    expect(h.time.sleeps.length).to.be.greaterThan(3); // pausing: sleeping and checking, not popping
    process.emit('SIGCONT');
    expect((await done).reason).to.equal('max_jobs');
  });

  it('installs nothing unless handleSignals is set', async () => {
    const before = counts();
    const h = harness({ options: { stopWhenEmpty: true } });
    h.worker.on('Looping', () => expect(counts()).to.deep.equal(before));
    await h.worker.daemon('default');
  });

  it('a stop cuts the idle sleep short', async () => {
    const h = harness();
    const t0 = h.time.now();
    h.worker.on('WorkerIdle', () => h.worker.stop());
    expect((await h.worker.daemon('default')).reason).to.equal('interrupted');
    expect(h.time.now()).to.equal(t0);
  });

  it('gives jobs shutdownGraceSeconds, then aborts their signals and returns', async () => {
    const h = harness({ options: { shutdownGraceSeconds: 5, timeout: 0 } });
    let signal: AbortSignal | undefined;
    h.handler = (_job, s) => {
      signal = s;
      return new Promise(() => undefined);
    };
    h.queue.push('default');
    h.worker.on('JobProcessing', () => h.worker.stop());
    const t0 = h.time.now();
    expect(await h.worker.daemon('default')).to.deep.equal({ status: 0, reason: 'interrupted' });
    expect(h.time.now() - t0).to.equal(5);
    expect(signal?.aborted).to.equal(true);
    expect(h.queue.reserved('default')).to.have.length(1);
  });
});

describe('Worker: runNextJob (--once)', () => {
  it('runs one job and returns it; with none it sleeps `sleep` and returns null', async () => {
    const h = harness();
    h.queue.push('default');
    h.queue.push('default');
    const job = await h.worker.runNextJob('default');
    expect(job?.getJobId()).to.equal('id-1');
    expect(h.queue.pending('default')).to.have.length(1);
    const empty = harness();
    expect(await empty.worker.runNextJob('default')).to.equal(null);
    expect(empty.time.sleeps).to.deep.equal([3000]);
  });

  it('refuses to run twice at once', async () => {
    const h = harness({ options: { stopWhenEmpty: true } });
    const first = h.worker.daemon('default');
    let error: unknown;
    await h.worker.runNextJob('default').catch((e: unknown) => (error = e));
    await first;
    expect((error as Error).message).to.match(/already running/);
  });
});
