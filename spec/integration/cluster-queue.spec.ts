// larq's RedisQueue and Worker on a real local Redis Cluster through an ioredis Cluster client, with the
// keys a Laravel 13.5+ peer on a cluster connection uses (`queues:{name}`): every key of one queue shares
// the queue's hash slot, so each script and transaction stays on one primary.
import { expect } from 'chai';
import { FakeClock } from '../../lib/clock';
import { RedisCacheStore } from '../../lib/cache/RedisCacheStore';
import { pauseQueue, signalRestart } from '../../lib/cache/signals';
import { createWorker } from '../../lib/createWorker';
import { Handlers } from '../../lib/handlers/Handlers';
import { RedisQueue, type RedisQueueOptions } from '../../lib/RedisQueue';
import { LocalCluster } from '../support/cluster';
import { randomPrefix } from '../support/redis';

const NOW = 1795276770;
const job = (n: number, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    uuid: `u${n}`,
    displayName: `Job${n}`,
    job: 'cluster-job',
    data: { n },
    id: `id${n}`,
    attempts: 0,
    maxTries: null,
    ...extra,
  });

describe('RedisQueue on a Redis Cluster (laravel 13, cluster: true)', function () {
  this.timeout(90000);
  let cluster: LocalCluster;
  let prefix: string;
  let clock: FakeClock;
  const opened: RedisQueue[] = [];

  before(async function () {
    cluster = await LocalCluster.start(this);
  });
  after(async () => cluster?.stop());
  beforeEach(() => {
    prefix = randomPrefix();
    clock = new FakeClock(NOW * 1000);
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((q) => q.close()));
  });

  function open(options: RedisQueueOptions = {}): RedisQueue {
    const q = new RedisQueue({
      connection: cluster.client(),
      prefix,
      clock,
      retryAfter: 90,
      laravel: 13,
      cluster: true,
      ...options,
    });
    opened.push(q);
    return q;
  }
  const key = (queue: string, suffix = '') => `${prefix}queues:{${queue}}${suffix}`;

  it("keeps every key of a queue on the queue name's slot", async () => {
    const slot = await cluster.slotOf(key('default'));
    for (const suffix of [':delayed', ':reserved', ':notify', ':larq:invalid', ':larq:failed'])
      expect(await cluster.slotOf(key('default', suffix))).to.equal(slot);
  });

  it('pushes, pops and deletes a job', async () => {
    const q = open();
    const client = cluster.client();
    await q.pushRaw(job(1));
    expect(await client.lrange(key('default'), 0, -1)).to.deep.equal([job(1)]);
    expect(await client.lrange(key('default', ':notify'), 0, -1)).to.deep.equal(['1']);
    const popped = (await q.pop())!;
    expect(popped.getJobId()).to.equal('id1');
    expect(await q.reservedSize()).to.equal(1);
    await q.deleteReserved('default', popped);
    expect(await q.size()).to.equal(0);
  });

  it('releases a reserved job to the delayed set, and a later pop migrates it back when due', async () => {
    const q = open();
    await q.pushRaw(job(2));
    const popped = (await q.pop())!;
    await q.deleteAndRelease('default', popped, 10);
    expect(await q.delayedSize()).to.equal(1);
    expect(await q.reservedSize()).to.equal(0);
    expect(await q.pop()).to.equal(null);
    clock.advance(10);
    expect((await q.pop())!.attempts()).to.equal(2);
  });

  it('delays a job with later, and pops it once due', async () => {
    const q = open();
    await q.laterRaw(30, job(3));
    expect(await q.delayedSize()).to.equal(1);
    expect(await q.pop()).to.equal(null);
    clock.advance(30);
    expect((await q.pop())!.getJobId()).to.equal('id3');
  });

  it('pushes a bulk of jobs, some delayed, in one call', async () => {
    const q = open();
    const entries = Array.from({ length: 2500 }, (_, i) => (i % 5 === 0 ? { payload: job(i), delay: 60 } : job(i)));
    await q.bulkRaw(entries);
    expect(await q.pendingSize()).to.equal(2000);
    expect(await q.delayedSize()).to.equal(500);
    expect(await q.size()).to.equal(2500);
  });

  it('reports sizes and clears a queue', async () => {
    const q = open();
    await q.pushRaw(job(1));
    await q.pushRaw(job(2));
    await q.laterRaw(60, job(3));
    await q.pop();
    expect([await q.pendingSize(), await q.delayedSize(), await q.reservedSize(), await q.size()]).to.deep.equal([
      1, 1, 1, 3,
    ]);
    expect(await q.clear()).to.equal(3);
    expect(await q.size()).to.equal(0);
  });

  it('reserves several jobs at once with popMany, acknowledgements riding along', async () => {
    const q = open();
    for (let i = 0; i < 5; i++) await q.pushRaw(job(i));
    const errors: Error[] = [];
    const first = await q.popMany('default', 0, 3, (e) => errors.push(e));
    expect(first.map((j) => j.getJobId())).to.deep.equal(['id0', 'id1', 'id2']);
    for (const j of first) void q.deleteReserved('default', j);
    const second = await q.popMany('default', 0, 3, (e) => errors.push(e));
    expect(second.map((j) => j.getJobId())).to.deep.equal(['id3', 'id4']);
    expect(errors).to.deep.equal([]);
    expect(await q.reservedSize()).to.equal(2);
  });

  it('blocks on an empty queue and wakes on a push (blockFor)', async () => {
    const q = open({ blockFor: 5, clock: undefined });
    const producer = open({ clock: undefined });
    const popping = q.pop();
    await new Promise((r) => setTimeout(r, 300));
    await producer.pushRaw(job(7));
    expect((await popping)!.getJobId()).to.equal('id7');
  });

  it('runs a worker over two queues that live on different slots', async () => {
    const q = open({ clock: undefined });
    expect(await cluster.primaryPortOf(key('high'))).to.not.equal(
      await cluster.primaryPortOf(key('low')),
      'queue names on different primaries',
    );
    await q.pushRaw(job(1), 'low');
    await q.pushRaw(job(2), 'high');
    await q.pushRaw(job(3), 'low');
    const ran: unknown[] = [];
    const handlers = new Handlers().string('cluster-job', (data: { n: number }, ctx) => {
      ran.push([ctx.queue, data.n]);
      return ctx.delete(); // a string job acknowledges itself, as in Laravel
    });
    const worker = createWorker(q, handlers, { sleep: 0, stopWhenEmpty: true, memory: 4096 });
    expect(await worker.daemon('high,low')).to.deep.equal({ status: 0, reason: 'empty' });
    expect(ran).to.deep.equal([
      ['high', 2],
      ['low', 1],
      ['low', 3],
    ]);
    expect(await q.size('high')).to.equal(0);
    expect(await q.size('low')).to.equal(0);
  });

  it('runs a blocking worker over two queues that live on different slots', async () => {
    const q = open({ clock: undefined, blockFor: 1 });
    await q.pushRaw(job(1), 'low');
    await q.pushRaw(job(2), 'high');
    const ran: unknown[] = [];
    const handlers = new Handlers().string('cluster-job', (data: { n: number }, ctx) => {
      ran.push([ctx.queue, data.n]);
      return ctx.delete(); // a string job acknowledges itself, as in Laravel
    });
    const worker = createWorker(q, handlers, { sleep: 0, stopWhenEmpty: true, memory: 4096 });
    expect(await worker.daemon('high,low')).to.deep.equal({ status: 0, reason: 'empty' });
    expect(ran).to.deep.equal([
      ['high', 2],
      ['low', 1],
    ]);
    expect(await q.size('high')).to.equal(0);
    expect(await q.size('low')).to.equal(0);
  });

  it('reads the restart and pause signals from a cache on the cluster', async () => {
    const q = open({ clock: undefined });
    const cache = new RedisCacheStore({ connection: cluster.client(), prefix, laravel: 13 });
    await q.pushRaw(job(1), 'paused');
    await q.pushRaw(job(2), 'open');
    await pauseQueue(cache, 'redis', 'paused');
    const ran: unknown[] = [];
    const handlers = new Handlers().string('cluster-job', (data: { n: number }, ctx) => {
      ran.push([ctx.queue, data.n]);
      return ctx.delete();
    });
    const worker = createWorker(q, handlers, { sleep: 0.05, memory: 4096 }, { cache });
    worker.on('JobProcessed', () => void signalRestart(cache, Math.floor(Date.now() / 1000) + 1));
    expect(await worker.daemon('paused,open')).to.deep.equal({ status: 0, reason: 'restart_signal' });
    expect(ran).to.deep.equal([['open', 2]]);
    expect(await q.pendingSize('paused')).to.equal(1);
  });
});
