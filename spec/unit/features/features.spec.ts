// Unit specs of lib/features: chain continuation, unique locks, model references, wrapper views and the
// batch repository, against the recorded Laravel fixtures where they apply.
import { expect } from 'chai';
import { ArrayCacheStore } from '../../../lib/cache/ArrayCacheStore';
import { FakeClock } from '../../../lib/clock';
import { BatchRepository, decodeRow, orderedUuid, type BatchUpdate } from '../../../lib/features/batch';
import { chainHooks, dispatchChain, nextInChain, carriedKeys } from '../../../lib/features/chain';
import { modelReference, modelReferences, modelHooks, ModelNotFoundError } from '../../../lib/features/models';
import { uniqueJobs, uniqueLocksOnFailure, uniqueLockName, dispatchUnique } from '../../../lib/features/unique';
import {
  callQueuedListener,
  queuedListener,
  queuedNotification,
  queuedMailable,
  broadcastEvent,
} from '../../../lib/features/wrappers';
import type { ObjectJobContext } from '../../../lib/handlers/Handlers';
import type { RedisJob } from '../../../lib/jobs/RedisJob';
import { payloadFor, type JobInput } from '../../../lib/jobs/dispatch';
import { parsePayload } from '../../../lib/payload/Payload';
import { serialize } from '../../../lib/php/serialize';
import { unserialize } from '../../../lib/php/unserialize';
import { PhpArray, PhpObject } from '../../../lib/php/values';
import type { RedisQueue } from '../../../lib/RedisQueue';
import { loadFixtures, pushedPayloads } from '../../support/fixtures';
import { ChainStep } from '../../support/phpJobs';

const fixture = (version: string, name: string) =>
  loadFixtures().find((f) => f.version === version && f.name === name)!;
const commandOf = (raw: string): PhpObject => unserialize(JSON.parse(raw).data.command) as PhpObject;

// A queue that records what would be pushed.
function fakeQueue() {
  const pushed: { payload: string; queue: string | null; delay?: number }[] = [];
  const clock = new FakeClock(1795276770000);
  const q = {
    connectionName: 'redis',
    push: async (job: JobInput, queue?: string | null) => {
      pushed.push({ payload: payloadFor(job, { line: 8, clock }), queue: queue ?? null });
      return 'id';
    },
    later: async (delay: number, job: JobInput, queue?: string | null) => {
      pushed.push({ payload: payloadFor(job, { line: 8, clock, delay }), queue: queue ?? null, delay });
      return 'id';
    },
    bulk: async (jobs: JobInput[], queue?: string | null) => {
      for (const job of jobs) pushed.push({ payload: payloadFor(job, { line: 8, clock }), queue: queue ?? null });
      return jobs.map(() => 'id');
    },
  };
  return { queue: q as unknown as RedisQueue, pushed };
}

function fakeJob(raw: string, state: { failed?: boolean; released?: boolean } = {}): RedisJob {
  const payload = parsePayload(raw);
  return {
    uuid: () => payload.uuid,
    getJobId: () => payload.id,
    hasFailed: () => state.failed ?? false,
    isReleased: () => state.released ?? false,
    payload: () => payload,
  } as unknown as RedisJob;
}

function ctxFor(
  raw: string,
  extra: Partial<ObjectJobContext> = {},
  state: { failed?: boolean; released?: boolean } = {},
): ObjectJobContext {
  const job = fakeJob(raw, state);
  return {
    job,
    command: commandOf(raw),
    payload: parsePayload(raw),
    attempts: 1,
    ...extra,
  } as unknown as ObjectJobContext;
}

describe('features: chains', () => {
  const raw = pushedPayloads(fixture('8.x', 'object-chain'))[0];

  it('rebuilds the next step as dispatchNextJobInChain does, other properties byte-exact', () => {
    const next = nextInChain(commandOf(raw))!;
    const step3 =
      'O:18:"App\\Jobs\\ChainStep":11:{s:4:"step";i:3;s:10:"connection";N;s:5:"queue";N;s:15:"chainConnection";N;s:10:"chainQueue";N;s:19:"chainCatchCallbacks";N;s:5:"delay";N;s:11:"afterCommit";N;s:10:"middleware";a:0:{}s:7:"chained";a:0:{}s:3:"job";N;}';
    expect(serialize(next)).to.equal(
      'O:18:"App\\Jobs\\ChainStep":11:{s:4:"step";i:2;s:10:"connection";N;s:5:"queue";s:7:"default";s:15:"chainConnection";N;s:10:"chainQueue";s:7:"default";' +
        's:19:"chainCatchCallbacks";N;s:5:"delay";N;s:11:"afterCommit";N;s:10:"middleware";a:0:{}' +
        `s:7:"chained";a:1:{i:0;s:${step3.length}:"${step3}";}s:3:"job";N;}`,
    );
    const last = nextInChain(next)!;
    expect(last.get('step')).to.equal(3n);
    expect((last.get('chained') as PhpArray).size).to.equal(0);
    expect(nextInChain(last)).to.equal(null);
  });

  it('afterHandle dispatches the next step with the extra keys; not after a failure or release', async () => {
    const withExtra = raw.replace(/}$/, ',"tags":["x"],"illuminate:log:context":{"data":[],"hidden":[]}}');
    const { queue, pushed } = fakeQueue();
    const hooks = chainHooks(queue);
    await hooks.afterHandle!(ctxFor(withExtra));
    expect(pushed).to.have.length(1);
    expect(pushed[0].queue).to.equal('default');
    const p = JSON.parse(pushed[0].payload);
    expect(p.tags).to.deep.equal(['x']);
    expect(p['illuminate:log:context']).to.deep.equal({ data: [], hidden: [] });
    expect(p.displayName).to.equal('App\\Jobs\\ChainStep');
    expect(carriedKeys(parsePayload(withExtra).decoded)).to.have.keys('tags', 'illuminate:log:context');
    await hooks.afterHandle!(ctxFor(raw, {}, { failed: true }));
    await hooks.afterHandle!(ctxFor(raw, {}, { released: true }));
    expect(pushed).to.have.length(1);
  });

  it('a delayed next step goes through later()', async () => {
    const { queue, pushed } = fakeQueue();
    const first = ChainStep.make({ step: 1, chained: [serialize(ChainStep.make({ step: 2, delay: 5 }))] });
    await chainHooks(queue).afterHandle!(ctxFor(payloadFor(first, { line: 8, clock: new FakeClock(0) })));
    expect(pushed[0].delay).to.equal(5);
  });

  it('onFailed warns about chain catch callbacks it cannot run', async () => {
    const warnings: unknown[] = [];
    const cmd = ChainStep.make({ step: 1, chainCatchCallbacks: new PhpArray([[0n, new PhpObject('Closure')]]) });
    await chainHooks(fakeQueue().queue, { onWarning: (w) => void warnings.push(w) }).onFailed!(
      fakeJob(raw),
      cmd,
      new Error('x'),
    );
    expect(warnings).to.have.length(1);
    expect(warnings[0]).to.include({ kind: 'catch-callbacks-not-run', count: 1 });
  });

  it('dispatchChain writes the first job as Bus::chain does', async () => {
    const { queue, pushed } = fakeQueue();
    await dispatchChain(
      queue,
      [1, 2, 3].map((step) => ChainStep.make({ step })),
      { queue: 'default' },
    );
    expect(pushed).to.have.length(1);
    const first = commandOf(pushed[0].payload);
    expect(first.get('queue')).to.equal('default');
    expect(first.get('chainQueue')).to.equal('default');
    expect((first.get('chained') as PhpArray).size).to.equal(2);
    expect(first.get('chainCatchCallbacks')).to.be.instanceOf(PhpArray);
    expect(pushed[0].queue).to.equal('default');
  });
});

const SYNC_7_XXH128 = 'c7f7e08a2d67f87f6d2af391e0c75245';

describe('features: unique jobs', () => {
  const job = new PhpObject('App\\Jobs\\Sync', [{ name: 'uniqueId', visibility: 'public', value: '7' }]);

  it('lock names per version', async () => {
    expect(await uniqueLockName(job, {}, { laravel: 8 })).to.equal('laravel_unique_job:App\\Jobs\\Sync7');
    expect(await uniqueLockName(job, {}, { laravel: 12 })).to.equal('laravel_unique_job:App\\Jobs\\Sync:7');
    expect(await uniqueLockName(job, { uniqueId: () => 'x' }, { laravel: 13 })).to.equal(
      'laravel_unique_job:App\\Jobs\\Sync:x',
    );
    // a displayName() method: named from 12.41, hashed (PHP's hash('xxh128', 'Sync 7')) from 12.54
    const named = { displayName: () => 'Sync 7' };
    expect(await uniqueLockName(job, named, { laravel: 11 })).to.equal('laravel_unique_job:App\\Jobs\\Sync:7');
    expect(await uniqueLockName(job, named, { laravel: '12.40' })).to.equal('laravel_unique_job:App\\Jobs\\Sync:7');
    expect(await uniqueLockName(job, named, { laravel: '12.41' })).to.equal('laravel_unique_job:Sync 7:7');
    expect(await uniqueLockName(job, named, { laravel: '12.54' })).to.equal(`laravel_unique_job:${SYNC_7_XXH128}:7`);
    expect(await uniqueLockName(job, named, { laravel: 13 })).to.equal(`laravel_unique_job:${SYNC_7_XXH128}:7`);
  });

  it('released after success and on failure, not on release; until-processing before handling', async () => {
    const cache = new ArrayCacheStore();
    const raw = payloadFor(job, { line: 8, clock: new FakeClock(0) });
    const hooks = uniqueJobs({ 'App\\Jobs\\Sync': {} }, cache, { laravel: 8 });
    const name = 'laravel_unique_job:App\\Jobs\\Sync7';
    await cache.lock(name, 0).acquire();
    await hooks.afterHandle!(ctxFor(raw, {}, { released: true }));
    expect(await cache.lock(name).currentOwner()).to.be.a('string');
    await hooks.afterHandle!(ctxFor(raw));
    expect(await cache.lock(name).currentOwner()).to.equal(null);
    await cache.lock(name, 0).acquire();
    await hooks.onFailed!(fakeJob(raw), job, new Error('x'));
    expect(await cache.lock(name).currentOwner()).to.equal(null);

    const until = uniqueJobs({ 'App\\Jobs\\Sync': { untilProcessing: true } }, cache, { laravel: 8 });
    await cache.lock(name, 0).acquire();
    await until.beforeHandle!(ctxFor(raw));
    expect(await cache.lock(name).currentOwner()).to.equal(null);
  });

  it('13.x: owner-checked release with uniqueLockOwner; dispatchUnique writes the owner', async () => {
    const cache = new ArrayCacheStore();
    const { queue, pushed } = fakeQueue();
    expect(await dispatchUnique(queue, cache, job, {}, { laravel: 13 })).to.equal('id');
    expect(await dispatchUnique(queue, cache, job, {}, { laravel: 13 })).to.equal(null);
    const sent = commandOf(pushed[0].payload);
    const owner = sent.get('uniqueLockOwner');
    expect(await cache.lock('laravel_unique_job:App\\Jobs\\Sync:7').currentOwner()).to.equal(owner);
    const hooks = uniqueJobs({ 'App\\Jobs\\Sync': {} }, cache, { laravel: 13 });
    // another owner holds it now: the owner-checked release leaves it
    await cache.lock('laravel_unique_job:App\\Jobs\\Sync:7').forceRelease();
    await cache.lock('laravel_unique_job:App\\Jobs\\Sync:7', 0, 'someoneelse').acquire();
    await hooks.afterHandle!(ctxFor(pushed[0].payload));
    expect(await cache.lock('laravel_unique_job:App\\Jobs\\Sync:7').currentOwner()).to.equal('someoneelse');
  });
});

describe('features: unique locks of failed jobs nobody declared', () => {
  const job = new PhpObject('App\\Jobs\\Sync', [{ name: 'uniqueId', visibility: 'public', value: '7' }]);
  const name = 'laravel_unique_job:App\\Jobs\\Sync:7';
  // The hidden context PendingDispatch adds (InteractsWithUniqueJobs), as Context::dehydrate writes it.
  const withContext = (raw: string, hidden: Record<string, string>) => {
    const decoded = JSON.parse(raw) as Record<string, unknown>;
    decoded['illuminate:log:context'] = {
      data: {},
      hidden: Object.fromEntries(Object.entries(hidden).map(([k, v]) => [k, serialize(v)])),
    };
    return JSON.stringify(decoded);
  };

  it("releases the command's lock: compare-and-delete with its owner (13.24+), else by force", async () => {
    const cache = new ArrayCacheStore();
    const { queue, pushed } = fakeQueue();
    const hooks = uniqueLocksOnFailure(cache, { laravel: 13 });
    expect(await dispatchUnique(queue, cache, job, {}, { laravel: 13 })).to.equal('id');
    const raw = pushed[0].payload;
    // a newer dispatch's lock (another owner) is left alone
    await cache.lock(name).forceRelease();
    await cache.lock(name, 0, 'newer').acquire();
    await hooks.onFailed!(fakeJob(raw), commandOf(raw), new Error('x'));
    expect(await cache.lock(name).currentOwner()).to.equal('newer');
    await cache.lock(name).forceRelease();
    await cache.lock(name, 0, commandOf(raw).get('uniqueLockOwner') as string).acquire();
    await hooks.onFailed!(fakeJob(raw), commandOf(raw), new Error('x'));
    expect(await cache.lock(name).currentOwner()).to.equal(null);
    // 12.x: no owner, forced
    const plain = payloadFor(job, { line: 12, clock: new FakeClock(0) });
    await cache.lock(name, 0).acquire();
    await uniqueLocksOnFailure(cache, { laravel: 12 }).onFailed!(fakeJob(plain), job, null);
    expect(await cache.lock(name).currentOwner()).to.equal(null);
  });

  it("uniqueJobs() releases them too; the payload's context names the key, owner and store", async () => {
    const cache = new ArrayCacheStore();
    const plain = payloadFor(job, { line: 13, clock: new FakeClock(0) });
    // displayName() hashed into the key: only the context knows it
    const key = `laravel_unique_job:${SYNC_7_XXH128}:7`;
    const raw = withContext(plain, {
      laravel_unique_job_cache_store: 'redis',
      laravel_unique_job_key: key,
      laravel_unique_job_lock_owner: 'owner-1',
    });
    const hooks = uniqueJobs({ 'App\\Jobs\\Other': {} }, cache, { laravel: 13, storeName: 'redis' });
    await cache.lock(key, 0, 'owner-2').acquire();
    await hooks.onFailed!(fakeJob(raw), job, null);
    expect(await cache.lock(key).currentOwner()).to.equal('owner-2');
    await cache.lock(key).forceRelease();
    await cache.lock(key, 0, 'owner-1').acquire();
    await hooks.onFailed!(fakeJob(raw), job, null);
    expect(await cache.lock(key).currentOwner()).to.equal(null);
    // the job's uniqueVia() store is not the one larq has: left alone
    await cache.lock(key, 0, 'owner-1').acquire();
    await uniqueLocksOnFailure(cache, { laravel: 13, storeName: 'database' }).onFailed!(fakeJob(raw), job, null);
    expect(await cache.lock(key).currentOwner()).to.equal('owner-1');
    // 12.x context: no owner, forced
    await cache.lock(key).forceRelease();
    await cache.lock(key, 0, 'anyone').acquire();
    const forced = withContext(plain, { laravel_unique_job_cache_store: 'redis', laravel_unique_job_key: key });
    await uniqueLocksOnFailure(cache, { laravel: 12 }).onFailed!(fakeJob(forced), job, null);
    expect(await cache.lock(key).currentOwner()).to.equal(null);
  });
});

describe('features: models', () => {
  for (const version of ['8.x', '12.x', '13.x']) {
    it(`reads ModelIdentifier values (${version} object-models)`, () => {
      const refs = modelReferences(commandOf(pushedPayloads(fixture(version, 'object-models'))[0]));
      expect(refs.get('user')).to.include({
        class: 'App\\Models\\User',
        kind: 'model',
        id: 7,
        connection: 'mysql',
        collectionClass: null,
      });
      expect(refs.get('users')).to.deep.include({ kind: 'collection', ids: [7, 8] });
    });
  }

  it('missing model: delete with deleteWhenMissingModels, else fail', async () => {
    const raw = pushedPayloads(fixture('8.x', 'object-models'))[0];
    const calls: unknown[] = [];
    const ctx = ctxFor(raw, {
      delete: async () => void calls.push('delete'),
      fail: async (e?: Error) => void calls.push(e),
    } as Partial<ObjectJobContext>);
    expect(
      await modelHooks(() => false, { line: 8, deleteWhenMissingModels: ['App\\Jobs\\ModelJob'] }).beforeHandle!(ctx),
    ).to.equal(false);
    expect(await modelHooks(() => false, { line: 8 }).beforeHandle!(ctx)).to.equal(false);
    expect(calls[0]).to.equal('delete');
    expect(calls[1]).to.be.instanceOf(ModelNotFoundError);
    expect(await modelHooks(() => true, { line: 8 }).beforeHandle!(ctx)).to.equal(undefined);
    expect(modelReference('x')).to.equal(null);
  });

  it('12.51+/13.x: a deleted batched job records a batch success when given the repository', async () => {
    const recorded: unknown[] = [];
    const cmd = new PhpObject('App\\Jobs\\B', [
      {
        name: 'user',
        visibility: 'public',
        value: modelReference(commandOf(pushedPayloads(fixture('13.x', 'object-models'))[0]).get('user'))
          ? commandOf(pushedPayloads(fixture('13.x', 'object-models'))[0]).get('user')!
          : null,
      },
      { name: 'batchId', visibility: 'public', value: 'b-1' },
    ]);
    const raw = payloadFor({ command: cmd, deleteWhenMissingModels: true }, { line: 13, clock: new FakeClock(0) });
    const ctx = {
      ...ctxFor(raw),
      uuid: JSON.parse(raw).uuid,
      delete: async () => void recorded.push('delete'),
    } as unknown as ObjectJobContext;
    const hooks = modelHooks(() => false, {
      line: 13,
      batches: { recordSuccessfulJob: async (id, uuid) => void recorded.push([id, uuid]) },
    });
    expect(await hooks.beforeHandle!(ctx)).to.equal(false);
    expect(recorded).to.deep.equal([['b-1', JSON.parse(raw).uuid], 'delete']);
  });
});

describe('features: wrappers', () => {
  it('callQueuedListener writes the 8.x queued-listener fixture byte for byte', () => {
    const raw = pushedPayloads(fixture('8.x', 'queued-listener'))[0];
    const recorded = JSON.parse(raw).data.command as string;
    const event = (commandOf(raw).get('data') as PhpArray).entries.get(0n) as PhpObject;
    expect(serialize(callQueuedListener('App\\Listeners\\SendShipmentNotification', event, { tries: 4 }))).to.equal(
      recorded,
    );
    const view = queuedListener(commandOf(raw))!;
    expect(view).to.include({ listenerClass: 'App\\Listeners\\SendShipmentNotification', method: 'handle', tries: 4 });
    expect(view.event!.className).to.equal('App\\Jobs\\ChainStep');
  });

  it('other wrapper views', () => {
    const n = new PhpObject('Illuminate\\Notifications\\SendQueuedNotifications', [
      { name: 'notifiables', visibility: 'public', value: 'x' },
      { name: 'notification', visibility: 'public', value: new PhpObject('App\\N') },
      { name: 'channels', visibility: 'public', value: PhpArray.list(['mail']) },
    ]);
    expect(queuedNotification(n)).to.deep.include({ channels: ['mail'], notifiables: 'x' });
    expect(
      queuedMailable(
        new PhpObject('Illuminate\\Mail\\SendQueuedMailable', [
          { name: 'mailable', visibility: 'public', value: new PhpObject('App\\M') },
        ]),
      )!.mailable!.className,
    ).to.equal('App\\M');
    expect(
      broadcastEvent(
        new PhpObject('Illuminate\\Broadcasting\\BroadcastEvent', [
          { name: 'event', visibility: 'public', value: new PhpObject('App\\E') },
        ]),
      )!.event!.className,
    ).to.equal('App\\E');
    expect(queuedListener(n)).to.equal(null);
  });
});

describe('features: batches', () => {
  it('records successes and failures as DatabaseBatchRepository does', async () => {
    const clock = new FakeClock(1795276770000);
    const repo = new BatchRepository({ driver: 'sqlite', database: ':memory:' }, { clock });
    try {
      await repo.createTable();
      const b = await repo.store('b', { queue: 'default' });
      expect(b.rawOptions).to.equal('a:1:{s:5:"queue";s:7:"default";}');
      await repo.incrementTotalJobs(b.id, 3);
      await repo.recordSuccessfulJob(b.id, 'u1');
      await repo.recordFailedJob(b.id, 'u2');
      await repo.recordFailedJob(b.id, 'u2');
      let row = (await repo.find(b.id))!;
      expect(row).to.include({
        totalJobs: 3,
        pendingJobs: 2,
        failedJobs: 2,
        cancelledAt: 1795276770,
        finishedAt: 1795276770,
      });
      expect(row.failedJobIds).to.deep.equal(['u2']);
      // a retried job that succeeds leaves failed_job_ids
      await repo.recordSuccessfulJob(b.id, 'u2');
      row = (await repo.find(b.id))!;
      expect(row.failedJobIds).to.deep.equal([]);
      expect(row.pendingJobs).to.equal(1);
    } finally {
      await repo.close();
    }
  });

  it('allowFailures does not cancel; due PHP callbacks are reported, never silently dropped', async () => {
    const repo = new BatchRepository({ driver: 'sqlite', database: ':memory:' });
    const reports: BatchUpdate[] = [];
    try {
      await repo.createTable();
      const b = await repo.store('b', { allowFailures: true });
      const opts =
        'a:3:{s:13:"allowFailures";b:1;s:4:"then";a:1:{i:0;O:7:"Closure":0:{}}s:5:"catch";a:1:{i:0;O:7:"Closure":0:{}}}';
      await repo.sql.execute('UPDATE "job_batches" SET "options" = ? WHERE "id" = ?', [opts, b.id]);
      await repo.incrementTotalJobs(b.id, 2);
      const failed = await repo.recordFailedJob(b.id, 'u1');
      expect(failed!.batch.cancelledAt).to.equal(null);
      expect(failed!.due).to.deep.equal(['catch']);
      const done = await repo.recordSuccessfulJob(b.id, 'u2');
      expect(done!.due).to.deep.equal([]); // the failed job is still pending: not finished
      expect(done!.batch.pendingJobs).to.equal(1);
      const { batchHooks } = await import('../../../lib/features/batch');
      const cmd = new PhpObject('App\\Jobs\\B', [{ name: 'batchId', visibility: 'public', value: b.id }]);
      const raw = payloadFor(cmd, { line: 8, clock: new FakeClock(0) });
      await batchHooks(repo, { onCallbacksDue: (u) => void reports.push(u) }).afterHandle!(ctxFor(raw));
      // that job's success (uuid of the payload) finishes the batch: `then` is due and reported
      expect(reports).to.have.length(1);
      expect(reports[0].batch.id).to.equal(b.id);
      expect(reports[0].due).to.deep.equal(['then']);
      expect(reports[0].batch.callbacks.then).to.equal(1);
      expect(
        decodeRow({
          id: 'x',
          name: 'n',
          total_jobs: 1,
          pending_jobs: 1,
          failed_jobs: 0,
          failed_job_ids: '[]',
          options: Buffer.from(opts).toString('base64'),
          created_at: 1,
        }).allowsFailures,
      ).to.equal(true);
    } finally {
      await repo.close();
    }
  });

  it('orderedUuid sorts by time', () => {
    const a = orderedUuid(new FakeClock(1000));
    const b = orderedUuid(new FakeClock(2000));
    expect(a < b).to.equal(true);
    expect(a).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});
