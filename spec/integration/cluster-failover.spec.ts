// larq on a Redis Cluster whose topology changes under it: the primary owning a queue's slot dies and its
// replica is promoted, or the slot moves to another primary (MOVED) or is being moved (ASK). A worker
// rides every one out by itself, without a restart; a command Redis redirected (it ran nothing) is
// followed to the slot's new node; a queue write whose connection dropped before its reply is never sent
// again, and its caller is told, naming the write.
import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'fs';
import { connect, createServer, type Socket } from 'net';
import { tmpdir } from 'os';
import { join } from 'path';
import Redis, { type Cluster } from 'ioredis';
import { createWorker } from '../../lib/createWorker';
import { UnconfirmedWriteError } from '../../lib/errors';
import { Handlers } from '../../lib/handlers/Handlers';
import { RedisQueue, type RedisQueueOptions } from '../../lib/RedisQueue';
import type { WorkerStopResult } from '../../lib/events';
import { LocalCluster, type ClusterNodeView } from '../support/cluster';
import { compileCli } from '../support/compiled';
import { runLarq } from '../support/larqProcess';
import { ChainStep } from '../support/phpJobs';
import { randomPrefix } from '../support/redis';
import { waitFor } from '../support/redisProcess';

const job = (n: number) =>
  JSON.stringify({
    uuid: `u${n}`,
    displayName: `Job${n}`,
    job: 'failover-job',
    data: { n },
    id: `id${n}`,
    attempts: 0,
    maxTries: null,
  });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('larq on a Redis Cluster through failovers and slot moves', function () {
  this.timeout(120000);
  let cluster: LocalCluster;
  let prefix: string;
  const opened: RedisQueue[] = [];

  before(async function () {
    cluster = await LocalCluster.start(this);
  });
  after(async () => cluster?.stop());
  beforeEach(() => {
    prefix = randomPrefix();
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((q) => q.close()));
  });

  function open(options: RedisQueueOptions = {}, client: Cluster = cluster.client()): RedisQueue {
    const q = new RedisQueue({ connection: client, prefix, retryAfter: 90, laravel: 13, cluster: true, ...options });
    opened.push(q);
    return q;
  }
  const key = (queue: string, suffix = '') => `${prefix}queues:{${queue}}${suffix}`;

  // A queue name whose slot's primary still has a replica to promote (an earlier failover leaves its
  // killed primary restarted as a replica, so every primary keeps one).
  async function queueWithReplica(base: string): Promise<string> {
    for (let i = 0; ; i++) {
      const name = `${base}${i}`;
      const view = await cluster.view();
      const ownerPort = await cluster.primaryPortOf(key(name));
      const ownerId = view.find((n) => n.port === ownerPort)!.id;
      if (view.some((n) => n.primaryId === ownerId && !n.failing)) return name;
    }
  }

  // The primaries serving `slot` now and another one: where a move takes it from and to.
  async function slotMove(
    slot: number,
  ): Promise<{ from: ClusterNodeView; to: ClusterNodeView; others: ClusterNodeView[] }> {
    const primaries = (await cluster.view()).filter((n) => n.role === 'master' && !n.failing && n.slots.length > 0);
    const from = primaries.find((n) => n.slots.some(([a, b]) => slot >= a && slot <= b))!;
    const to = primaries.find((n) => n !== from)!;
    return { from, to, others: primaries.filter((n) => n !== from && n !== to) };
  }

  // Starts moving (empty) `slot` to another primary, as `redis-cli --cluster reshard` does before it
  // moves keys: the old owner answers ASK for a key it does not hold, the new one takes it after ASKING.
  async function startSlotMove(slot: number) {
    const move = await slotMove(slot);
    await cluster.node(move.to.port).command(['CLUSTER', 'SETSLOT', slot, 'IMPORTING', move.from.id]);
    await cluster.node(move.from.port).command(['CLUSTER', 'SETSLOT', slot, 'MIGRATING', move.to.id]);
    return move;
  }

  // Ends the move: every primary gives `slot` to its new owner (first that one, so its epoch wins).
  async function finishSlotMove(
    slot: number,
    move: { from: ClusterNodeView; to: ClusterNodeView; others: ClusterNodeView[] },
  ) {
    for (const node of [move.to, move.from, ...move.others])
      await cluster.node(node.port).command(['CLUSTER', 'SETSLOT', slot, 'NODE', move.to.id]);
    await waitFor(`every node to see slot ${slot} on port ${move.to.port}`, 10000, async () => {
      for (const port of cluster.alivePorts) {
        const owner = (await cluster.view(port)).find(
          (n) => n.role === 'master' && n.slots.some(([a, b]) => slot >= a && slot <= b),
        );
        if (owner?.port !== move.to.port) return undefined;
      }
      return true;
    });
  }

  // A client whose slot map stays as it first read it until a redirection corrects it (no periodic
  // refresh), so a move is seen only through the MOVED or ASK it brings.
  const staleClient = () => cluster.client({ slotsRefreshInterval: 3600000 });

  // Runs string jobs on `queue`, recording each run, until stopped; resolves to the worker's result.
  function runWorker(q: RedisQueue, queue: string, ran: number[]) {
    const handlers = new Handlers().string('failover-job', (data: { n: number }, ctx) => {
      ran.push(data.n);
      return ctx.delete();
    });
    const worker = createWorker(q, handlers, { sleep: 0.05, memory: 0, concurrency: 4 });
    const errors: Error[] = [];
    worker.on('error', (e) => errors.push(e));
    const done: Promise<WorkerStopResult> = worker.daemon(queue);
    return { worker, done, errors };
  }

  for (const blockFor of [null, 1] as const) {
    it(`keeps a worker (blockFor ${String(blockFor)}) running through the failover of its queue's primary, and it runs jobs pushed after it`, async () => {
      const queue = await queueWithReplica('fail');
      const q = open({ blockFor });
      const producer = open();
      const ran: number[] = [];
      const { worker, done, errors } = runWorker(q, queue, ran);
      let stopped: WorkerStopResult | undefined;
      void done.then((r) => (stopped = r));
      await producer.pushRaw(job(1), queue);
      await waitFor('job 1 to run', 10000, async () => (ran.includes(1) ? true : undefined));

      const failover = await cluster.killPrimaryOf(key(queue));
      await producer.pushRaw(job(2), queue);
      await waitFor(
        `job 2 to run after the failover (worker stopped: ${JSON.stringify(stopped)}, errors: ${errors.map((e) => e.message).join('; ')})`,
        20000,
        async () => (ran.includes(2) || stopped !== undefined ? true : undefined),
      );
      expect(
        stopped,
        `the worker stopped by itself (${JSON.stringify(stopped)}); errors: ${errors.map((e) => e.message).join('; ')}`,
      ).to.equal(undefined);
      expect(ran).to.deep.equal([1, 2]);
      worker.stop();
      expect((await done).reason).to.equal('interrupted');
      expect(await producer.size(queue)).to.equal(0);
      await cluster.restart(failover.killedPort);
    });
  }

  it("follows MOVED in popMany when the queue's slot moved to another primary, and gets the job", async () => {
    const queue = 'moved';
    const q = open({}, staleClient());
    const errors: Error[] = [];
    await q.pushRaw(job(1), queue);
    const [first] = await q.popMany(queue, 0, 4, (e) => errors.push(e));
    await q.deleteReserved(queue, first);
    const slot = await cluster.slotOf(key(queue));
    await finishSlotMove(slot, await startSlotMove(slot));

    await open().pushRaw(job(2), queue); // a client that has the new map
    const jobs = await q.popMany(queue, 0, 4, (e) => errors.push(e));
    expect(jobs.map((j) => j.getJobId())).to.deep.equal(['id2']);
    expect(errors.map((e) => e.message)).to.deep.equal([]);
    // The reservation sits on the slot's new primary; the acknowledgement reaches it there.
    await q.deleteReserved(queue, jobs[0]);
    expect(await q.size(queue)).to.equal(0);
  });

  it("follows ASK in popMany while the queue's slot is being moved, and gets the job once the move ends", async () => {
    const queue = 'asked';
    const q = open({}, staleClient());
    const errors: Error[] = [];
    expect(await q.popMany(queue, 0, 4, (e) => errors.push(e))).to.deep.equal([]);
    const slot = await cluster.slotOf(key(queue));
    const move = await startSlotMove(slot);
    // The job is pushed on the importing primary, as a push redirected there by ASK would land.
    const importer = new Redis({ port: move.to.port, host: '127.0.0.1' });
    try {
      await importer.pipeline().asking().rpush(key(queue), job(3)).asking().rpush(key(queue, ':notify'), '1').exec();
    } finally {
      importer.disconnect();
    }
    // The old owner answers ASK; the new one, after ASKING, TRYAGAIN while some of the script's keys are
    // still to come (Redis runs no multi-key command across a slot being moved). Both are followed until
    // the move ends, and the pop then runs on the new owner.
    const popping = q.popMany(queue, 0, 4, (e) => errors.push(e));
    await sleep(200);
    await finishSlotMove(slot, move);
    const jobs = await popping;
    expect(jobs.map((j) => j.getJobId())).to.deep.equal(['id3']);
    expect(errors.map((e) => e.message)).to.deep.equal([]);
    await q.deleteReserved(queue, jobs[0]);
    expect(await q.size(queue)).to.equal(0);
  });

  it('follows MOVED in a blocking pop (NotifyWaiter) when the slot moves while it waits, and wakes on the next push', async () => {
    const queue = 'movedwait';
    const q = open({ blockFor: 10 }, staleClient());
    expect(await open({ blockFor: 1 }, staleClient()).pop(queue)).to.equal(null); // maps read before the move
    const popping = q.pop(queue);
    await sleep(500); // BLPOP is waiting on the old owner
    const slot = await cluster.slotOf(key(queue));
    await finishSlotMove(slot, await startSlotMove(slot));
    await open().pushRaw(job(4), queue);
    const popped = await popping;
    expect(popped?.getJobId()).to.equal('id4');
    await q.deleteReserved(queue, popped!);
    expect(await q.size(queue)).to.equal(0);
  });

  it('starts `larq work` while the primary of its queue is down, before the promotion, and it works the queue once the replica takes over', async () => {
    const queue = await queueWithReplica('startdown');
    const producer = open();
    for (const step of [1, 2]) await producer.push(ChainStep.make({ step }), queue);
    const cli = compileCli();
    const dir = mkdtempSync(join(tmpdir(), 'larq-failover-cli-'));
    try {
      const env = join(dir, '.env');
      writeFileSync(
        env,
        [
          `LARQ_REDIS_CLUSTER=${cluster.ports.map((p) => `127.0.0.1:${p}`).join(',')}`,
          'LARQ_LARAVEL=13',
          `REDIS_PREFIX=${prefix}`,
          'QUEUE_FAILED_DRIVER=null',
          'CACHE_STORE=array',
          '',
        ].join('\n'),
      );
      const failingOver = cluster.killPrimaryOf(key(queue));
      // The nodes have noticed: the cluster is down until the replica is promoted.
      await waitFor('a node to report cluster_state:fail', 10000, async () => {
        for (const port of cluster.alivePorts)
          if (String(await cluster.node(port).command(['CLUSTER', 'INFO'])).includes('cluster_state:fail')) return true;
        return undefined;
      });
      const work = await runLarq(
        cli.main,
        ['work', `--handlers=${cli.handlers}`, `--queue=${queue}`, '--max-jobs=2', '--sleep=0.1', `--env=${env}`],
        { timeoutMs: 60000 },
      );
      const failover = await failingOver;
      expect(work.code, `stdout: ${work.stdout}\nstderr: ${work.stderr}`).to.equal(0);
      expect(work.stdout.match(/ DONE$/gm) ?? [], work.stdout).to.have.length(2);
      expect(await producer.size(queue)).to.equal(0);
      await cluster.restart(failover.killedPort);
    } finally {
      cli.remove();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  describe('a queue write whose primary dies before its reply', () => {
    it('a push that Redis ran: the caller gets UnconfirmedWriteError naming the push, and the job is on the promoted replica exactly once (not sent again)', async () => {
      const queue = await queueWithReplica('ranpush');
      const primary = await cluster.primaryPortOf(key(queue));
      const relay = await replyDroppingRelay(primary);
      try {
        // The client reaches the primary only through the relay; its other nodes directly.
        const q = open(
          {},
          cluster.client({ natMap: { [`127.0.0.1:${primary}`]: { host: '127.0.0.1', port: relay.port } } }),
        );
        // A push first, so the primary holds the script (a NOSCRIPT reply would be dropped too).
        await q.pushRaw(job(0), queue);
        expect(await q.clear(queue)).to.equal(1);
        relay.dropReplies = true;
        const pushing = q.pushRaw(job(5), queue).then(
          () => null,
          (e: Error) => e,
        );
        // Redis ran it and its replica has it (killPrimaryOf waits for that): only the reply is missing
        // when the primary dies.
        await waitFor('the push to run on the primary', 5000, async () =>
          Number(await cluster.node(primary).command(['LLEN', key(queue)])) === 1 ? true : undefined,
        );
        const failover = await cluster.killPrimaryOf(key(queue));
        const error = await pushing;
        expect(error).to.be.instanceOf(UnconfirmedWriteError);
        expect(error!.message)
          .to.include(`the push to ${key(queue)}`)
          .and.include('it may or may not have run, and it was not sent again');
        await sleep(1000); // a replay would have gone out by now (ioredis retries a failover after 100 ms)
        const promoted = cluster.node(failover.promotedPort);
        expect(await promoted.command(['LRANGE', key(queue), 0, -1])).to.deep.equal([job(5)]);
        expect(await promoted.command(['LRANGE', key(queue, ':notify'), 0, -1])).to.deep.equal(['1']);
        await cluster.restart(failover.killedPort);
      } finally {
        await relay.close();
      }
    });

    it('a pop (popMany) that Redis ran: the worker is told, and the pop is not run again to reserve a second job', async () => {
      const queue = await queueWithReplica('ranpop');
      const primary = await cluster.primaryPortOf(key(queue));
      const relay = await replyDroppingRelay(primary);
      try {
        const q = open(
          {},
          cluster.client({ natMap: { [`127.0.0.1:${primary}`]: { host: '127.0.0.1', port: relay.port } } }),
        );
        await q.pushRaw(job(7), queue);
        await q.pushRaw(job(8), queue);
        // One pop first, so the primary holds the scripts (a NOSCRIPT reply would be dropped too); job 7
        // goes back to the head of the list by a release due now.
        const [seven] = await q.popMany(queue, 0, 1, () => undefined);
        await q.deleteAndRelease(queue, seven, 0);
        relay.dropReplies = true;
        const errors: Error[] = [];
        const popping = q
          .popMany(queue, 0, 1, (e) => errors.push(e))
          .then(
            () => null,
            (e: Error) => e,
          );
        await waitFor('the pop to run on the primary', 5000, async () =>
          Number(await cluster.node(primary).command(['ZCARD', key(queue, ':reserved')])) === 1 ? true : undefined,
        );
        const failover = await cluster.killPrimaryOf(key(queue));
        // popMany throws the first error of its batch (a migration's, which ioredis retried) and hands
        // the others to onError: the pop's is among them.
        const all = [await popping, ...errors];
        expect(all.filter((e) => e instanceof UnconfirmedWriteError).map((e) => e!.message))
          .to.have.length(1)
          .and.satisfy((m: string[]) => m[0].includes(`the pop from ${key(queue)}`));
        await sleep(1000);
        // One reservation (it comes back after retry_after, as a crashed worker's does), one job waiting.
        const promoted = cluster.node(failover.promotedPort);
        expect(await promoted.command(['ZCARD', key(queue, ':reserved')])).to.equal(1);
        expect(await promoted.command(['LLEN', key(queue)])).to.equal(1);
        await cluster.restart(failover.killedPort);
      } finally {
        await relay.close();
      }
    });

    it('a push that Redis never ran: the caller gets UnconfirmedWriteError, and the push is not run later behind its back', async () => {
      const queue = await queueWithReplica('heldpush');
      const q = open();
      expect(await q.size(queue)).to.equal(0);
      const primary = await cluster.primaryPortOf(key(queue));
      // The primary holds every write it receives: the push is written, and never run.
      await cluster.node(primary).command(['CLIENT', 'PAUSE', 30000, 'WRITE']);
      const pushing = q.pushRaw(job(6), queue).then(
        () => null,
        (e: Error) => e,
      );
      await sleep(300);
      const failover = await cluster.killPrimaryOf(key(queue));
      const error = await pushing;
      expect(error).to.be.instanceOf(UnconfirmedWriteError);
      expect(error!.message).to.include(`the push to ${key(queue)}`);
      await sleep(1000);
      expect(await cluster.node(failover.promotedPort).command(['LLEN', key(queue)])).to.equal(0);
      expect(await q.size(queue)).to.equal(0);
      await cluster.restart(failover.killedPort);
    });
  });
});

/** A TCP relay to a Redis port that passes requests on and, once told to, drops the replies. */
interface ReplyDroppingRelay {
  readonly port: number;
  dropReplies: boolean;
  close(): Promise<void>;
}

function replyDroppingRelay(redisPort: number): Promise<ReplyDroppingRelay> {
  const sockets = new Set<Socket>();
  let relay: ReplyDroppingRelay;
  const server = createServer((inbound) => {
    const outbound = connect(redisPort, '127.0.0.1');
    for (const s of [inbound, outbound]) {
      sockets.add(s);
      s.on('error', () => undefined); // one side closing resets the other: expected when the node dies
      s.on('close', () => sockets.delete(s));
    }
    inbound.on('data', (chunk: Buffer) => outbound.write(chunk));
    outbound.on('data', (chunk: Buffer) => {
      if (!relay.dropReplies) inbound.write(chunk);
    });
    inbound.on('close', () => outbound.destroy());
    outbound.on('close', () => inbound.destroy());
  });
  return new Promise((resolve, reject) => {
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const addr = server.address();
      relay = {
        port: typeof addr === 'object' && addr ? addr.port : 0,
        dropReplies: false,
        close: () =>
          new Promise<void>((done) => {
            for (const s of sockets) s.destroy();
            server.close(() => done());
          }),
      };
      resolve(relay);
    });
  });
}
