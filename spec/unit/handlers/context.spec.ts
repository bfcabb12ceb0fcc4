// What a handler's `ctx` offers: the job's identity, its payload, and Laravel's job methods, which work
// called on ctx or destructured from it.
import { expect } from 'chai';
import { Handlers, type JobContext, type ObjectJobContext } from '../../../lib/handlers/Handlers';
import { RedisJob, type ReservedJobStore } from '../../../lib/jobs/RedisJob';
import { payloadFor } from '../../../lib/jobs/dispatch';
import { laravelJobTraits, phpClass } from '../../../lib/php/builder';
import type { JobAttempt } from '../../../lib/jobs/contracts';
import { systemClock } from '../../../lib/clock';
import { Attempt } from '../../../lib/worker/Attempt';

const Invoice = phpClass('App\\Jobs\\Invoice', { n: 'public' }, { traits: laravelJobTraits(8) });

function storeLog(): { store: ReservedJobStore; calls: string[] } {
  const calls: string[] = [];
  const store: ReservedJobStore = {
    encrypter: null,
    deleteReserved: async (queue) => void calls.push(`delete ${queue}`),
    deleteAndRelease: async (queue, _job, delay) => void calls.push(`release ${queue} ${delay}`),
  };
  return { store, calls };
}

const attempt: JobAttempt = {
  get signal() {
    return new AbortController().signal;
  },
};

async function contextOf(
  handlers: Handlers,
  job: RedisJob,
  register: (h: Handlers, grab: (ctx: JobContext) => void) => void,
): Promise<JobContext> {
  let seen: JobContext | undefined;
  register(handlers, (ctx) => (seen = ctx));
  await handlers.run(job, attempt);
  return seen!;
}

describe('Handlers: the context a handler gets', () => {
  it('gives an object job its identity, payload, command, and methods that work destructured', async () => {
    const { store, calls } = storeLog();
    const payload = payloadFor(Invoice.make({ n: 7 }), { line: 8, clock: systemClock, delay: null, id: 'job-id-1' });
    const job = new RedisJob(store, payload, payload.replace('"attempts":0', '"attempts":1'), 'redis', 'billing');
    const ctx = (await contextOf(new Handlers(), job, (h, grab) =>
      h.object('App\\Jobs\\Invoice', async (_command, c) => {
        grab(c);
        const { release } = c;
        await release(5);
      }),
    )) as ObjectJobContext;
    expect(ctx.job).to.equal(job);
    expect(ctx).to.include({ attempts: 1, id: 'job-id-1', queue: 'billing', uuid: job.uuid() });
    expect(ctx.payload.displayName).to.equal('App\\Jobs\\Invoice');
    expect(ctx.command.className).to.equal('App\\Jobs\\Invoice');
    expect(Object.keys(ctx)).to.include('command');
    expect(ctx.release).to.equal(ctx.release);
    // released by the handler, so not deleted after it
    expect(calls).to.deep.equal(['release billing 5']);
  });

  it('gives a string job no command key, and delete and fail that work destructured', async () => {
    const { store, calls } = storeLog();
    const payload = payloadFor(
      { job: 'App\\Legacy@run', data: { a: 1 } },
      { line: 8, clock: systemClock, delay: null, id: 'x' },
    );
    const job = new RedisJob(store, payload, payload, 'redis', 'default');
    const failed: (Error | undefined)[] = [];
    const handlers = new Handlers();
    const boom = new Error('boom');
    const ctx = await contextOf(handlers, job, (h, grab) =>
      h.string('App\\Legacy@run', async (_data, c) => {
        grab(c);
        const { delete: remove, fail } = c;
        await remove();
        await fail(boom).catch((e: unknown) => failed.push(e as Error));
      }),
    );
    expect('command' in ctx).to.equal(false);
    expect(calls).to.deep.equal(['delete default']);
    // no worker bound: fail() rejects with the error it was given
    expect(failed).to.deep.equal([boom]);

    const recorded: (Error | undefined)[] = [];
    handlers.bindFailer(async (_job, error) => void recorded.push(error));
    await handlers.run(new RedisJob(store, payload, payload, 'redis', 'default'), attempt);
    expect(recorded).to.deep.equal([boom]);
  });
  it('deletes through the fence of the job it is given: once the attempt is over, the final delete is refused', async () => {
    const run = async (timeOutWhileRunning: boolean) => {
      const { store, calls } = storeLog();
      const payload = payloadFor(Invoice.make({ n: 7 }), { line: 8, clock: systemClock, delay: null, id: 'job-id-1' });
      const job = new RedisJob(store, payload, payload.replace('"attempts":0', '"attempts":1'), 'redis', 'billing');
      const timed = new Attempt(job);
      timed.start();
      const given = timed.guarded;
      let ctxJob: unknown;
      await new Handlers()
        .object('App\\Jobs\\Invoice', (_command, ctx) => {
          ctxJob = ctx.job;
          if (timeOutWhileRunning) timed.timeOut();
        })
        .run(given, timed);
      return { calls, ctxJob, given };
    };
    const inTime = await run(false);
    expect(inTime.ctxJob).to.equal(inTime.given);
    expect(inTime.calls).to.deep.equal(['delete billing']);
    const late = await run(true);
    expect(late.calls).to.deep.equal([]);
  });
});
