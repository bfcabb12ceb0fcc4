// Laravel's job features across the language boundary, against real Laravel on the same Redis, on every
// line of LARAVEL_LINES (8.83, 12.67, 13.26):
// chains, batches, unique jobs, models, queued listeners, closures and encrypted jobs, each with PHP and
// larq workers taking turns on the same flow.
import { expect } from 'chai';
import { writeFileSync } from 'fs';
import { join } from 'path';
import { RedisCacheStore } from '../../lib/cache/RedisCacheStore';
import { createWorker } from '../../lib/createWorker';
import { createFailedJobProvider } from '../../lib/failed';
import { type CommandHooks, Handlers } from '../../lib/handlers/Handlers';
import { RedisQueue } from '../../lib/RedisQueue';
import { laravelJobTraits, phpClass } from '../../lib/php/builder';
import { Encrypter } from '../../lib/php/Encrypter';
import { chainHooks, dispatchChain } from '../../lib/features/chain';
import { dispatchUnique, uniqueJobs } from '../../lib/features/unique';
import { BatchRepository, batchHooks, dispatchBatch, type BatchRecord } from '../../lib/features/batch';
import { modelHooks, modelReference, modelReferences, type ModelReference } from '../../lib/features/models';
import { dispatchListener, queuedListener } from '../../lib/features/wrappers';
import { phpJobsFor } from '../support/phpJobs';
import { randomPrefix } from '../support/redis';
import { LARAVEL_LINES, laravelHarness, requirePhp, type WorkerRecord } from '../support/php';
import { useRedisQueue } from '../support/useRedisQueue';
import { useTempDir } from '../support/useTempDir';

const stepOf = (r: WorkerRecord): unknown => {
  const d = r.description as { t: string; props?: { name: string; value: { v?: unknown } }[] };
  return d.props?.find((p) => p.name === 'step')?.value.v;
};

/** Each line's skeleton cache prefix, given to both sides (8.x's Redis store adds ':', later ones nothing). */
const CACHE_PREFIX = { 8: 'laravel_cache', 12: 'laravel_cache_', 13: 'laravel-cache-' } as const;

for (const line of LARAVEL_LINES)
  describe(`interop: Laravel ${line} job features with larq in the flow`, function () {
    this.timeout(90000);
    const redis = useRedisQueue();
    const temp = useTempDir('interop-features', 'all');
    const { major, phpDispatch, runLaravelWorker, runLaravelWorkerDetailed, runPhp } = laravelHarness(line);
    const { ChainStep, SecretJob } = phpJobsFor(major);
    const cachePrefix = CACHE_PREFIX[major];

    before(async function () {
      requirePhp(this, line);
    });

    async function failedTable(sqlite: string): Promise<void> {
      writeFileSync(sqlite, '');
      const created = await runPhp('failed-provider.php', ['create-table', JSON.stringify({ uuid: true })], {
        LARQ_SQLITE: sqlite,
      });
      expect(created.code, created.stderr).to.equal(0);
    }

    function setup(
      prefix: string,
      hooks: CommandHooks[] | ((queue: RedisQueue) => CommandHooks[]) = [],
      extra: { failedSqlite?: string } = {},
    ) {
      const queue = new RedisQueue({ connection: { port: redis.port }, prefix, laravel: major, retryAfter: 90 });
      const handlers = new Handlers({ hooks: typeof hooks === 'function' ? hooks(queue) : hooks });
      const failed = extra.failedSqlite
        ? createFailedJobProvider({
            driver: 'database-uuids',
            database: { driver: 'sqlite', database: extra.failedSqlite },
          })
        : undefined;
      const errors: Error[] = [];
      const run = async (queues: string) => {
        const worker = createWorker(
          queue,
          handlers,
          { memory: 4096, sleep: 0.05, stopWhenEmpty: true, timeout: 0 },
          { failed },
        );
        worker.on('error', (e: Error) => void errors.push(e));
        return worker.daemon(queues);
      };
      return { queue, handlers, run, failed, errors };
    }

    describe('chains (1)', () => {
      it('a PHP chain whose middle step runs in larq completes in order', async () => {
        const prefix = randomPrefix();
        await phpDispatch('chain-node', { port: redis.port, prefix });
        const { queue, handlers, run } = setup(prefix, (q) => [chainHooks(q)]);
        const seen: unknown[] = [];
        handlers.object('App\\Jobs\\ChainStep', (command, ctx) => {
          seen.push([command.step, ctx.queue]);
        });
        try {
          // PHP runs step 1 on "default" and dispatches step 2 to "node"; larq runs it and dispatches step 3.
          const first = await runLaravelWorker({ port: redis.port, prefix, queue: 'default' });
          expect(first.map(stepOf)).to.deep.equal([1]);
          await run('node');
          expect(seen).to.deep.equal([[2, 'node']]);
          const last = await runLaravelWorker({ port: redis.port, prefix, queue: 'default' });
          expect(last.map(stepOf)).to.deep.equal([3]);
          expect(last[0].queue).to.equal('default');
          expect(await redis.client.keys(`${prefix}*`)).to.deep.equal([]);
        } finally {
          await queue.close();
        }
      });

      it('carries extra payload keys (Context, Horizon) to the next step', async () => {
        const prefix = randomPrefix();
        const queue = new RedisQueue({ connection: { port: redis.port }, prefix, laravel: major });
        try {
          await dispatchChain(queue, [ChainStep.make({ step: 1 }), ChainStep.make({ step: 2 })], { queue: 'node' });
          // rewrite the first payload with an extra key, as a createPayloadUsing hook would have
          const [raw] = await redis.client.lrange(`${prefix}queues:node`, 0, -1);
          const withExtra = raw.replace(
            /}$/,
            ',"illuminate:log:context":{"data":{"k":"s:1:\\"v\\";"},"hidden":[]},"tags":["a"]}',
          );
          await redis.client.del(`${prefix}queues:node`);
          await redis.client.rpush(`${prefix}queues:node`, withExtra);
          const h = new Handlers({ hooks: [chainHooks(queue)] }).object('App\\Jobs\\ChainStep', () => undefined);
          const worker = createWorker(queue, h, {
            memory: 4096,
            sleep: 0.05,
            stopWhenEmpty: true,
            timeout: 0,
            maxJobs: 1,
          });
          await worker.daemon('node');
          const [next] = await redis.client.lrange(`${prefix}queues:node`, 0, -1);
          const p = JSON.parse(next);
          expect(p['illuminate:log:context']).to.deep.equal({ data: { k: 's:1:"v";' }, hidden: [] });
          expect(p.tags).to.deep.equal(['a']);
          // RedisQueue puts id and attempts after everything else; 12.x and 13.x add delay after them.
          const tail = major === 8 ? ['id', 'attempts'] : ['id', 'attempts', 'delay'];
          expect(Object.keys(p).slice(-tail.length)).to.deep.equal(tail);
          const records = await runLaravelWorker({ port: redis.port, prefix, queue: 'node' });
          expect(records.map(stepOf)).to.deep.equal([2]);
        } finally {
          await queue.close();
        }
      });

      it('a chain built in Node runs in PHP, step by step', async () => {
        const prefix = randomPrefix();
        const queue = new RedisQueue({ connection: { port: redis.port }, prefix, laravel: major });
        try {
          await dispatchChain(
            queue,
            [1, 2, 3].map((step) => ChainStep.make({ step })),
            { queue: 'default' },
          );
          const records = await runLaravelWorker({ port: redis.port, prefix, queue: 'default' });
          expect(records.map(stepOf)).to.deep.equal([1, 2, 3]);
          expect(await redis.client.keys(`${prefix}*`)).to.deep.equal([]);
        } finally {
          await queue.close();
        }
      });
    });

    describe('batches (2)', () => {
      const BatchStep = phpClass(
        'App\\Jobs\\BatchStep',
        { n: 'public', fails: 'public' },
        { traits: laravelJobTraits(major, { batchable: true }), serializesModels: true },
      );
      const stepN = (raw: string): number => Number(/s:1:"n";i:(\d+);/.exec(JSON.parse(raw).data.command)![1]);

      async function phpBatch(prefix: string, sqlite: string): Promise<string> {
        const sent = await phpDispatch('batch', {
          port: redis.port,
          prefix,
          args: [8],
          env: { LARQ_BATCH_SQLITE: sqlite },
        });
        return (sent.described[0] as { v: string }).v;
      }

      function comparable(b: BatchRecord) {
        return {
          name: b.name,
          totalJobs: b.totalJobs,
          pendingJobs: b.pendingJobs,
          failedJobs: b.failedJobs,
          rawOptions: b.rawOptions,
          failedJobIds: b.failedJobIds.map((u) =>
            /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(u),
          ),
          cancelled: b.cancelledAt !== null,
          finished: b.finishedAt !== null,
          allowsFailures: b.allowsFailures,
        };
      }

      it('10 PHP batch jobs, 5 run in larq (one fails): the same job_batches row as an all-PHP run', async () => {
        // all in PHP
        const prefixA = randomPrefix();
        const sqliteA = join(temp.path, `${prefixA}-batches.sqlite`);
        const idA = await phpBatch(prefixA, sqliteA);
        const runA = await runLaravelWorkerDetailed({
          port: redis.port,
          prefix: prefixA,
          queue: 'default',
          env: { LARQ_BATCH_SQLITE: sqliteA },
        });
        expect(runA.records).to.have.length(10);
        const repoA = new BatchRepository({ driver: 'sqlite', database: sqliteA });
        const rowA = (await repoA.find(idA))!;
        await repoA.close();

        // steps 6-10 moved to the "node" queue (8.x batches push every job to one queue), run by larq
        const prefixB = randomPrefix();
        const sqliteB = join(temp.path, `${prefixB}-batches.sqlite`);
        const idB = await phpBatch(prefixB, sqliteB);
        for (const raw of await redis.client.lrange(`${prefixB}queues:default`, 0, -1)) {
          if (stepN(raw) < 6) continue;
          await redis.client.lrem(`${prefixB}queues:default`, 1, raw);
          await redis.client.rpush(`${prefixB}queues:node`, raw);
        }
        const repoB = new BatchRepository({ driver: 'sqlite', database: sqliteB });
        const queue = new RedisQueue({ connection: { port: redis.port }, prefix: prefixB, laravel: major });
        const ran: number[] = [];
        let failedUuid: string | null = null;
        const handlers = new Handlers({ hooks: [batchHooks(repoB)] }).object('App\\Jobs\\BatchStep', (c, ctx) => {
          ran.push(c.n as number);
          if (c.fails) {
            failedUuid = ctx.uuid;
            throw new Error(`batch step ${c.n} failed`);
          }
        });
        try {
          await createWorker(queue, handlers, {
            memory: 4096,
            sleep: 0.05,
            stopWhenEmpty: true,
            timeout: 0,
            maxTries: 1,
          }).daemon('node');
          expect(ran).to.deep.equal([6, 7, 8, 9, 10]);
          const runB = await runLaravelWorkerDetailed({
            port: redis.port,
            prefix: prefixB,
            queue: 'default',
            env: { LARQ_BATCH_SQLITE: sqliteB },
          });
          expect(runB.records).to.have.length(5);
          const rowB = (await repoB.find(idB))!;
          expect(comparable(rowB)).to.deep.equal(comparable(rowA));
          expect(comparable(rowA)).to.include({
            totalJobs: 10,
            pendingJobs: 1,
            failedJobs: 1,
            cancelled: true,
            finished: true,
          });
          // the failed uuid is the failed job's payload uuid
          expect(rowB.failedJobIds).to.deep.equal([failedUuid]);
        } finally {
          await queue.close();
          await repoB.close();
        }
      });

      it('a batch built in Node is read by Bus::findBatch and completed by a PHP worker', async () => {
        const prefix = randomPrefix();
        const sqlite = join(temp.path, `${prefix}-batches.sqlite`);
        const repo = new BatchRepository({ driver: 'sqlite', database: sqlite });
        await repo.createTable();
        const queue = new RedisQueue({ connection: { port: redis.port }, prefix, laravel: major });
        try {
          const batch = await dispatchBatch(
            queue,
            repo,
            [BatchStep.make({ n: 1, fails: false }), BatchStep.make({ n: 2, fails: false })],
            { name: 'from-node', queue: 'default' },
          );
          const found = await phpDispatch('find-batch', {
            port: redis.port,
            prefix,
            args: [batch.id],
            env: { LARQ_BATCH_SQLITE: sqlite },
          });
          const text = JSON.stringify(found.described[0]);
          expect(text).to.contain(batch.id).and.contain('from-node');
          const records = await runLaravelWorker({
            port: redis.port,
            prefix,
            queue: 'default',
            env: { LARQ_BATCH_SQLITE: sqlite },
          });
          expect(records).to.have.length(2);
          const after = (await repo.find(batch.id))!;
          expect(after).to.include({ totalJobs: 2, pendingJobs: 0, failedJobs: 0 });
          expect(after.finishedAt).to.be.a('number');
        } finally {
          await queue.close();
          await repo.close();
        }
      });
    });

    describe('unique jobs (3)', () => {
      const classes = { 'App\\Jobs\\UniqueJob': {} };
      const UniqueJob = phpClass(
        'App\\Jobs\\UniqueJob',
        { uniqueId: 'public' },
        { traits: laravelJobTraits(major), serializesModels: true },
      );
      // UniqueLock::getKey: class and uniqueId run together on 8.x-10.x, joined by ':' from 11.0.
      const lockKey = (id: string) =>
        major === 8 ? `laravel_unique_job:App\\Jobs\\UniqueJob${id}` : `laravel_unique_job:App\\Jobs\\UniqueJob:${id}`;

      it('from PHP, run in larq: a second dispatch while pending is skipped; after the run it is dispatched again', async () => {
        const prefix = randomPrefix();
        const cache = new RedisCacheStore({
          connection: { port: redis.port },
          prefix,
          cachePrefix,
          laravel: major,
          database: 0,
        });
        const { queue, handlers, run } = setup(prefix, [uniqueJobs(classes, cache, { laravel: major })]);
        const ran: unknown[] = [];
        handlers.object('App\\Jobs\\UniqueJob', (c) => void ran.push(c.uniqueId));
        try {
          expect(
            (await phpDispatch('unique', { port: redis.port, prefix, cachePrefix, args: ['u1'] })).ids,
          ).to.have.length(1);
          expect(await cache.lock(lockKey('u1')).currentOwner()).to.be.a('string');
          expect(
            (await phpDispatch('unique', { port: redis.port, prefix, cachePrefix, args: ['u1'] })).ids,
          ).to.have.length(0);
          await run('node');
          expect(ran).to.deep.equal(['u1']);
          expect(await cache.lock(lockKey('u1')).currentOwner()).to.equal(null);
          expect(
            (await phpDispatch('unique', { port: redis.port, prefix, cachePrefix, args: ['u1'] })).ids,
          ).to.have.length(1);
        } finally {
          await queue.close();
          await cache.close();
        }
      });

      it('from Node, run in PHP: dispatchUnique skips while pending, PHP releases the lock', async () => {
        const prefix = randomPrefix();
        const cache = new RedisCacheStore({
          connection: { port: redis.port },
          prefix,
          cachePrefix,
          laravel: major,
          database: 0,
        });
        const queue = new RedisQueue({ connection: { port: redis.port }, prefix, laravel: major });
        try {
          const job = () => UniqueJob.make({ uniqueId: 'n1', queue: 'node' });
          expect(await dispatchUnique(queue, cache, job(), {}, { laravel: major })).to.be.a('string');
          expect(await dispatchUnique(queue, cache, job(), {}, { laravel: major })).to.equal(null);
          // PHP's PendingDispatch sees the Node lock too
          expect(
            (await phpDispatch('unique', { port: redis.port, prefix, cachePrefix, args: ['n1'] })).ids,
          ).to.have.length(0);
          const records = await runLaravelWorker({ port: redis.port, prefix, queue: 'node' });
          expect(records).to.have.length(1);
          expect(await dispatchUnique(queue, cache, job(), {}, { laravel: major })).to.be.a('string');
        } finally {
          await queue.close();
          await cache.close();
        }
      });
    });

    describe('models (4)', () => {
      it('a PHP model reaches the handler as a typed reference; a missing model is deleted or failed as Laravel decides', async () => {
        const prefix = randomPrefix();
        const sqlite = join(temp.path, `${prefix}-failed.sqlite`);
        await failedTable(sqlite);
        const known = new Set(['7', '8', '9']);
        const resolver = (ref: ModelReference) => known.has(String(ref.id));
        const { queue, handlers, run, failed, errors } = setup(
          prefix,
          [modelHooks(resolver, { line: major, deleteWhenMissingModels: ['App\\Jobs\\DeletingModelJob'] })],
          { failedSqlite: sqlite },
        );
        const seen: unknown[] = [];
        handlers.object(
          'App\\Jobs\\ModelJob',
          (_c, ctx) => void seen.push([...modelReferences(ctx.command).entries()]),
        );
        handlers.object('App\\Jobs\\DeletingModelJob', () => void seen.push('deleting ran'));
        try {
          await phpDispatch('object-models', { port: redis.port, prefix });
          await phpDispatch('model-missing', { port: redis.port, prefix });
          const stop = await run('default');
          expect(seen).to.have.length(1);
          const [refs] = seen as [[string, ModelReference][]];
          expect(refs).to.deep.equal([
            [
              'user',
              {
                class: 'App\\Models\\User',
                kind: 'model',
                id: 7,
                relations: [],
                connection: 'mysql',
                collectionClass: null,
              },
            ],
            [
              'users',
              {
                class: 'App\\Models\\User',
                kind: 'collection',
                ids: [7, 8],
                relations: [],
                connection: 'mysql',
                collectionClass: null,
              },
            ],
          ]);
          expect(modelReference(null)).to.equal(null);
          // DeletingModelJob: deleted, not failed; ModelJob on user 99: failed with a ModelNotFound reason
          const rows = await failed!.all();
          expect(stop).to.deep.equal({ status: 0, reason: 'empty' });
          expect(rows, errors.map((e) => e.stack).join('\n')).to.have.length(1);
          expect(JSON.parse(rows[0].payload).displayName).to.equal('App\\Jobs\\ModelJob');
          expect(rows[0].exception).to.match(/No query results for model \[App\\Models\\User\] 99/);
          expect(await redis.client.keys(`${prefix}*`)).to.deep.equal([]);
          // parity: Laravel's own worker does the same with the same jobs
          const prefix2 = randomPrefix();
          await phpDispatch('model-missing', { port: redis.port, prefix: prefix2 });
          const php8 = await runLaravelWorkerDetailed({
            port: redis.port,
            prefix: prefix2,
            queue: 'default',
            stopWhenEmpty: true,
          });
          expect(php8.records).to.deep.equal([]);
          expect(php8.failed.map((f) => [JSON.parse(f.payload).displayName, f.exceptionClass])).to.deep.equal([
            ['App\\Jobs\\ModelJob', 'Illuminate\\Database\\Eloquent\\ModelNotFoundException'],
          ]);
        } finally {
          await queue.close();
          await failed?.close();
        }
      });
    });

    describe('queued listeners (5)', () => {
      it('a PHP queued listener runs in larq with its event; one queued from Node runs in PHP', async () => {
        const prefix = randomPrefix();
        const { queue, handlers, run } = setup(prefix);
        const seen: unknown[] = [];
        handlers.listener('App\\Listeners\\SendShipmentNotification', (_c, ctx) => {
          const view = queuedListener(ctx.command)!;
          seen.push([view.listenerClass, view.method, view.event?.className, view.event?.get('orderId'), view.tries]);
        });
        try {
          await phpDispatch('listener', { port: redis.port, prefix, args: [42] });
          await run('default');
          expect(seen).to.deep.equal([
            ['App\\Listeners\\SendShipmentNotification', 'handle', 'App\\Events\\OrderShipped', 42n, 4],
          ]);

          const OrderShipped = phpClass('App\\Events\\OrderShipped', { orderId: 'public' });
          await dispatchListener(
            queue,
            'App\\Listeners\\SendShipmentNotification',
            OrderShipped.make({ orderId: 43 }),
            { tries: 4 },
          );
          const records = await runLaravelWorker({ port: redis.port, prefix, queue: 'default' });
          expect(records).to.have.length(1);
          expect(records[0]).to.include({
            class: 'App\\Listeners\\SendShipmentNotification',
            name: 'App\\Listeners\\SendShipmentNotification',
          });
          expect(JSON.stringify(records[0].description)).to.contain('"orderId"').and.contain('43');
        } finally {
          await queue.close();
        }
      });
    });

    describe('closures (6)', () => {
      it('a PHP closure job popped by larq is failed with a clear reason', async () => {
        const prefix = randomPrefix();
        const sqlite = join(temp.path, `${prefix}-closure.sqlite`);
        await failedTable(sqlite);
        const { queue, run, failed } = setup(prefix, [], { failedSqlite: sqlite });
        try {
          const sent = await phpDispatch('closure', { port: redis.port, prefix });
          expect(sent.ids).to.have.length(1);
          await run('default');
          const rows = await failed!.all();
          expect(rows).to.have.length(1);
          expect(JSON.parse(rows[0].payload).data.commandName).to.equal('Illuminate\\Queue\\CallQueuedClosure');
          expect(rows[0].exception).to.match(/closure/i);
        } finally {
          await queue.close();
          await failed?.close();
        }
      });

      it('released for PHP when larq is told to put unknown jobs back', async () => {
        const prefix = randomPrefix();
        const queue = new RedisQueue({ connection: { port: redis.port }, prefix, laravel: major });
        try {
          await phpDispatch('closure', { port: redis.port, prefix });
          const worker = createWorker(queue, new Handlers({ unknownJobs: { release: 0 } }), {
            memory: 4096,
            sleep: 0.05,
            maxJobs: 1,
            timeout: 0,
          });
          await worker.daemon('default');
          // larq's release counted an attempt, as Laravel's does: the PHP worker needs a second try
          const run = await runLaravelWorkerDetailed({
            port: redis.port,
            prefix,
            queue: 'default',
            stopWhenEmpty: true,
            tries: 2,
          });
          expect(run.records.map((r) => r.class)).to.deep.equal(['closure']);
        } finally {
          await queue.close();
        }
      });
    });

    describe('encrypted jobs (7)', () => {
      it('an encrypted PHP job runs through the larq worker; one from Node runs in PHP', async () => {
        const prefix = randomPrefix();
        const queue = new RedisQueue({
          connection: { port: redis.port },
          prefix,
          laravel: major,
          encrypter: new Encrypter('base64:a2tra2tra2tra2tra2tra2tra2tra2tra2tra2tra2s='),
        });
        const seen: unknown[] = [];
        const handlers = new Handlers().object('App\\Jobs\\SecretJob', (c) => void seen.push(c.card));
        try {
          await phpDispatch('object-encrypted', { port: redis.port, prefix });
          const [raw] = await redis.client.lrange(`${prefix}queues:default`, 0, -1);
          expect(JSON.parse(raw).data.command).to.match(/^eyJ/);
          await createWorker(queue, handlers, { memory: 4096, sleep: 0.05, stopWhenEmpty: true, timeout: 0 }).daemon(
            'default',
          );
          expect(seen).to.deep.equal(['4242 4242 4242 4242']);
          await queue.push({ command: SecretJob.make({ card: '5555' }), encrypt: true });
          const records = await runLaravelWorker({ port: redis.port, prefix, queue: 'default' });
          expect(records).to.have.length(1);
          expect(JSON.stringify(records[0].description)).to.contain('5555');
        } finally {
          await queue.close();
        }
      });
    });
  });
