// After a failover, a connection that stays open to the demoted primary (now a replica) gets READONLY
// for every write: what a client sees behind a DNS name or proxy that moved to the new primary (a managed
// Redis' failover), or after an operator's REPLICAOF. Two real redis-servers, A then B as primary, behind
// a relay that plays that name: connections already open stay on A, new ones reach B.
// A client larq opens itself reconnects on READONLY (and so reaches B); a queue write that got it rejects
// with UnconfirmedWriteError instead of being sent again behind the caller's back, other writes and reads
// are resent; a worker does not stop on it and goes on against B.
import { expect } from 'chai';
import { spawn } from 'child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'fs';
import { createServer, connect, type Server, type Socket } from 'net';
import { tmpdir } from 'os';
import { join } from 'path';
import Redis from 'ioredis';
import { createWorker } from '../../lib/createWorker';
import { UnconfirmedWriteError } from '../../lib/errors';
import { Handlers } from '../../lib/handlers/Handlers';
import { reconnectOnReadOnly } from '../../lib/index';
import { RedisQueue } from '../../lib/RedisQueue';
import { compileCli, type CompiledCli } from '../support/compiled';
import { appFreeEnv } from '../support/larqProcess';
import { ChainStep } from '../support/phpJobs';
import { randomPrefix, requireRedis } from '../support/redis';
import { waitFor } from '../support/redisProcess';
import { ownRedis, type OwnRedis } from '../support/redisServer';

const ROOT = join(__dirname, '..', '..');
const job = (n: number) =>
  JSON.stringify({
    uuid: `u${n}`,
    displayName: `Job${n}`,
    job: 'readonly-job',
    data: { n },
    id: `id${n}`,
    attempts: 0,
  });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A TCP relay standing for the primary's name: new connections go to `target`, open ones stay where they are. */
interface MovableRelay {
  readonly port: number;
  target: number;
  close(): Promise<void>;
}

function movableRelay(target: number): Promise<MovableRelay> {
  const sockets = new Set<Socket>();
  const relay = { port: 0, target, close: () => Promise.resolve() } as MovableRelay;
  const server: Server = createServer((inbound) => {
    const outbound = connect(relay.target, '127.0.0.1');
    for (const s of [inbound, outbound]) {
      sockets.add(s);
      s.on('error', () => undefined); // one side closing resets the other
      s.on('close', () => sockets.delete(s));
    }
    inbound.pipe(outbound);
    outbound.pipe(inbound);
    inbound.on('close', () => outbound.destroy());
    outbound.on('close', () => inbound.destroy());
  });
  relay.close = () =>
    new Promise<void>((done) => {
      for (const s of sockets) s.destroy();
      server.close(() => done());
    });
  return new Promise((resolve, reject) => {
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const addr = server.address();
      (relay as { port: number }).port = typeof addr === 'object' && addr ? addr.port : 0;
      resolve(relay);
    });
  });
}

describe('READONLY after a failover: larq reconnects to the new primary', function () {
  this.timeout(90000);
  let a: OwnRedis;
  let b: OwnRedis;
  let adminA: Redis;
  let adminB: Redis;
  let relay: MovableRelay;
  let dataDir: string;
  const closing: (() => Promise<unknown>)[] = [];

  before(async function () {
    await requireRedis(this);
  });
  beforeEach(async () => {
    // A replica's full sync writes an RDB file: into a temp dir, not the project.
    dataDir = mkdtempSync(join(tmpdir(), 'larq-readonly-data-'));
    a = await ownRedis(['--dir', dataDir]);
    b = await ownRedis(['--dir', dataDir]);
    adminA = a.admin();
    adminB = b.admin();
    await adminB.replicaof('127.0.0.1', a.port);
    await waitFor('B to sync from A', 10000, async () =>
      (await adminB.info('replication')).includes('master_link_status:up') ? true : undefined,
    );
    relay = await movableRelay(a.port);
  });
  afterEach(async () => {
    for (const close of closing.splice(0).reverse()) await close().catch(() => undefined);
    await relay.close();
    adminA.disconnect();
    adminB.disconnect();
    await a.stop();
    await b.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /**
   * B becomes the primary, A its replica, and the relay sends new connections to B. B first has every
   * write A ran: Redis replicates asynchronously, and a write A acknowledged an instant before B's
   * promotion (a worker's acknowledgement) could otherwise be lost with A's data, whatever the client did
   * (a WAIT on the admin connection waits only for that connection's own writes). So A holds new writes
   * (CLIENT PAUSE WRITE) until B's offset equals A's; those held then run on A as a replica: READONLY.
   */
  async function failover(): Promise<void> {
    await adminA.call('CLIENT', 'PAUSE', 10000, 'WRITE');
    await waitFor('B to have every write of A', 10000, async () => {
      const offset = /master_repl_offset:(\d+)/.exec(await adminA.info('replication'))![1];
      const received = /slave_repl_offset:(\d+)/.exec(await adminB.info('replication'))![1];
      return offset === received ? true : undefined;
    });
    await adminB.replicaof('NO', 'ONE');
    await adminA.replicaof('127.0.0.1', b.port);
    relay.target = b.port;
    await adminA.call('CLIENT', 'UNPAUSE');
    expect(await adminA.role()).to.have.property('0', 'slave');
  }

  function queueOn(port: number, prefix: string, blockFor: number | null = null): RedisQueue {
    const q = new RedisQueue({ connection: { host: '127.0.0.1', port }, prefix, retryAfter: 90, blockFor });
    closing.push(() => q.close());
    return q;
  }

  const connections: [string, (prefix: string) => RedisQueue][] = [
    ['a RedisQueue built from options', (prefix) => queueOn(relay.port, prefix)],
    [
      "a caller's client with reconnectOnError: reconnectOnReadOnly",
      (prefix) => {
        const client = new Redis({ host: '127.0.0.1', port: relay.port, reconnectOnError: reconnectOnReadOnly });
        client.on('error', () => undefined);
        closing.push(async () => client.disconnect());
        const q = new RedisQueue({ connection: client, prefix, retryAfter: 90 });
        closing.push(() => q.close());
        return q;
      },
    ],
  ];
  for (const [name, open] of connections) {
    it(`${name}: a push that gets READONLY rejects with UnconfirmedWriteError, is not resent, and the next push reaches the new primary`, async () => {
      const prefix = randomPrefix();
      const q = open(prefix);
      await q.pushRaw(job(1));
      await failover();

      const refused = await q.pushRaw(job(2)).then(
        () => null,
        (e: Error) => e,
      );
      expect(refused).to.be.instanceOf(UnconfirmedWriteError);
      expect((refused as Error).message).to.include(`the push to ${prefix}queues:default`);

      // The same queue, no restart: its connection went to B by itself.
      const began = Date.now();
      await waitFor(
        'a push to reach the new primary',
        5000,
        async () =>
          (await q.pushRaw(job(3)).then(
            () => true,
            () => false,
          ))
            ? true
            : undefined,
        50,
      );
      const resumedMs = Date.now() - began;
      expect(
        await adminB.lrange(`${prefix}queues:default`, 0, -1),
        'job 2 was not replayed; 1 and 3 are there once',
      ).to.deep.equal([job(1), job(3)]);
      expect(await adminB.llen(`${prefix}queues:default:notify`)).to.equal(2);
      expect((await q.pop())!.getJobId()).to.equal('id1');
      console.log(`      first push after the failover: ${(refused as Error).name}; resumed in ${resumedMs} ms`);
    });
  }

  it('a bulk push that gets READONLY rejects, none of it is resent, and the next bulk lands once on the new primary', async () => {
    const prefix = randomPrefix();
    const q = queueOn(relay.port, prefix);
    await q.pushRaw(job(1));
    await failover();

    // Each command queued in the MULTI gets READONLY; none of them may be written again outside it.
    const refused = await q.bulkRaw([job(2), { payload: job(3), delay: 60 }, job(4)]).then(
      () => null,
      (e: Error) => e,
    );
    expect(refused, 'the refused bulk').to.be.instanceOf(Error);
    await waitFor(
      'a bulk push to reach the new primary',
      5000,
      async () =>
        (await q.bulkRaw([job(5), job(6)]).then(
          () => true,
          () => false,
        ))
          ? true
          : undefined,
      50,
    );
    await sleep(200); // anything ioredis would still resend has gone out by now
    expect(await adminB.lrange(`${prefix}queues:default`, 0, -1)).to.deep.equal([job(1), job(5), job(6)]);
    expect(await adminB.zcard(`${prefix}queues:default:delayed`)).to.equal(0);
    console.log(`      the refused bulk: ${(refused as Error).name}: ${(refused as Error).message}`);
  });

  it('a write that may be resent (an acknowledgement) is resent on the new primary; reads go on', async () => {
    const prefix = randomPrefix();
    const q = queueOn(relay.port, prefix);
    await q.pushRaw(job(1));
    const popped = (await q.pop())!;
    expect(await q.reservedSize()).to.equal(1);
    await failover();

    // The ZREM gets READONLY from A, the connection goes to B, and the ZREM is sent there.
    await q.deleteReserved('default', popped);
    expect(await adminB.zcard(`${prefix}queues:default:reserved`)).to.equal(0);
    expect(await q.size()).to.equal(0);
  });

  it('a worker does not stop on READONLY: it reconnects, acknowledges the job it was running, and runs what is pushed to the new primary', async () => {
    const prefix = randomPrefix();
    const ran: number[] = [];
    const errors: string[] = [];
    let releaseFirst!: () => void;
    const firstHeld = new Promise<void>((r) => (releaseFirst = r));
    const worker = createWorker(
      queueOn(relay.port, prefix, 1),
      new Handlers().string('readonly-job', async (data: { n: number }, ctx) => {
        ran.push(data.n);
        if (data.n === 1) await firstHeld;
        return ctx.delete();
      }),
      { sleep: 0.05, memory: 0 },
    );
    worker.on('error', (e) => errors.push(`${e.name}: ${e.message}`));
    const daemon = worker.daemon('default');
    const producerA = queueOn(a.port, prefix);
    await producerA.pushRaw(job(1));
    await waitFor('job 1 to start', 5000, async () => (ran.includes(1) ? true : undefined));

    await failover();
    releaseFirst();
    const producerB = queueOn(b.port, prefix);
    for (let n = 2; n <= 20; n++) await producerB.pushRaw(job(n));
    await waitFor('jobs 2 to 20 to run', 15000, async () => (ran.length >= 20 ? true : undefined), 50);
    await sleep(200);
    worker.stop();
    expect(await daemon).to.deep.equal({ status: 0, reason: 'interrupted' });
    expect(
      ran.slice().sort((x, y) => x - y),
      'each job ran once',
    ).to.deep.equal(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(await producerB.size(), 'nothing left reserved or waiting on the new primary').to.equal(0);
    console.log(`      worker errors during the failover: ${errors.length ? errors.join(' | ') : 'none'}`);
  });

  describe('larq work', function () {
    let cli: CompiledCli;
    let dir: string;
    before(() => {
      cli = compileCli(['spec/support/chaosHandlers.ts']);
      dir = mkdtempSync(join(tmpdir(), 'larq-readonly-'));
    });
    after(() => {
      cli?.remove();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it('keeps running through READONLY and works the new primary', async () => {
      const prefix = randomPrefix();
      const env = join(dir, `${prefix}.env`);
      const record = join(dir, `${prefix}.record`);
      writeFileSync(record, '');
      writeFileSync(
        env,
        [
          'REDIS_HOST=127.0.0.1',
          `REDIS_PORT=${relay.port}`,
          `REDIS_PREFIX=${prefix}`,
          'QUEUE_FAILED_DRIVER=null',
          'CACHE_STORE=array',
          'LARQ_LARAVEL=13',
          '',
        ].join('\n'),
      );
      const proc = spawn(
        process.execPath,
        [
          cli.main,
          'work',
          `--env=${env}`,
          `--handlers=${cli.compiled('spec/support/chaosHandlers.ts')}`,
          '--sleep=0.05',
          '--memory=0',
          '--quiet',
        ],
        { cwd: ROOT, env: { ...appFreeEnv(), LARQ_CHAOS_RECORD: record } },
      );
      let stderr = '';
      proc.stderr!.on('data', (d) => (stderr += d));
      proc.stdout!.resume();
      const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
      closing.push(async () => {
        proc.kill('SIGKILL');
        await exited;
      });
      const steps = () =>
        readFileSync(record, 'utf8')
          .split('\n')
          .filter((l) => l.startsWith('end '))
          .map((l) => Number(l.split(' ')[1]));

      const producerA = queueOn(a.port, prefix);
      await producerA.push(ChainStep.make({ step: 1 }));
      await waitFor('step 1 to run', 10000, async () => (steps().includes(1) ? true : undefined), 50);
      await failover();
      const producerB = queueOn(b.port, prefix);
      for (let step = 2; step <= 5; step++) await producerB.push(ChainStep.make({ step }));
      await waitFor(
        'steps 2 to 5 to run on the new primary',
        15000,
        async () => (steps().length >= 5 ? true : undefined),
        50,
      ).catch((e: Error) => {
        throw new Error(`${e.message}; ran ${JSON.stringify(steps())}; stderr: ${stderr}`);
      });
      proc.kill('SIGTERM');
      expect(await exited, stderr).to.equal(0);
      expect(steps().sort(), 'each step ran once').to.deep.equal([1, 2, 3, 4, 5]);
      expect(await producerB.size()).to.equal(0);
    });
  });
});
