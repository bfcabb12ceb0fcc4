// The attempt lifecycle on a real redis-server (issue 21): a handler that outlives its timeout touches
// nothing of its attempt, a hung handler never stalls the worker, one job never runs twice at once in
// one process, a batch of big payloads is bounded by bytes, and the heartbeat raises no false alarms.
import { expect } from 'chai';
import { RedisCacheStore } from '../../lib/cache/RedisCacheStore';
import { signalRestart } from '../../lib/cache/signals';
import { createWorker } from '../../lib/createWorker';
import { chainHooks, dispatchChain } from '../../lib/features/chain';
import { FileFailedJobProvider } from '../../lib/failed/FileFailedJobProvider';
import { Handlers, type ObjectJobContext } from '../../lib/handlers/Handlers';
import { RedisQueue } from '../../lib/RedisQueue';
import type { WorkerOptions } from '../../lib/WorkerOptions';
import type { WorkerStopResult } from '../../lib/events';
import { join } from 'path';
import { ChainStep, SendWelcomeEmail } from '../support/phpJobs';
import { useRedisQueue } from '../support/useRedisQueue';
import { useTempDir } from '../support/useTempDir';

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const forever = () => new Promise<void>(() => undefined);

// The daemon's result, or 'still running' when it has not returned within `ms`.
async function within(ms: number, daemon: Promise<WorkerStopResult>): Promise<WorkerStopResult | 'still running'> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'still running'>((r) => (timer = setTimeout(() => r('still running'), ms)));
  try {
    return await Promise.race([daemon, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

describe('Worker: the attempt lifecycle on Redis', function () {
  this.timeout(40000);
  const redis = useRedisQueue();
  const temp = useTempDir('lifecycle', 'all');
  let queue: RedisQueue;
  let failed: FileFailedJobProvider;

  beforeEach(() => {
    queue = redis.open({ laravel: 8, retryAfter: 2 });
    failed = new FileFailedJobProvider(join(temp.path, `${redis.prefix}failed.json`));
  });

  const base: Partial<WorkerOptions> = { sleep: 0.05, memory: 4096 };

  describe('finding 3: a timed-out step that finishes late runs no after-job hooks', () => {
    it('the step after a timed-out chain step runs once, and the late hook is refused and reported', async () => {
      const seen: string[] = [];
      const handlers = new Handlers({ hooks: [chainHooks(queue)] }).object(
        'App\\Jobs\\ChainStep',
        async (command, ctx) => {
          seen.push(`${String(command.step)}#${ctx.attempts}`);
          if (command.step === 1 && ctx.attempts === 1) {
            await new Promise<void>((r) => ctx.signal.addEventListener('abort', () => r()));
            await sleep(300); // finishes after its timeout, within the grace
          }
        },
      );
      await dispatchChain(queue, [
        ChainStep.make({ step: 1 }),
        ChainStep.make({ step: 2 }),
        ChainStep.make({ step: 3 }),
      ]);
      const worker = createWorker(queue, handlers, { ...base, timeout: 1, maxTries: 3, maxJobs: 5 }, { failed });
      const refused: string[] = [];
      const events: string[] = [];
      worker.on('JobTimedOut', (e) => events.push(`JobTimedOut ${e.job.attempts()}`));
      worker.on('JobActionRefused', (e) => refused.push(`${e.action} (${e.state})`));
      const daemon = worker.daemon('default');
      // Four starts are expected (1#1, 1#2, 2#1, 3#1); a fifth would be the duplicate step 2.
      for (let i = 0; i < 80 && seen.length < 4; i++) await sleep(100);
      await sleep(1000);
      worker.stop();
      await daemon;
      expect(seen).to.deep.equal(['1#1', '1#2', '2#1', '3#1']);
      expect(events).to.deep.equal(['JobTimedOut 1']);
      expect(refused).to.deep.equal(['afterHandle (timedOut)']);
      expect(await redis.client.keys(`${redis.prefix}*`)).to.deep.equal([]);
    });
  });

  describe('finding 4: ctx.fail() after the timeout is fenced', () => {
    it('the common catch-and-fail around an aborted fetch leaves no failure record; the next attempt runs', async () => {
      const events: string[] = [];
      const handlers = new Handlers().object('App\\Jobs\\SendWelcomeEmail', async (_c, ctx: ObjectJobContext) => {
        try {
          if (ctx.attempts === 1)
            await new Promise<void>((_r, reject) =>
              ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason)),
            );
        } catch (e) {
          await ctx.fail(e as Error);
        }
      });
      await queue.push(SendWelcomeEmail.make({ to: 'a@example.com', subject: 's', meta: null }));
      const worker = createWorker(queue, handlers, { ...base, timeout: 1, maxTries: 3, maxJobs: 2 }, { failed });
      for (const name of ['JobTimedOut', 'JobFailed', 'JobProcessed'] as const) {
        worker.on(name, (e) => events.push(`${name} ${e.job.attempts()}`));
      }
      const refused: string[] = [];
      worker.on('JobActionRefused', (e) => refused.push(`${e.action} ${e.job.attempts()}`));
      const result = await within(15000, worker.daemon('default'));
      expect(result).to.deep.equal({ status: 0, reason: 'max_jobs' });
      expect(events).to.deep.equal(['JobTimedOut 1', 'JobProcessed 2']);
      // the late ctx.fail(), then what CallQueuedHandler would have done after handle()
      expect(refused).to.deep.equal(['fail 1', 'afterHandle 1']);
      expect(await failed.all()).to.deep.equal([]);
      expect(await redis.client.keys(`${redis.prefix}*`)).to.deep.equal([]);
    });
  });

  describe('finding 2: a hung handler never stalls the worker', () => {
    it('by default: stops taking jobs, lets the other slot finish, exits with status 1 within timeout + grace', async () => {
      const log: string[] = [];
      const handlers = new Handlers().object('App\\Jobs\\SendWelcomeEmail', async (c) => {
        log.push(`start ${String(c.to)}`);
        if (c.to === 'hung') return forever(); // ignores its AbortSignal and never settles
        await sleep(Number(c.subject));
        log.push(`end ${String(c.to)}`);
      });
      await queue.push({ command: SendWelcomeEmail.make({ to: 'hung', subject: '0', meta: null }), timeout: 1 });
      await queue.push({ command: SendWelcomeEmail.make({ to: 'long', subject: '3000', meta: null }), timeout: 10 });
      await queue.push({ command: SendWelcomeEmail.make({ to: 'later', subject: '0', meta: null }), timeout: 10 });
      const worker = createWorker(queue, handlers, { ...base, concurrency: 2, maxTries: 3 }, { failed });
      const hung: string[] = [];
      worker.on('JobHandlerHung', (e) => hung.push(e.job.resolveName()));
      const started = Date.now();
      const result = await within(15000, worker.daemon('default'));
      const took = (Date.now() - started) / 1000;
      expect(result).to.deep.equal({ status: 1, reason: 'timed_out' });
      expect(worker.options.timeoutGraceSeconds).to.equal(5);
      expect(took).to.be.within(1 + 5 - 0.5, 1 + 5 + 3);
      expect(hung).to.deep.equal(['App\\Jobs\\SendWelcomeEmail']);
      // 'long' finished before the daemon returned; 'later' was taken once 'long' was done (before the grace
      // ran out), and nothing after the grace.
      expect(log.slice(0, 3)).to.deep.equal(['start hung', 'start long', 'end long']);
      expect(log).to.include('end later');
      // The hung attempt stays reserved, as a killed Laravel worker leaves it.
      expect(await redis.client.zcard(`${redis.prefix}queues:default:reserved`)).to.equal(1);
    });

    it('with onHungHandler "continue": maxTime is honoured while the only slot is stuck', async () => {
      const handlers = new Handlers().object('App\\Jobs\\SendWelcomeEmail', () => forever());
      await queue.push({ command: SendWelcomeEmail.make({ to: 'hung', subject: 's', meta: null }), timeout: 1 });
      await queue.push(SendWelcomeEmail.make({ to: 'quick', subject: 's', meta: null }));
      const worker = createWorker(
        queue,
        handlers,
        { ...base, timeout: 1, maxTime: 3, onHungHandler: 'continue', timeoutGraceSeconds: 1 },
        { failed },
      );
      const started = Date.now();
      const result = await within(8000, worker.daemon('default'));
      expect(result).to.deep.equal({ status: 0, reason: 'max_time' });
      expect((Date.now() - started) / 1000).to.be.below(6);
    });

    it('--memory is honoured while a slot is stuck', async () => {
      const handlers = new Handlers().object('App\\Jobs\\SendWelcomeEmail', () => forever());
      await queue.push({ command: SendWelcomeEmail.make({ to: 'hung', subject: 's', meta: null }), timeout: 1 });
      let usage = 10 * 1024 * 1024;
      const worker = createWorker(
        queue,
        handlers,
        { ...base, memory: 64, onHungHandler: 'continue', timeoutGraceSeconds: 1 },
        { failed, memoryUsage: () => usage },
      );
      const daemon = worker.daemon('default');
      await sleep(1500); // the handler is stuck in the only slot
      usage = 100 * 1024 * 1024;
      expect(await within(5000, daemon)).to.deep.equal({ status: 12, reason: 'memory' });
    });

    it('queue:restart is honoured while a slot is stuck', async () => {
      const cache = new RedisCacheStore({
        connection: { port: redis.port },
        prefix: redis.prefix,
        cachePrefix: 'laravel_cache',
        laravel: 8,
        database: 0,
      });
      try {
        const handlers = new Handlers().object('App\\Jobs\\SendWelcomeEmail', () => forever());
        await queue.push({ command: SendWelcomeEmail.make({ to: 'hung', subject: 's', meta: null }), timeout: 1 });
        const worker = createWorker(
          queue,
          handlers,
          { ...base, onHungHandler: 'continue', timeoutGraceSeconds: 1 },
          { failed, cache },
        );
        const daemon = worker.daemon('default');
        await sleep(1000);
        await signalRestart(cache, Math.floor(Date.now() / 1000) + 1);
        expect(await within(5000, daemon)).to.deep.equal({ status: 0, reason: 'restart_signal' });
      } finally {
        await cache.close();
      }
    });
  });

  describe('finding 5: one job never runs twice at once in one process', () => {
    it('a job that came back after retry_after while still running here is not started, and is reported', async () => {
      const runs: { attempt: number; start: number; end: number }[] = [];
      const handlers = new Handlers().object('App\\Jobs\\SendWelcomeEmail', async (_c, ctx) => {
        const run = { attempt: ctx.attempts, start: Date.now(), end: 0 };
        runs.push(run);
        if (ctx.attempts === 1) await sleep(4500); // outlives retry_after (2 s)
        run.end = Date.now();
      });
      await queue.push(SendWelcomeEmail.make({ to: 'a@example.com', subject: 's', meta: null }));
      const worker = createWorker(queue, handlers, { ...base, concurrency: 2, timeout: 0, maxTries: 0 }, { failed });
      const skipped: number[] = [];
      worker.on('JobAlreadyRunning', (e) => skipped.push(e.job.attempts()));
      const daemon = worker.daemon('default');
      for (let i = 0; i < 120 && !runs.some((r) => r.attempt > 1 && r.end > 0); i++) await sleep(100);
      worker.stop();
      await daemon;
      expect(runs.length).to.be.at.least(2);
      for (const [i, a] of runs.entries()) {
        for (const b of runs.slice(i + 1))
          expect(b.start >= a.end && a.end > 0, `attempt ${b.attempt} started while attempt ${a.attempt} ran`).to.equal(
            true,
          );
      }
      expect(skipped.length).to.be.at.least(1);
      expect(skipped[0]).to.equal(2);
    });
  });

  describe('finding 11: memory is bounded by bytes', () => {
    const payloadBytes = 8 * 1024 * 1024;
    const big = 'x'.repeat(payloadBytes);
    // Memory in use as a model of what holding the jobs costs: 10 MB, plus four copies of each payload
    // held (popped and not yet attempted), so the numbers do not depend on when V8 collects garbage.
    function model(worker: ReturnType<typeof createWorker>, baseMb = 10) {
      const state = { held: 0, mostHeld: 0, ran: 0 };
      worker.on('JobPopped', () => (state.mostHeld = Math.max(state.mostHeld, ++state.held)));
      worker.on('JobAttempted', () => {
        state.held--;
        state.ran++;
      });
      return { state, usage: () => baseMb * 1024 * 1024 + state.held * 4 * payloadBytes };
    }

    it('a queue of big payloads is taken a few at a time, not half the slots at once', async function () {
      // Popping and deleting 8 MB payloads takes a while on a loaded machine, and a 2 s retry_after counted
      // in whole seconds can expire 1 s after the pop: the job would come back and run twice, which is
      // Laravel's rule for jobs longer than retry_after, not what this spec is about.
      await queue.close();
      queue = redis.open({ laravel: 8, retryAfter: 90 });
      for (let i = 0; i < 10; i++) await queue.push(SendWelcomeEmail.make({ to: `n${i}`, subject: big, meta: null }));
      const handlers = new Handlers().object('App\\Jobs\\SendWelcomeEmail', () => sleep(100));
      let usage = () => 0;
      const worker = createWorker(
        queue,
        handlers,
        { ...base, concurrency: 20, timeout: 0, memory: 80, stopWhenEmpty: true },
        { failed, memoryUsage: () => usage() },
      );
      const m = model(worker);
      usage = m.usage;
      expect(await within(20000, worker.daemon('default'))).to.deep.equal({ status: 0, reason: 'empty' });
      expect(m.state.ran).to.equal(10);
      // 80 MB hold two such jobs (10 + 2 x 32 MB); the old worker popped ten at once (320 MB more)
      expect(m.state.mostHeld, 'big jobs held at once').to.be.within(1, 2);
    });

    it('a worker at its limit pops nothing more: it stops with status 12 and the jobs stay queued', async () => {
      for (let i = 0; i < 10; i++) await queue.push(SendWelcomeEmail.make({ to: `n${i}`, subject: big, meta: null }));
      let ran = 0;
      const handlers = new Handlers().object('App\\Jobs\\SendWelcomeEmail', () => void ran++);
      const worker = createWorker(
        queue,
        handlers,
        { ...base, concurrency: 20, timeout: 0, memory: 64 },
        { failed, memoryUsage: () => 70 * 1024 * 1024 },
      );
      expect(await within(10000, worker.daemon('default'))).to.deep.equal({ status: 12, reason: 'memory' });
      expect(ran).to.equal(0);
      expect(await redis.client.llen(`${redis.prefix}queues:default`)).to.equal(10);
    });
  });

  describe('finding 12: the heartbeat', () => {
    it('raises no "may run twice" alarm for jobs that finished during a beat', async () => {
      await queue.close();
      queue = redis.open({ laravel: 8, retryAfter: 60 });
      for (let i = 0; i < 40; i++)
        await queue.bulk(
          Array.from({ length: 50 }, (_, j) => SendWelcomeEmail.make({ to: `${i}-${j}`, subject: 's', meta: null })),
        );
      const handlers = new Handlers().object('App\\Jobs\\SendWelcomeEmail', async () => {
        await sleep(Math.floor(Math.random() * 4));
      });
      const worker = createWorker(
        queue,
        handlers,
        { ...base, concurrency: 20, heartbeat: 0.01, stopWhenEmpty: true, sleep: 0 },
        { failed },
      );
      const alarms: string[] = [];
      worker.on('error', (e) => /may run twice/.test(e.message) && alarms.push(e.message));
      expect(await within(30000, worker.daemon('default'))).to.deep.equal({ status: 0, reason: 'empty' });
      expect(alarms).to.deep.equal([]);
      expect(await redis.client.keys(`${redis.prefix}*`)).to.deep.equal([]);
    });

    it('still reports a reservation that was really lost', async () => {
      await queue.close();
      queue = redis.open({ laravel: 8, retryAfter: 60 });
      await queue.push(SendWelcomeEmail.make({ to: 'a', subject: 's', meta: null }));
      const handlers = new Handlers().object('App\\Jobs\\SendWelcomeEmail', async () => {
        await redis.client.del(`${redis.prefix}queues:default:reserved`); // someone else took it
        await sleep(300);
      });
      const worker = createWorker(queue, handlers, { ...base, heartbeat: 0.05, stopWhenEmpty: true }, { failed });
      const alarms: string[] = [];
      worker.on('error', (e) => /may run twice/.test(e.message) && alarms.push(e.message));
      await worker.daemon('default');
      expect(alarms).to.have.length(1);
    });

    it('retryAfter 0 means what it means to Laravel (reservations expire at once): RedisQueue and createWorker agree', async () => {
      await queue.close();
      queue = redis.open({ laravel: 8, retryAfter: 0 });
      await queue.push(SendWelcomeEmail.make({ to: 'a', subject: 's', meta: null }));
      let ran = 0;
      const worker = createWorker(
        queue,
        new Handlers().object('App\\Jobs\\SendWelcomeEmail', () => void ran++),
        { ...base, stopWhenEmpty: true },
        { failed },
      );
      expect(worker.options.retryAfter).to.equal(0);
      expect(await worker.daemon('default')).to.deep.equal({ status: 0, reason: 'empty' });
      expect(ran).to.equal(1);
      expect(() => createWorker(queue, new Handlers(), { heartbeat: 1 })).to.throw(/heartbeat/);
      expect(
        () => new RedisQueue({ connection: { port: redis.port }, prefix: redis.prefix, retryAfter: 1.5 }),
      ).to.throw(/retryAfter/);
      expect(() => createWorker(queue, new Handlers(), { retryAfter: 1.5 })).to.throw(/retryAfter/);
    });
  });
});
