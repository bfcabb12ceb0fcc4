// InFlight makes its AbortController only when the handler reads `signal`; an abort that comes first
// must still be seen, with its reason, by a handler that reads the signal afterwards.
import { expect } from 'chai';
import { InFlight } from '../../../lib/worker/InFlight';
import type { WorkerJob } from '../../../lib/jobs/contracts';

const job = {} as WorkerJob;

describe('InFlight: the lazy abort signal', () => {
  it('a signal read after abort() is already aborted with that reason', () => {
    const flight = new InFlight(job);
    const reason = new Error('timed out');
    flight.abort(reason);
    expect(flight.abortReason).to.equal(reason);
    expect(flight.signal.aborted).to.equal(true);
    expect(flight.signal.reason).to.equal(reason);
  });

  it('a signal read before abort() fires its listeners once, with the first reason only', () => {
    const flight = new InFlight(job);
    const seen: unknown[] = [];
    flight.signal.addEventListener('abort', () => seen.push(flight.signal.reason));
    flight.abort('first');
    flight.abort('second');
    expect(seen).to.deep.equal(['first']);
    expect(flight.abortReason).to.equal('first');
    expect(flight.signal).to.equal(flight.signal); // one signal per attempt
  });

  it('is not aborted while nobody aborted it', () => {
    const flight = new InFlight(job);
    expect(flight.abortReason).to.equal(undefined);
    expect(flight.signal.aborted).to.equal(false);
  });
});

describe('InFlight: the fence around delete and release', () => {
  const calls: string[] = [];
  const real = {
    delete: async () => void calls.push('delete'),
    release: async () => void calls.push('release'),
  } as unknown as WorkerJob;

  it('hands the runner the job itself when no timeout can end the attempt', () => {
    expect(new InFlight(real, false).guarded).to.equal(real);
  });

  it('makes delete and release no-ops once a job that can time out has timed out', async () => {
    calls.length = 0;
    const flight = new InFlight(real);
    const guarded = flight.guarded as unknown as { delete(): Promise<void>; release(): Promise<void> };
    await guarded.delete();
    expect(flight.timeOut()).to.equal(true);
    await guarded.release();
    await guarded.delete();
    expect(calls).to.deep.equal(['delete']);
  });
});

describe('InFlight: the tail a runner hands over', () => {
  it('is only offered when the worker allows it, and keeps every tail it is given', async () => {
    expect(new InFlight(job).settleLater).to.equal(undefined);
    const flight = new InFlight(job, false, true);
    let second = false;
    flight.settleLater!(Promise.resolve());
    flight.settleLater!(new Promise<void>((r) => setTimeout(() => r(void (second = true)), 5)));
    await flight.tail;
    expect(second).to.equal(true);
  });

  it('does not leave a failed tail unhandled while the runner is still going', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const flight = new InFlight(job, false, true);
      flight.settleLater!(Promise.reject(new Error('ZREM failed')));
      await new Promise((r) => setTimeout(r, 10)); // the runner goes on for a while
      expect(unhandled).to.deep.equal([]);
      const thrown = await flight.tail!.catch((e: unknown) => e);
      expect((thrown as Error).message).to.equal('ZREM failed');
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});
