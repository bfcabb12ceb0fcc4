// larq's RedisQueue and Worker on a real local Sentinel set-up, connected with ioredis' Sentinel options
// (`{ sentinels, name }`): jobs flow, and across a failover of the primary a running worker and a
// dispatcher carry on by themselves with every dispatched job run.
import { expect } from 'chai';
import { setTimeout as sleep } from 'timers/promises';
import { createWorker } from '../../lib/createWorker';
import { Handlers } from '../../lib/handlers/Handlers';
import { RedisQueue } from '../../lib/RedisQueue';
import { randomPrefix } from '../support/redis';
import { LocalSentinel, type SentinelFailover } from '../support/sentinel';

const job = (n: number) =>
  JSON.stringify({
    uuid: `u${n}`,
    displayName: `Job${n}`,
    job: 'sentinel-job',
    data: { n },
    id: `id${n}`,
    attempts: 0,
  });

describe('RedisQueue over Sentinel', function () {
  this.timeout(90000);
  let setup: LocalSentinel;
  const opened: RedisQueue[] = [];

  before(async function () {
    setup = await LocalSentinel.start(this);
  });
  after(async () => setup?.stop());
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((q) => q.close()));
  });

  function open(prefix: string, blockFor: number | null = null): RedisQueue {
    const q = new RedisQueue({
      connection: { sentinels: setup.sentinels, name: setup.name },
      prefix,
      retryAfter: 90,
      blockFor,
    });
    opened.push(q);
    return q;
  }

  it('pushes to the primary the sentinels name, and pops from it', async () => {
    const prefix = randomPrefix();
    const q = open(prefix);
    await q.pushRaw(job(1));
    expect(await setup.node(await setup.primaryPort()).command(['LLEN', `${prefix}queues:default`])).to.equal(1);
    const popped = (await q.pop())!;
    expect(popped.getJobId()).to.equal('id1');
    await q.deleteReserved('default', popped);
    expect(await q.size()).to.equal(0);
  });

  it('keeps a worker and a dispatcher going across a failover: every job pushed runs', async () => {
    const prefix = randomPrefix();
    const worker = createWorker(
      open(prefix, 1),
      new Handlers().string('sentinel-job', (data: { n: number }, ctx) => {
        ran.push(data.n);
        return ctx.delete();
      }),
      { sleep: 0, memory: 4096 },
    );
    const ran: number[] = [];
    const producer = open(prefix);
    const daemon = worker.daemon('default');

    const pushed: number[] = [];
    const rejected: string[] = [];
    let failingOver: Promise<SentinelFailover> | undefined;
    let n = 0;
    const dispatching = (async () => {
      while (n < 40) {
        const next = ++n;
        try {
          await producer.pushRaw(job(next));
          pushed.push(next);
        } catch (e) {
          rejected.push(`${next}: ${(e as Error).message}`);
        }
        if (next === 5) {
          // The primary dies between two pushes. killPrimary first holds its writes until the replica has
          // them all; a push held then dies unrun and unanswered, and RedisQueue rejects it as
          // UnconfirmedWriteError (it does not send a push twice). This spec is about the pushes sent
          // after the crash, while the sentinels promote the replica: each of those must go through.
          const primary = setup.node(await setup.primaryPort());
          failingOver = setup.killPrimary();
          await Promise.race([failingOver, primary.whenExited()]);
        }
        await sleep(100);
      }
    })();
    await dispatching;
    const failover = await failingOver!;

    // Every push that resolved ran, on the new primary, without restarting anything.
    const deadline = Date.now() + 20000;
    while (pushed.some((p) => !ran.includes(p)) && Date.now() < deadline) await sleep(100);
    worker.stop();
    expect(await daemon).to.deep.equal({ status: 0, reason: 'interrupted' });
    expect(rejected, 'pushes rejected during the failover').to.deep.equal([]);
    expect(
      pushed.filter((p) => !ran.includes(p)),
      'pushed but never run',
    ).to.deep.equal([]);
    expect(await producer.size()).to.equal(0);
    console.log(
      `      failover ${failover.failoverMs} ms; ${pushed.length} pushed, ${new Set(ran).size} ran, ${ran.length - new Set(ran).size} ran twice`,
    );
  });
});
