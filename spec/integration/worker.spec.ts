// The Worker on a real redis-server with Node handlers: routing, acknowledgement as CallQueuedHandler
// does it, jobs Node cannot run failed with their reason (never dropped), and a concurrent mixed run.
import { expect } from 'chai';
import { join } from 'path';
import { createWorker } from '../../lib/createWorker';
import { FileFailedJobProvider } from '../../lib/failed/FileFailedJobProvider';
import { Handlers } from '../../lib/handlers/Handlers';
import { RedisQueue } from '../../lib/RedisQueue';
import type { WorkerOptions } from '../../lib/WorkerOptions';
import { loadFixtures, pushedPayloads } from '../support/fixtures';
import { ChainStep, SendWelcomeEmail } from '../support/phpJobs';
import { monitorCaughtUp, rawClient } from '../support/redis';
import { useRedisQueue } from '../support/useRedisQueue';
import { useTempDir } from '../support/useTempDir';

describe('Worker with Node handlers on Redis', function () {
  this.timeout(30000);
  const redis = useRedisQueue(() => ({ laravel: 8, retryAfter: 90 }));
  const temp = useTempDir('worker', 'all');
  let queue: RedisQueue;
  let failed: FileFailedJobProvider;

  beforeEach(() => {
    queue = redis.open();
    failed = new FileFailedJobProvider(join(temp.path, `${redis.prefix}failed.json`));
  });

  function run(handlers: Handlers, options: Partial<WorkerOptions> = {}, queues = 'default') {
    // memory: the limit is for the worker's host process, here the whole mocha run (Laravel's default is 128 MB)
    const worker = createWorker(
      queue,
      handlers,
      { sleep: 0, stopWhenEmpty: true, memory: 4096, ...options },
      { failed },
    );
    return worker.daemon(queues);
  }

  it('runs an object job with the PHP object as a plain view, then deletes it', async function () {
    const seen: unknown[] = [];
    await queue.push(SendWelcomeEmail.make({ to: 'ada@example.com', subject: 'Hi', meta: { seats: 3 } }));
    const result = await run(
      new Handlers().object(
        'App\\Jobs\\SendWelcomeEmail',
        (c, ctx) => void seen.push([c.to, c.subject, c.meta, ctx.attempts]),
      ),
    );
    expect(result).to.deep.equal({ status: 0, reason: 'empty' });
    expect(seen).to.deep.equal([['ada@example.com', 'Hi', { seats: 3 }, 1]]);
    expect(await redis.client.keys(`${redis.prefix}*`)).to.deep.equal([]);
  });

  it("aborts the handler's ctx.signal when the job's timeout passes, with TimeoutExceededError", async function () {
    await queue.push({
      command: SendWelcomeEmail.make({ to: 'slow@example.com', subject: 's', meta: null }),
      timeout: 1,
      maxTries: 1,
    });
    let reason: unknown;
    const handlers = new Handlers().object(
      'App\\Jobs\\SendWelcomeEmail',
      (_c, ctx) =>
        new Promise<void>((resolve) =>
          ctx.signal.addEventListener('abort', () => resolve(void (reason = ctx.signal.reason))),
        ),
    );
    await run(handlers);
    expect(reason).to.be.instanceOf(Error);
    expect((reason as Error).name).to.equal('TimeoutExceededError');
    expect(await failed.all()).to.have.length(1);
  });

  it('leaves a string job to its handler to acknowledge, as Laravel does', async function () {
    await queue.push({ job: 'App\\Handlers\\Raw@handle', data: { n: 1 } });
    await queue.push({ job: 'App\\Handlers\\Raw', data: 'fire me' });
    const seen: unknown[] = [];
    await run(
      new Handlers()
        .string('App\\Handlers\\Raw@handle', (data) => void seen.push(data)) // forgets to delete
        .string('App\\Handlers\\Raw', async (data, ctx) => {
          seen.push(data);
          await ctx.delete();
        }),
    );
    expect(seen).to.deep.equal([{ n: 1 }, 'fire me']);
    const reserved = await queue.reservedJobs();
    expect(reserved.map((j) => JSON.parse(j.payload).job)).to.deep.equal(['App\\Handlers\\Raw@handle']);
  });

  it('fails a job with no handler into the failed-job store, naming the class', async function () {
    await queue.push(ChainStep.make({ step: 1 }));
    await run(new Handlers());
    const [record] = await failed.all();
    expect(record.queue).to.equal('default');
    expect(record.exception).to.match(/^UnknownJobError: No handler is registered for job "App\\Jobs\\ChainStep"\./);
    expect(await queue.size()).to.equal(0);
  });

  it('runs no handler for a job whose command object is of another class than its commandName, and fails it naming both', async function () {
    await queue.push(ChainStep.make({ step: 1 }));
    const forged = JSON.parse((await redis.client.lpop(`${redis.prefix}queues:default`))!) as {
      data: { commandName: string };
    };
    forged.data.commandName = 'App\\Jobs\\SendWelcomeEmail';
    await queue.pushRaw(JSON.stringify(forged));
    const ran: string[] = [];
    await run(
      new Handlers()
        .object('App\\Jobs\\SendWelcomeEmail', () => void ran.push('SendWelcomeEmail'))
        .object('App\\Jobs\\ChainStep', () => void ran.push('ChainStep')),
    );
    expect(ran).to.deep.equal([]);
    const [record] = await failed.all();
    expect(record.exception).to.match(
      /^CommandClassMismatchError: .*"App\\Jobs\\SendWelcomeEmail".*"App\\Jobs\\ChainStep"/,
    );
    expect(await queue.size()).to.equal(0);
  });

  it('fails a PHP closure job with a reason that says what it is (12.x fixture)', async function () {
    const [payload] = pushedPayloads(loadFixtures().find((f) => f.version === '12.x' && f.name === 'closure')!);
    await queue.pushRaw(payload);
    await run(new Handlers());
    const [record] = await failed.all();
    expect(record.payload).to.equal(payload);
    expect(record.exception).to.match(
      /^PhpOnlyJobError: Job "Closure \(.*\)" is a queued closure \(CallQueuedClosure\); only a PHP worker can run it\./,
    );
  });

  it('can release jobs it has no handler for, for a PHP worker to take', async function () {
    await queue.push(ChainStep.make({ step: 1 }));
    await run(new Handlers({ unknownJobs: { release: 30 } }), { maxJobs: 1 });
    expect(await failed.all()).to.deep.equal([]);
    const [delayed] = await queue.delayedJobs();
    expect(delayed.attempts).to.equal(1);
  });

  it("records a job failed by its handler under Laravel's exception class", async function () {
    await queue.push(ChainStep.make({ step: 1 }));
    await run(new Handlers().object('App\\Jobs\\ChainStep', (_c, ctx) => ctx.fail()));
    const [record] = await failed.all();
    expect(record.exception).to.match(/^Illuminate\\Queue\\ManuallyFailedException in /);
  });

  it('records an undecodable command as failed with its reason, not lost and not looping', async function () {
    await queue.pushRaw(
      '{"uuid":"5d1c6d2a-1111-4a8e-9c3e-000000000001","job":"Illuminate\\\\Queue\\\\CallQueuedHandler@call","data":{"commandName":"App\\\\Jobs\\\\X","command":"O:9:\\"App\\\\Jobs\\\\X\\":1:{"},"attempts":0}',
    );
    await run(new Handlers().object('App\\Jobs\\X', () => undefined));
    const [record] = await failed.all();
    expect(record.exception).to.match(/^UnserializeError: /);
    expect(await queue.size()).to.equal(0);
  });

  it('a 100-job mixed run at concurrency 20: every job exactly once, nothing reserved, no notify drift', async function () {
    const ids: string[] = [];
    for (let i = 0; i < 40; i++) ids.push(await queue.push(ChainStep.make({ step: i }), i % 2 ? 'high' : 'default'));
    ids.push(
      ...(await queue.bulk(
        Array.from({ length: 40 }, (_, i) =>
          SendWelcomeEmail.make({ to: `u${i}@example.com`, subject: 's', meta: null }),
        ),
      )),
    );
    for (let i = 0; i < 20; i++) ids.push(await queue.push({ job: 'App\\Handlers\\Raw@handle', data: { i } }, 'high'));
    const seen: string[] = [];
    let inFlight = 0;
    let most = 0;
    const note = async (id: string | null) => {
      inFlight++;
      most = Math.max(most, inFlight);
      await new Promise((r) => setTimeout(r, 5 + Math.random() * 10));
      seen.push(id as string);
      inFlight--;
    };
    const handlers = new Handlers()
      .object('App\\Jobs\\ChainStep', (_c, ctx) => note(ctx.id))
      .object('App\\Jobs\\SendWelcomeEmail', (_c, ctx) => note(ctx.id))
      .string('App\\Handlers\\Raw@handle', async (_d, ctx) => {
        await note(ctx.id);
        await ctx.delete();
      });
    const result = await run(handlers, { concurrency: 20 }, 'high,default');
    expect(result.reason).to.equal('empty');
    expect([...seen].sort()).to.deep.equal([...ids].sort());
    expect(most).to.be.within(2, 20);
    expect(await redis.client.keys(`${redis.prefix}*`)).to.deep.equal([]); // no job, reservation or notify token left
  });
  it("at concurrency 1 each job's ZREM runs in the next pop's script, ahead of its pop: one read of Redis a job, never two jobs reserved", async function () {
    const jobs = 50;
    await queue.bulk(
      Array.from({ length: jobs }, (_, i) =>
        SendWelcomeEmail.make({ to: `u${i}@example.com`, subject: 's', meta: null }),
      ),
    );
    const monitor = await rawClient(redis.port).monitor();
    const seen: string[] = [];
    const sent = new Set<string>();
    // Off once the monitor has caught up with the run: it may still report this spec's own commands after
    // (a disconnect ends the connection gracefully, and a KEYS sent meanwhile was once reported).
    let listening = true;
    monitor.on('monitor', (_time: string, args: string[], source: string) => {
      // What the worker sends, by name; and, of what its scripts issue, the ZADD to the reserved set that
      // reserves a job ('pop') and the ZREM that removes a finished job's reservation ('ack').
      const command = args[0].toLowerCase();
      if (!listening || !args.some((a) => a.startsWith(redis.prefix))) return;
      if (source !== 'lua') sent.add(command);
      else if (command === 'zadd' && args[1] === `${redis.prefix}queues:default:reserved`) seen.push('pop');
      else if (command === 'zrem') seen.push('ack');
    });
    const readsProcessed = async () => Number(/total_reads_processed:(\d+)/.exec(await redis.client.info('stats'))![1]);
    const readsBefore = await readsProcessed();
    // No cache: the queue's connection is the only one the worker uses.
    const result = await run(
      new Handlers().object('App\\Jobs\\SendWelcomeEmail', () => undefined),
      { concurrency: 1 },
    );
    const reads = (await readsProcessed()) - readsBefore - 1; // the INFO before counts, the one after not yet
    await monitorCaughtUp(monitor, redis.client);
    listening = false;
    monitor.disconnect();
    expect(result.reason).to.equal('empty');
    expect(await redis.client.keys(`${redis.prefix}*`)).to.deep.equal([]);
    // The worker sends nothing but its pop script: each job's ZREM is issued inside the next pop's call.
    expect([...sent]).to.deep.equal(['evalsha']);
    // Laravel's order: the ZREM of one job, then the next pass's pop; one job reserved at most.
    expect(seen.filter((c) => c === 'ack')).to.have.length(jobs);
    expect(seen.filter((c) => c === 'pop')).to.have.length(jobs);
    let reserved = 0;
    for (const c of seen) {
      reserved += c === 'pop' ? 1 : -1;
      expect(reserved).to.be.within(0, 1);
    }
    // A ZREM and the pop behind it in one script call: a job costs one read, not two (plus the empty pass's).
    expect(reads).to.be.at.most(jobs + 3);
  });
});
