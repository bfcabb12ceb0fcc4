// Attempt makes its AbortController only when the handler reads `signal`; an abort that comes first
// must still be seen, with its reason, by a handler that reads the signal afterwards.
import { expect } from 'chai';
import { Attempt } from '../../../lib/worker/Attempt';
import type { WorkerJob } from '../../../lib/jobs/contracts';

const job = {} as WorkerJob;

describe('Attempt: the lazy abort signal', () => {
  it('a signal read after abort() is already aborted with that reason', () => {
    const flight = new Attempt(job);
    const reason = new Error('timed out');
    flight.abort(reason);
    expect(flight.abortReason).to.equal(reason);
    expect(flight.signal.aborted).to.equal(true);
    expect(flight.signal.reason).to.equal(reason);
  });

  it('a signal read before abort() fires its listeners once, with the first reason only', () => {
    const flight = new Attempt(job);
    const seen: unknown[] = [];
    flight.signal.addEventListener('abort', () => seen.push(flight.signal.reason));
    flight.abort('first');
    flight.abort('second');
    expect(seen).to.deep.equal(['first']);
    expect(flight.abortReason).to.equal('first');
    expect(flight.signal).to.equal(flight.signal); // one signal per attempt
  });

  it('is not aborted while nobody aborted it', () => {
    const flight = new Attempt(job);
    expect(flight.abortReason).to.equal(undefined);
    expect(flight.signal.aborted).to.equal(false);
  });
});

describe('Attempt: the fence around delete and release', () => {
  const calls: string[] = [];
  const real = {
    delete: async () => void calls.push('delete'),
    release: async () => void calls.push('release'),
    hasFailed: () => false,
    isReleased: () => false,
  } as unknown as WorkerJob;

  it('refuses delete and release once the attempt concluded, timeout or not', async () => {
    calls.length = 0;
    const refused: string[] = [];
    const flight = new Attempt(real, (a, action) => refused.push(`${action} ${a.state}`));
    const guarded = flight.guarded as unknown as { delete(): Promise<void>; release(): Promise<void> };
    flight.start();
    expect(flight.conclude()).to.equal('processed');
    await guarded.release();
    expect(calls).to.deep.equal([]);
    expect(refused).to.deep.equal(['release processed']);
  });

  it('refuses delete and release once a job that can time out has timed out, and reports each refusal', async () => {
    calls.length = 0;
    const refused: string[] = [];
    const flight = new Attempt(real, (a, action) => refused.push(`${action} ${a.state}`));
    const guarded = flight.guarded as unknown as { delete(): Promise<void>; release(): Promise<void> };
    flight.start();
    await guarded.delete();
    expect(flight.timeOut()).to.equal(true);
    await guarded.release();
    await guarded.delete();
    expect(calls).to.deep.equal(['delete']);
    expect(refused).to.deep.equal(['release timedOut', 'delete timedOut']);
  });
});

describe('Attempt: the state machine', () => {
  const job = (flags: { failed?: boolean; released?: boolean } = {}) =>
    ({
      hasFailed: () => flags.failed === true,
      isReleased: () => flags.released === true,
      isDeletedOrReleased: () => flags.released === true,
    }) as unknown as WorkerJob;

  it('reserved -> running -> processed, released or failed, read from the job', () => {
    for (const [flags, state] of [
      [{}, 'processed'],
      [{ released: true }, 'released'],
      [{ failed: true }, 'failed'],
    ] as const) {
      const a = new Attempt(job(flags));
      expect(a.state).to.equal('reserved');
      a.start();
      expect(a.state).to.equal('running');
      expect(a.handlerSettled()).to.equal(true);
      expect(a.conclude()).to.equal(state);
      expect(a.isOver).to.equal(true);
    }
  });

  it('each terminal state is reached once: no timeout after the handler settled, no outcome after a timeout', () => {
    const settled = new Attempt(job());
    settled.start();
    settled.handlerSettled();
    expect(settled.timeOut()).to.equal(false);
    expect(settled.conclude()).to.equal('processed');
    expect(settled.conclude()).to.equal('processed');

    const timedOut = new Attempt(job({ failed: true }));
    timedOut.start();
    expect(timedOut.timeOut()).to.equal(true);
    expect(timedOut.timeOut()).to.equal(false);
    expect(timedOut.handlerSettled()).to.equal(false);
    expect(timedOut.conclude()).to.equal('timedOut');
  });

  it('allows every action while running, none once over, and reports each refusal', () => {
    const refused: string[] = [];
    const a = new Attempt(job(), (_a, action) => refused.push(action));
    a.start();
    expect(
      ['delete', 'release', 'fail', 'beforeHandle', 'afterHandle'].map((x) => a.allows(x as 'fail')),
    ).to.deep.equal([true, true, true, true, true]);
    a.handlerSettled();
    a.conclude();
    expect(a.allows('fail')).to.equal(false);
    expect(a.allows('afterHandle')).to.equal(false);
    expect(refused).to.deep.equal(['fail', 'afterHandle']);
  });
});

describe('Attempt: the tail a runner hands over', () => {
  it('is only offered when the worker allows it, and keeps every tail it is given', async () => {
    expect(new Attempt(job).deferFinalDelete).to.equal(undefined);
    const flight = new Attempt(job, undefined, { mayDeferFinalDelete: true });
    let second = false;
    flight.deferFinalDelete!(Promise.resolve());
    flight.deferFinalDelete!(new Promise<void>((r) => setTimeout(() => r(void (second = true)), 5)));
    await flight.pendingFinalDelete;
    expect(second).to.equal(true);
  });

  it('does not leave a failed tail unhandled while the runner is still going', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const flight = new Attempt(job, undefined, { mayDeferFinalDelete: true });
      flight.deferFinalDelete!(Promise.reject(new Error('ZREM failed')));
      await new Promise((r) => setTimeout(r, 10)); // the runner goes on for a while
      expect(unhandled).to.deep.equal([]);
      const thrown = await flight.pendingFinalDelete!.catch((e: unknown) => e);
      expect((thrown as Error).message).to.equal('ZREM failed');
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});
