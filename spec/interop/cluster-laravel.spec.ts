// Real Laravel 13.26 on a phpredis cluster connection (database.redis.clusters.default, RedisCluster) and
// larq on an ioredis Cluster, sharing one local Redis Cluster, both ways: Laravel dispatches onto queues
// whose names hash to different slots (`queues:{name}`, 13.5+ on a cluster) and larq pops, runs, releases
// and fails them; larq dispatches and Laravel's worker does the same. The cache signals live on the
// cluster too (queue:restart, queue:pause per queue and --all, ShouldBeUnique locks, maxExceptions
// counters): what one side writes, the other honours.
import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import type { Cluster } from 'ioredis';
import { RedisCacheStore } from '../../lib/cache/RedisCacheStore';
import {
  exceptionsKey,
  globalPausedKey,
  pauseQueue,
  readRestart,
  resumeQueue,
  signalRestart,
} from '../../lib/cache/signals';
import { createWorker } from '../../lib/createWorker';
import { createFailedJobProvider } from '../../lib/failed';
import { dispatchUnique, uniqueJobs } from '../../lib/features/unique';
import { Handlers } from '../../lib/handlers/Handlers';
import { laravelJobTraits, phpClass, type PhpClass } from '../../lib/php/builder';
import { RedisQueue } from '../../lib/RedisQueue';
import { LocalCluster } from '../support/cluster';
import { compileCli, type CompiledCli } from '../support/compiled';
import { runLarq, startLarq, type LarqProcess } from '../support/larqProcess';
import { laravelHarness, requirePhp, type PhpConnection, type WorkerRecord } from '../support/php';
import { dispatch13, php13Env } from '../support/php13';
import { randomPrefix } from '../support/redis';

const LINE = '13.26';
const CACHE_PREFIX = 'larq_cache_';
/** Three queues whose names hash to three different slots (two of them on different primaries). */
const QUEUES = ['high', 'low', 'default'];
const UNIQUE_STEP = 'App\\Jobs\\UniqueStep';

/** jobs.php / jobs13.php classes as a Node user declares them for Laravel 13. */
function job(name: string, props: string[], defaults: Record<string, unknown> = {}): PhpClass {
  const spec = (p: string) => ({ visibility: 'public' as const, default: p in defaults ? defaults[p] : null });
  return phpClass(
    `App\\Jobs\\${name}`,
    Object.fromEntries([...props, ...Object.keys(defaults)].map((p) => [p, spec(p)])),
    {
      traits: laravelJobTraits(13),
      serializesModels: true,
    },
  );
}
const ChainStep = job('ChainStep', ['step']);
const FailingJob = job('FailingJob', ['reason', 'tries', 'backoff']);
// `public $tries = 0`: no attempt limit, whatever the worker's --tries
const ReleasingJob = job('ReleasingJob', ['times', 'releaseDelay'], { tries: 0 });
const UniqueStep = job('UniqueStep', ['uniqueId']);

type Prop = { name: string; value: { v?: unknown } };
/** A public property of a PHP worker record's command. */
const propOf = (r: WorkerRecord, name: string): unknown =>
  (r.description as { props: Prop[] }).props.find((p) => p.name === name)?.value.v;

describe('interop: larq and Laravel 13.26 on one Redis Cluster (phpredis cluster connection)', function () {
  this.timeout(120000);
  const { phpDispatch, runLaravelWorkerDetailed, startLaravelWorker, runPhp } = laravelHarness(LINE);
  let cluster: LocalCluster;
  let client: Cluster;
  let dir: string;
  const open: { close(): Promise<void> }[] = [];

  before(async function () {
    requirePhp(this, LINE);
    cluster = await LocalCluster.start(this);
    client = cluster.client();
    dir = mkdtempSync(join(tmpdir(), 'larq-cluster-laravel-'));
  });
  after(async () => {
    await cluster?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  afterEach(async () => Promise.all(open.splice(0).map((o) => o.close())));

  /** Both sides on one prefix: Laravel's connection settings, larq's queue and cache on their own Cluster clients. */
  function sides(prefix = randomPrefix()) {
    const php: PhpConnection = {
      laravel: LINE,
      cluster: cluster.ports,
      prefix,
      cachePrefix: CACHE_PREFIX,
      env: php13Env(),
    };
    const queue = new RedisQueue({
      connection: cluster.client(),
      cluster: true,
      laravel: LINE,
      prefix,
      retryAfter: 90,
    });
    const cache = new RedisCacheStore({ connection: cluster.client(), prefix, cachePrefix: CACHE_PREFIX, laravel: 13 });
    open.push(queue, cache);
    return { prefix, php, queue, cache };
  }

  const queueKey = (prefix: string, queue: string, suffix = '') => `${prefix}queues:{${queue}}${suffix}`;

  /** Every key under the prefix on every primary, sorted (KEYS on a cluster client asks one node only). */
  async function keysUnder(prefix: string): Promise<string[]> {
    const perNode = await Promise.all(client.nodes('master').map((n) => n.keys(`${prefix}*`)));
    return perNode.flat().sort();
  }
  /** The queue keys left under the prefix: none once every job ran, released ones included. */
  const queueKeysLeft = async (prefix: string) =>
    (await keysUnder(prefix)).filter((k) => k.startsWith(`${prefix}queues:`));

  /** Laravel's failed_jobs (database-uuids) on a SQLite file, for larq's worker and Laravel's reader. */
  async function failedJobsTable(prefix: string): Promise<string> {
    const sqlite = join(dir, `${prefix}.sqlite`);
    writeFileSync(sqlite, ''); // Laravel's SQLite connector wants the file to exist
    const created = await runPhp('failed-provider.php', ['create-table', JSON.stringify({ uuid: true })], {
      LARQ_SQLITE: sqlite,
    });
    expect(created.code, created.stderr).to.equal(0);
    return sqlite;
  }
  async function laravelFailedJobs(
    sqlite: string,
  ): Promise<{ id: string; connection: string; queue: string; payload: string; exception: string }[]> {
    const res = await runPhp('failed-provider.php', ['all'], { LARQ_SQLITE: sqlite });
    expect(res.code, res.stderr).to.equal(0);
    return JSON.parse(res.stdout);
  }

  it('the queue names hash to different slots, and two of them to different primaries', async function () {
    const prefix = randomPrefix();
    const slots = await Promise.all(QUEUES.map((q) => cluster.slotOf(queueKey(prefix, q))));
    expect(new Set(slots).size).to.equal(QUEUES.length);
    const primaries = await Promise.all(QUEUES.map((q) => cluster.primaryPortOf(queueKey(prefix, q))));
    expect(new Set(primaries).size).to.be.at.least(2);
  });

  describe('Laravel dispatches, larq runs', function () {
    it('jobs on three queues on different slots: under queues:{name}, each run once with its data', async function () {
      const { prefix, php, queue } = sides();
      const sent = [
        await phpDispatch('on-queue', { ...php, args: ['high'] }),
        await phpDispatch('on-queue', { ...php, args: ['low'] }),
        await phpDispatch('object-basic', php),
      ];
      // Laravel 13.5+ wraps the name in a hash tag on a cluster connection: all of a queue's keys on one slot
      for (const q of QUEUES) expect(await client.llen(queueKey(prefix, q)), q).to.equal(1);
      const ran: unknown[] = [];
      const handlers = new Handlers()
        .object(
          'App\\Jobs\\ChainStep',
          (c: { step: number }, ctx) => void ran.push([ctx.queue, ctx.id, ctx.attempts, c.step]),
        )
        .object(
          'App\\Jobs\\SendWelcomeEmail',
          (c: { to: string }, ctx) => void ran.push([ctx.queue, ctx.id, ctx.attempts, c.to]),
        );
      const result = await createWorker(queue, handlers, { sleep: 0, stopWhenEmpty: true, memory: 4096 }).daemon(
        QUEUES.join(','),
      );
      expect(result).to.deep.equal({ status: 0, reason: 'empty' });
      expect(ran).to.deep.equal([
        ['high', sent[0].ids[0], 1, 1],
        ['low', sent[1].ids[0], 1, 1],
        ['default', sent[2].ids[0], 1, 'ada@example.com'],
      ]);
      expect(await queueKeysLeft(prefix)).to.deep.equal([]);
    });

    it('a job Laravel delayed 2 s on queues:{low}:delayed runs once due, not before', async function () {
      const { prefix, php, queue } = sides();
      const sent = await phpDispatch('delayed', { ...php, args: [2, 'low'] });
      const [, score] = await client.zrange(queueKey(prefix, 'low', ':delayed'), 0, '-1', 'WITHSCORES');
      // due 2 s after Laravel's clock reading during the dispatch, which lies in [before, after]
      expect(Number(score)).to.be.within(sent.before + 2, sent.after + 2);
      const ran: { id: string | null; at: number }[] = [];
      const handlers = new Handlers().object(
        'App\\Jobs\\SendWelcomeEmail',
        (_c, ctx) => void ran.push({ id: ctx.id, at: Date.now() / 1000 }),
      );
      expect(await createWorker(queue, handlers, { sleep: 0.1, maxJobs: 1, memory: 4096 }).daemon('low')).to.deep.equal(
        { status: 0, reason: 'max_jobs' },
      );
      expect(ran).to.have.length(1);
      expect(ran[0].id).to.equal(sent.ids[0]);
      expect(ran[0].at).to.be.at.least(Number(score));
      expect(await queueKeysLeft(prefix)).to.deep.equal([]);
    });

    it('a job released twice (delay 1 s) runs three times, attempts 1, 2, 3, each run not before its release is due', async function () {
      const { prefix, php, queue } = sides();
      const sent = await phpDispatch('object-releasing', { ...php, args: [2, 1] });
      const delayedKey = queueKey(prefix, 'default', ':delayed');
      const runs: { id: string | null; attempts: number; at: number; reserved: number }[] = [];
      const dueAt: number[] = [];
      const handlers = new Handlers().object(
        'App\\Jobs\\ReleasingJob',
        async (c: { times: number; releaseDelay: number }, ctx) => {
          runs.push({
            id: ctx.id,
            attempts: ctx.attempts,
            at: Date.now() / 1000,
            reserved: await client.zcard(queueKey(prefix, 'default', ':reserved')),
          });
          // ReleasingJob::handle, in Node
          if (ctx.attempts > c.times) return;
          const releasedAt = Math.floor(Date.now() / 1000);
          await ctx.release(c.releaseDelay);
          const [member, score] = await client.zrange(delayedKey, 0, '-1', 'WITHSCORES');
          expect(JSON.parse(member)).to.include({ id: sent.ids[0], attempts: ctx.attempts });
          expect(Number(score) - releasedAt).to.be.within(1, 2);
          dueAt.push(Number(score));
        },
      );
      expect(
        await createWorker(queue, handlers, { sleep: 0.1, maxJobs: 3, memory: 4096 }).daemon('default'),
      ).to.deep.equal({ status: 0, reason: 'max_jobs' });
      expect(runs.map((r) => [r.id, r.attempts, r.reserved])).to.deep.equal([1, 2, 3].map((n) => [sent.ids[0], n, 1]));
      expect(dueAt).to.have.length(2);
      for (const [i, due] of dueAt.entries()) expect(runs[i + 1].at, `run ${i + 2}`).to.be.at.least(due);
      expect(await queueKeysLeft(prefix)).to.deep.equal([]);
    });

    it('a job failing with tries 2: two runs, then one failed_jobs row Laravel reads, queue unwrapped', async function () {
      const { prefix, php, queue } = sides();
      const sqlite = await failedJobsTable(prefix);
      const sent = await phpDispatch('object-failing', { ...php, args: [2, 'boom'] });
      const failed = createFailedJobProvider({
        driver: 'database-uuids',
        database: { driver: 'sqlite', database: sqlite },
      });
      open.push(failed);
      const runs: number[] = [];
      const hooked: unknown[] = [];
      const handlers = new Handlers().object(
        'App\\Jobs\\FailingJob',
        (c: { reason: string }, ctx) => {
          runs.push(ctx.attempts);
          throw new Error(c.reason);
        },
        { failed: (error) => void hooked.push(error?.message) },
      );
      const result = await createWorker(
        queue,
        handlers,
        { sleep: 0, stopWhenEmpty: true, memory: 4096 },
        { failed },
      ).daemon('default');
      expect(result).to.deep.equal({ status: 0, reason: 'empty' });
      expect(runs).to.deep.equal([1, 2]);
      expect(hooked).to.deep.equal(['boom']);
      const rows = await laravelFailedJobs(sqlite);
      expect(rows).to.have.length(1);
      expect(rows[0]).to.include({ connection: 'redis', queue: 'default' });
      expect(JSON.parse(rows[0].payload)).to.include({ id: sent.ids[0], attempts: 1 });
      expect(rows[0].exception).to.match(/^Error: boom in /);
      expect(await queueKeysLeft(prefix)).to.deep.equal([]);
    });
  });

  describe("larq dispatches, Laravel's worker runs", function () {
    it('jobs on three queues on different slots and one delayed 2 s: each run once, with its data, the delayed one when due', async function () {
      const { prefix, php, queue } = sides();
      const ids = [
        await queue.push(ChainStep.make({ step: 1 }), 'high'),
        await queue.push(ChainStep.make({ step: 2 }), 'low'),
        await queue.push(ChainStep.make({ step: 3 }), 'default'),
      ];
      for (const q of QUEUES) expect(await client.llen(queueKey(prefix, q)), q).to.equal(1);
      const worker = startLaravelWorker({ ...php, queue: QUEUES.join(',') });
      let records: WorkerRecord[];
      let availableAt: number;
      try {
        const delayedId = await queue.later(2, ChainStep.make({ step: 4 }), 'low');
        ids.push(delayedId);
        [{ availableAt: availableAt! }] = (await queue.delayedJobs('low')) as { availableAt: number }[];
        records = await worker.waitForRecords(4, 20000);
      } finally {
        await worker.stop();
      }
      expect(records.map((r) => [r.queue, r.jobId, r.attempts, propOf(r, 'step')])).to.deep.equal([
        ['high', ids[0], 1, 1],
        ['low', ids[1], 1, 2],
        ['default', ids[2], 1, 3],
        ['low', ids[3], 1, 4],
      ]);
      expect(records[3].time).to.be.at.least(availableAt);
      expect(await queueKeysLeft(prefix)).to.deep.equal([]);
    });

    it('a job released once (delay 1 s) and one failing with tries 2: attempts, failed() and the failed record', async function () {
      const { prefix, php, queue } = sides();
      const releasing = await queue.push(ReleasingJob.make({ times: 1, releaseDelay: 1 }), 'high');
      const failing = await queue.push(FailingJob.make({ reason: 'boom', tries: 2 }), 'low');
      const worker = startLaravelWorker({ ...php, queue: 'high,low' });
      let records: WorkerRecord[];
      try {
        records = await worker.waitForRecords(5, 20000);
      } finally {
        await worker.stop();
      }
      const run = await worker.done;
      const of = (id: string) => records.filter((r) => r.jobId === id).map((r) => [r.hook, r.attempts]);
      expect(of(releasing)).to.deep.equal([
        ['handle', 1],
        ['handle', 2],
      ]);
      expect(of(failing)).to.deep.equal([
        ['handle', 1],
        ['handle', 2],
        ['failed', 2],
      ]);
      expect(run.failed.map((f) => [f.connection, f.queue, f.message, JSON.parse(f.payload).id])).to.deep.equal([
        ['redis', 'low', 'boom', failing],
      ]);
      expect(await queueKeysLeft(prefix)).to.deep.equal([]);
    });
  });

  describe('queue names that bring their own braces', function () {
    // Laravel wraps a name only when it has no hash tag of its own (Connection::hasHashTag): `{mail}:high`
    // stays as it is, `odd{}name` (empty braces are no tag) is wrapped.
    const cases: [string, string][] = [
      ['{mail}:high', 'queues:{mail}:high'],
      ['odd{}name', 'queues:{odd{}name}'],
    ];
    for (const [name, key] of cases) {
      it(`${name}: both sides use ${key}, each runs the other's job`, async function () {
        const { prefix, php, queue } = sides();
        const sent = await phpDispatch('on-queue', { ...php, args: [name] });
        expect(await client.llen(`${prefix}${key}`)).to.equal(1);
        const ran: unknown[] = [];
        const handlers = new Handlers().object('App\\Jobs\\ChainStep', (_c, ctx) => void ran.push([ctx.queue, ctx.id]));
        await createWorker(queue, handlers, { sleep: 0, stopWhenEmpty: true, memory: 4096 }).daemon(name);
        expect(ran).to.deep.equal([[name, sent.ids[0]]]);

        const id = await queue.push(ChainStep.make({ step: 2 }), name);
        expect(await client.llen(`${prefix}${key}`)).to.equal(1);
        const run = await runLaravelWorkerDetailed({ ...php, queue: name });
        expect(
          run.records.map((r) => [r.queue, r.jobId]),
          run.stderr,
        ).to.deep.equal([[name, id]]);
        expect(await queueKeysLeft(prefix)).to.deep.equal([]);
      });
    }
  });

  describe('blocking pops (block_for 10)', function () {
    // A blocked worker waits on its queue's :notify list (queues:{name}:notify on a cluster); a push from the
    // other side must land there to wake it, else the job waits out the block.
    it("Laravel's blocked worker wakes on larq's push, and larq's blocked worker on Laravel's", async function () {
      const { prefix, php } = sides();
      const queue = new RedisQueue({
        connection: cluster.client(),
        cluster: true,
        laravel: LINE,
        prefix,
        retryAfter: 90,
        blockFor: 10,
      });
      open.push(queue);
      const laravel = startLaravelWorker({ ...php, blockFor: 10, queue: 'low', maxJobs: 1 });
      let records: WorkerRecord[];
      let pushedAt: number;
      try {
        await new Promise((r) => setTimeout(r, 2000)); // booted and blocked on queues:{low}:notify
        pushedAt = Date.now() / 1000;
        await queue.push(ChainStep.make({ step: 1 }), 'low');
        records = await laravel.waitForRecords(1, 20000);
      } finally {
        await laravel.stop();
      }
      expect(records[0].time - pushedAt, 'woken by the push, not by the end of the block').to.be.below(5);

      let ranAt = 0;
      const handlers = new Handlers().object('App\\Jobs\\ChainStep', () => void (ranAt = Date.now() / 1000));
      const working = createWorker(queue, handlers, { sleep: 0, maxJobs: 1, memory: 4096 }).daemon('high');
      await new Promise((r) => setTimeout(r, 1000));
      await phpDispatch('on-queue', { ...php, args: ['high'] });
      const dispatchedAt = Date.now() / 1000;
      expect(await working).to.deep.equal({ status: 0, reason: 'max_jobs' });
      expect(ranAt - dispatchedAt, 'woken by the push, not by the end of the block').to.be.below(5);
      expect(await queueKeysLeft(prefix)).to.deep.equal([]);
    });
  });

  describe('the cache on the cluster', function () {
    it("Laravel's queue:restart stops larq's worker; larq's restart signal stops Laravel's", async function () {
      const { php, queue, cache } = sides();
      await queue.push(ChainStep.make({ step: 1 }));
      const handlers = new Handlers().object('App\\Jobs\\ChainStep', () => undefined);
      const worker = createWorker(queue, handlers, { sleep: 0.05, maxTime: 60, memory: 4096 }, { cache });
      let restarted: Promise<unknown> | undefined;
      worker.on('JobProcessed', () => void (restarted ??= dispatch13('restart', [], php)));
      expect(await worker.daemon('default')).to.deep.equal({ status: 0, reason: 'restart_signal' });
      await restarted;
      const stamp = await readRestart(cache);
      expect(stamp).to.be.a('number');
      expect(Math.abs(Number(stamp) - Date.now() / 1000)).to.be.below(30);

      // The other way: Laravel's worker started after that signal, so only a new one stops it.
      await queue.push(ChainStep.make({ step: 2 }));
      const started = Date.now();
      const laravel = startLaravelWorker({ ...php, queue: 'default', maxTime: 60 });
      await laravel.waitForRecords(1, 20000);
      await signalRestart(cache, Math.floor(Date.now() / 1000) + 1);
      const run = await laravel.done;
      expect(run.code, run.stderr).to.equal(0);
      expect(Date.now() - started, 'stopped by the signal, long before --max-time').to.be.below(30000);
    });

    it("Laravel's Queue::pause and pauseAll hold larq's worker until resumed", async function () {
      const { prefix, php, queue, cache } = sides();
      await phpDispatch('on-queue', { ...php, args: ['high'] });
      await phpDispatch('on-queue', { ...php, args: ['low'] });
      const ran: string[] = [];
      const handlers = new Handlers().object('App\\Jobs\\ChainStep', (_c, ctx) => void ran.push(ctx.queue));
      const work = () =>
        createWorker(queue, handlers, { sleep: 0, stopWhenEmpty: true, memory: 4096 }, { cache }).daemon('high,low');

      await dispatch13('pause', ['high'], php);
      await work();
      expect(ran).to.deep.equal(['low']);
      expect(await client.llen(queueKey(prefix, 'high'))).to.equal(1);

      await dispatch13('resume', ['high'], php);
      await dispatch13('pause-all', [], php);
      await phpDispatch('on-queue', { ...php, args: ['low'] });
      await work();
      expect(ran).to.deep.equal(['low']);

      await dispatch13('resume-all', [], php);
      await work();
      expect(ran).to.deep.equal(['low', 'high', 'low']);
      expect(await queueKeysLeft(prefix)).to.deep.equal([]);
    });

    it("larq's pause of one queue and of every queue hold Laravel's worker until resumed", async function () {
      const { prefix, php, queue, cache } = sides();
      await queue.push(ChainStep.make({ step: 1 }), 'high');
      await queue.push(ChainStep.make({ step: 2 }), 'low');
      const work = async () => {
        const run = await runLaravelWorkerDetailed({ ...php, queue: 'high,low' });
        expect(run.code, run.stderr).to.equal(0);
        return run.records.map((r) => [r.queue, propOf(r, 'step')]);
      };

      await pauseQueue(cache, 'redis', 'high');
      expect(await work()).to.deep.equal([['low', 2]]);

      await resumeQueue(cache, 'redis', 'high');
      await cache.forever(globalPausedKey, true); // what Queue::pauseAll() stores (13.25+)
      await queue.push(ChainStep.make({ step: 3 }), 'low');
      expect(await work()).to.deep.equal([]);

      await cache.forget(globalPausedKey);
      expect(await work()).to.deep.equal([
        ['high', 1],
        ['low', 3],
      ]);
      expect(await queueKeysLeft(prefix)).to.deep.equal([]);
    });

    it("a ShouldBeUnique lock Laravel's dispatch() took is held for larq, and released by larq's worker", async function () {
      const { php, queue, cache } = sides();
      const lockKey = `laravel_unique_job:${UNIQUE_STEP}:u1`;
      expect((await dispatch13('unique-step', ['u1', 'node'], php)).ids).to.have.length(1);
      expect(await cache.lock(lockKey).currentOwner()).to.be.a('string');
      expect(
        await dispatchUnique(queue, cache, UniqueStep.make({ uniqueId: 'u1' }), {}, { laravel: LINE }),
        'larq skips while PHP holds it',
      ).to.equal(null);
      const ran: string[] = [];
      const handlers = new Handlers({ hooks: [uniqueJobs({ [UNIQUE_STEP]: {} }, cache, { laravel: LINE })] }).object(
        UNIQUE_STEP,
        (c: { uniqueId: string }) => void ran.push(c.uniqueId),
      );
      await createWorker(queue, handlers, { sleep: 0, stopWhenEmpty: true, memory: 4096 }).daemon('node');
      expect(ran).to.deep.equal(['u1']);
      expect(await cache.lock(lockKey).currentOwner()).to.equal(null);
      expect((await dispatch13('unique-step', ['u1', 'node'], php)).ids).to.have.length(1);
    });

    it("a ShouldBeUnique lock larq's dispatch took is held for Laravel, and released by Laravel's worker", async function () {
      const { prefix, php, queue, cache } = sides();
      const lockKey = `laravel_unique_job:${UNIQUE_STEP}:u2`;
      const id = await dispatchUnique(queue, cache, UniqueStep.make({ uniqueId: 'u2' }), {}, { laravel: LINE });
      expect(id).to.be.a('string');
      expect(await cache.lock(lockKey).currentOwner()).to.be.a('string');
      expect(
        (await dispatch13('unique-step', ['u2', 'php'], php)).ids,
        'Laravel skips while larq holds it',
      ).to.deep.equal([]);
      const run = await runLaravelWorkerDetailed({ ...php, queue: 'default' });
      expect(run.code, run.stderr).to.equal(0);
      expect(run.records.map((r) => [r.class, r.jobId])).to.deep.equal([[UNIQUE_STEP, id]]);
      expect(await cache.lock(lockKey).currentOwner()).to.equal(null);
      expect(await dispatchUnique(queue, cache, UniqueStep.make({ uniqueId: 'u2' }), {}, { laravel: LINE })).to.be.a(
        'string',
      );
      expect(await client.llen(queueKey(prefix, 'default'))).to.equal(1);
    });

    it("maxExceptions counts across both workers: Laravel's first exception, larq's second fails the job", async function () {
      const { prefix, php, queue, cache } = sides();
      const sqlite = await failedJobsTable(prefix);
      await dispatch13('flaky', [1, 'default'], php);
      const first = await runLaravelWorkerDetailed({ ...php, queue: 'default', maxJobs: 1 });
      expect(first.records.map((r) => [r.hook, r.attempts])).to.deep.equal([['handle', 1]]);
      const uuid = first.records[0].uuid!;
      expect(await cache.get(exceptionsKey(uuid))).to.equal(1);

      const failed = createFailedJobProvider({
        driver: 'database-uuids',
        database: { driver: 'sqlite', database: sqlite },
      });
      open.push(failed);
      const runs: number[] = [];
      const handlers = new Handlers().object('App\\Jobs\\FlakyJob', (c: { n: number }, ctx) => {
        runs.push(ctx.attempts);
        throw new Error(`flaky ${c.n}`);
      });
      await createWorker(queue, handlers, { sleep: 0.1, maxJobs: 1, memory: 4096 }, { cache, failed }).daemon(
        'default',
      );
      expect(runs).to.deep.equal([2]);
      const rows = await laravelFailedJobs(sqlite);
      expect(rows.map((r) => [r.id, r.queue])).to.deep.equal([[uuid, 'default']]);
      expect(rows[0].exception).to.match(/^Error: flaky 1 in /);
      expect(await cache.get(exceptionsKey(uuid))).to.equal(null);
      expect(await queueKeysLeft(prefix)).to.deep.equal([]);
    });

    it("maxExceptions counts across both workers: larq's first exception, Laravel's second fails the job", async function () {
      const { prefix, php, queue, cache } = sides();
      await dispatch13('flaky', [2, 'default'], php);
      const handlers = new Handlers().object('App\\Jobs\\FlakyJob', (c: { n: number }) => {
        throw new Error(`flaky ${c.n}`);
      });
      let uuid: string | null = null;
      const worker = createWorker(queue, handlers, { sleep: 0.1, maxJobs: 1, memory: 4096 }, { cache });
      worker.on('JobExceptionOccurred', (e) => void (uuid = e.job.uuid()));
      await worker.daemon('default');
      expect(uuid).to.be.a('string');
      expect(await cache.get(exceptionsKey(uuid!))).to.equal(1);

      const run = await runLaravelWorkerDetailed({ ...php, queue: 'default' });
      expect(run.records.map((r) => [r.hook, r.attempts])).to.deep.equal([
        ['handle', 2],
        ['failed', 2],
      ]);
      expect(run.failed.map((f) => [JSON.parse(f.payload).uuid, f.queue, f.message])).to.deep.equal([
        [uuid, 'default', 'flaky 2'],
      ]);
      expect(await cache.get(exceptionsKey(uuid!))).to.equal(null);
      expect(await queueKeysLeft(prefix)).to.deep.equal([]);
    });
  });
  describe('the larq command on the cluster (LARQ_REDIS_CLUSTER), beside Laravel on it', function () {
    let cli: CompiledCli;
    before(() => {
      cli = compileCli();
    });
    after(() => cli?.remove());

    /** The app's .env as a Laravel 13 app on this cluster has it: larq reads the nodes from LARQ_REDIS_CLUSTER. */
    function envFile(prefix: string): string {
      const file = join(dir, `${prefix}.env`);
      const vars = {
        APP_NAME: 'Shop',
        LARQ_LARAVEL: '13',
        LARQ_REDIS_CLUSTER: cluster.ports.map((p) => `127.0.0.1:${p}`).join(','),
        REDIS_PREFIX: prefix,
        CACHE_STORE: 'redis',
        CACHE_PREFIX: CACHE_PREFIX,
        QUEUE_FAILED_DRIVER: 'null',
      };
      writeFileSync(
        file,
        Object.entries(vars)
          .map(([k, v]) => `${k}=${v}`)
          .join('\n') + '\n',
      );
      return file;
    }

    /** Resolves with the process's exit code, or null when it is still running after timeoutMs (then killed). */
    async function exitWithin(run: LarqProcess, timeoutMs: number): Promise<number | null> {
      const code = await Promise.race([
        run.done,
        new Promise<'running'>((r) => setTimeout(() => r('running'), timeoutMs)),
      ]);
      if (code !== 'running') return code;
      run.child.kill('SIGKILL');
      return null;
    }

    it("`larq work` runs Laravel's jobs from queues on different slots, and stops on Laravel's queue:restart", async function () {
      const { prefix, php, queue } = sides();
      const env = envFile(prefix);
      await phpDispatch('on-queue', { ...php, args: ['high'] });
      await phpDispatch('on-queue', { ...php, args: ['low'] });
      const work = startLarq(cli.main, [
        'work',
        `--handlers=${cli.handlers}`,
        '--queue=high,low',
        '--sleep=0.1',
        `--env=${env}`,
      ]);
      try {
        for (let i = 0; i < 200 && (work.stdout.match(/ DONE$/gm) ?? []).length < 2; i++)
          await new Promise((r) => setTimeout(r, 100));
        expect(work.stdout.match(/ DONE$/gm), work.stdout + work.stderr).to.have.length(2);
        await dispatch13('restart', [], php);
        expect(await exitWithin(work, 15000), work.stdout + work.stderr).to.equal(0);
        expect(work.stdout).to.include('Worker stopped: restart_signal (status 0)');
      } finally {
        work.child.kill('SIGKILL');
      }
      expect([await queue.size('high'), await queue.size('low')]).to.deep.equal([0, 0]);
    });

    it("`larq restart` stops Laravel's worker on the cluster", async function () {
      const { prefix, php, queue } = sides();
      await queue.push(ChainStep.make({ step: 1 }), 'low');
      const started = Date.now();
      const laravel = startLaravelWorker({ ...php, queue: 'high,low', maxTime: 60 });
      await laravel.waitForRecords(1, 20000);
      const restart = await runLarq(cli.main, ['restart', `--env=${envFile(prefix)}`]);
      expect(restart.code, restart.stderr).to.equal(0);
      const run = await laravel.done;
      expect(run.code, run.stderr).to.equal(0);
      expect(Date.now() - started, 'stopped by the signal, long before --max-time').to.be.below(30000);
    });
  });
});
