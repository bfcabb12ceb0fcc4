// Every connection larq opens speaks RESP2, as phpredis and Predis do: in CLIENT LIST (resp=2) a larq
// worker looks like a PHP one, and Redis before 6 (no RESP3) serves it. ioredis 6 would ask for RESP3
// (HELLO 3) unless told otherwise. Real processes: `larq work` and a redis-server of the spec's own.
import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import Redis from 'ioredis';
import { RedisCacheStore } from '../../lib/cache/RedisCacheStore';
import { RedisQueue } from '../../lib/RedisQueue';
import { compileCli, type CompiledCli } from '../support/compiled';
import { startLarq, type LarqProcess } from '../support/larqProcess';
import { ChainStep } from '../support/phpJobs';
import { LocalCluster } from '../support/cluster';
import { randomPrefix } from '../support/redis';
import { waitFor } from '../support/redisProcess';
import { ownRedis, type OwnRedis } from '../support/redisServer';
import { LocalSentinel } from '../support/sentinel';

/** A client of CLIENT LIST: its id, the RESP version it speaks, and the command it ran last. */
interface Connection {
  id: string;
  resp: string;
  cmd: string;
}

describe('the Redis protocol larq speaks', function () {
  this.timeout(90000);
  let server: OwnRedis;
  let admin: Redis;
  let adminId: string;
  let cli: CompiledCli;
  let dir: string;
  const workers: LarqProcess[] = [];

  before(async function () {
    server = await ownRedis();
    // The spec's own connection, left out of what it checks.
    admin = new Redis({ port: server.port, host: '127.0.0.1', protocol: 2 });
    adminId = String(await admin.client('ID'));
    cli = compileCli();
    dir = mkdtempSync(join(tmpdir(), 'larq-resp2-'));
  });
  after(async () => {
    admin?.disconnect();
    await server?.stop();
    cli?.remove();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  afterEach(() => {
    for (const w of workers.splice(0)) if (w.child.exitCode === null) w.child.kill('SIGKILL');
  });

  /** Every connection but the spec's own, from CLIENT LIST. */
  async function others(): Promise<Connection[]> {
    const list = String(await admin.client('LIST'));
    return list
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => Object.fromEntries(line.split(' ').map((f) => f.split('=', 2))) as unknown as Connection)
      .filter((c) => c.id !== adminId);
  }

  /** How often any client asked for HELLO, from INFO commandstats (0 when none did). */
  async function hellos(): Promise<number> {
    const info = await admin.info('commandstats');
    return Number(/^cmdstat_hello:calls=(\d+)/m.exec(info)?.[1] ?? 0);
  }

  it('larq work opens queue, blocking-pop, cache and middleware connections, all resp=2', async () => {
    await admin.config('RESETSTAT');
    const prefix = randomPrefix();
    const env = join(dir, `${randomPrefix()}.env`);
    const vars = {
      APP_NAME: 'Shop',
      LARQ_LARAVEL: '13',
      QUEUE_FAILED_DRIVER: 'null',
      CACHE_STORE: 'redis',
      REDIS_HOST: '127.0.0.1',
      REDIS_PORT: String(server.port),
      REDIS_PREFIX: prefix,
      REDIS_QUEUE_BLOCK_FOR: '1',
    };
    writeFileSync(
      env,
      Object.entries(vars)
        .map(([k, v]) => `${k}=${v}`)
        .join('\n') + '\n',
    );
    const w = startLarq(cli.main, ['work', `--handlers=${cli.handlers}`, `--env=${env}`]);
    workers.push(w);
    // Idle, waiting in its blocking pop: every connection of the start is open.
    const seen = new Map<string, Connection>();
    await waitFor('the worker to wait in BLPOP', 30000, async () => {
      const now = await others();
      for (const c of now) seen.set(c.id, c);
      return now.some((c) => c.cmd === 'blpop') ? true : undefined;
    });
    const queue = new RedisQueue({ connection: admin, prefix, laravel: 13 });
    await queue.push(ChainStep.make({ step: 1 }));
    await waitFor('the worker to run the job', 30000, async () => (/ DONE$/m.test(w.stdout) ? true : undefined));
    for (const c of await others()) seen.set(c.id, c);
    w.child.kill('SIGTERM');
    expect(await w.done, w.stderr).to.equal(0);

    const connections = [...seen.values()];
    // the queue's, its blocking pop's, the cache's (database 1) and the middleware's at least
    expect(connections.length, JSON.stringify(connections)).to.be.at.least(4);
    expect(
      connections.map((c) => c.resp),
      'resp= of each connection',
    ).to.deep.equal(connections.map(() => '2'));
    expect(await hellos(), 'HELLO sent by some connection').to.equal(0);
  });

  it('a RedisQueue and a RedisCacheStore built from options speak resp=2, their own connections too', async () => {
    await admin.config('RESETSTAT');
    const before = new Set((await others()).map((c) => c.id));
    const prefix = randomPrefix();
    const fromUrl = new RedisQueue({
      connection: `redis://127.0.0.1:${server.port}`,
      prefix,
      laravel: 13,
      blockFor: 1,
    });
    const fromObject = new RedisQueue({
      connection: { host: '127.0.0.1', port: server.port },
      prefix,
      laravel: 13,
      blockFor: 1,
    });
    // database 1 for the cache, so its locks get a connection of their own on database 0
    const cache = new RedisCacheStore({ connection: `redis://127.0.0.1:${server.port}/1`, laravel: 13 });
    try {
      // each queue's blocking pop opens its second connection
      expect(await fromUrl.pop('default')).to.equal(null);
      expect(await fromObject.pop('default')).to.equal(null);
      await cache.put('resp2', 'yes', 60);
      expect(await cache.lock('resp2', 10).acquire()).to.equal(true);
      const opened = (await others()).filter((c) => !before.has(c.id));
      expect(opened.length, JSON.stringify(opened)).to.equal(6);
      expect(
        opened.map((c) => c.resp),
        'resp= of each connection',
      ).to.deep.equal(opened.map(() => '2'));
      expect(await hellos(), 'HELLO sent by some connection').to.equal(0);
    } finally {
      await Promise.all([fromUrl.close(), fromObject.close(), cache.close()]);
    }
  });

  it('leaves the protocol to a user who chose one', async () => {
    const before = new Set((await others()).map((c) => c.id));
    const queue = new RedisQueue({
      connection: { host: '127.0.0.1', port: server.port, protocol: 3 },
      prefix: randomPrefix(),
      laravel: 13,
    });
    try {
      expect(await queue.size('default')).to.equal(0);
      const opened = (await others()).filter((c) => !before.has(c.id));
      expect(opened.map((c) => c.resp)).to.deep.equal(['3']);
    } finally {
      await queue.close();
    }
  });

  it("reads a user's own RESP3 client, even one mapping replies the RESP3 way", async () => {
    const client = new Redis({ port: server.port, host: '127.0.0.1', replyMapping: 'resp3' });
    const queue = new RedisQueue({ connection: client, prefix: randomPrefix(), laravel: 13 });
    try {
      const at = Math.floor(Date.now() / 1000) + 60;
      await queue.later(new Date(at * 1000), ChainStep.make({ step: 1 }));
      await queue.push(ChainStep.make({ step: 2 }));
      expect(await queue.pop()).to.not.equal(null);
      const delayed = await queue.delayedJobs();
      expect(delayed.map((j) => j.availableAt)).to.deep.equal([at]);
      const reserved = await queue.reservedJobs();
      expect(reserved).to.have.length(1);
      expect(reserved[0].reservedUntil)
        .to.be.a('number')
        .and.at.least(at - 60);
      const opened = (await others()).filter((c) => c.resp === '3');
      expect(opened, 'the user client still speaks RESP3').to.have.length.at.least(1);
    } finally {
      await queue.close();
      client.disconnect();
    }
  });

  /** HELLO and EVALSHA calls so far on the server at `port`, from INFO commandstats. */
  async function calls(port: number): Promise<{ hello: number; evalsha: number }> {
    const node = new Redis({ port, host: '127.0.0.1', protocol: 2, lazyConnect: true });
    try {
      const info = await node.info('commandstats');
      const count = (name: string) => Number(new RegExp(`^cmdstat_${name}:calls=(\\d+)`, 'm').exec(info)?.[1] ?? 0);
      return { hello: count('hello'), evalsha: count('evalsha') };
    } finally {
      node.disconnect();
    }
  }

  /** Runs `larq work --stop-when-empty` on `vars`; the HELLOs and EVALSHAs it cost the servers on `ports`. */
  async function workCalls(vars: Record<string, string>, ports: number[]): Promise<{ hello: number; evalsha: number }> {
    const before = await Promise.all(ports.map(calls));
    const env = join(dir, `${randomPrefix()}.env`);
    writeFileSync(
      env,
      Object.entries({ APP_NAME: 'Shop', LARQ_LARAVEL: '13', QUEUE_FAILED_DRIVER: 'null', ...vars })
        .map(([k, v]) => `${k}=${v}`)
        .join('\n') + '\n',
    );
    const w = startLarq(cli.main, [
      'work',
      `--handlers=${cli.handlers}`,
      '--stop-when-empty',
      '--sleep=0',
      `--env=${env}`,
    ]);
    workers.push(w);
    expect(await w.done, w.stderr).to.equal(0);
    expect(w.stdout.match(/ DONE$/gm), w.stdout).to.have.length(2);
    const after = await Promise.all(ports.map(calls));
    return {
      hello: after.reduce((sum, c, i) => sum + c.hello - before[i].hello, 0),
      evalsha: after.reduce((sum, c, i) => sum + c.evalsha - before[i].evalsha, 0),
    };
  }

  describe('on a Redis Cluster', function () {
    let cluster: LocalCluster;
    before(async function () {
      cluster = await LocalCluster.start(this);
    });
    after(async () => cluster?.stop());

    it('larq work asks no node for RESP3', async () => {
      const prefix = randomPrefix();
      const queue = new RedisQueue({
        connection: cluster.client({ redisOptions: { protocol: 2 } }),
        prefix,
        laravel: 13,
        cluster: true,
      });
      for (const step of [1, 2]) await queue.push(ChainStep.make({ step }));
      const seeds = cluster.ports.slice(0, 2).map((p) => `127.0.0.1:${p}`);
      const cost = await workCalls(
        { LARQ_REDIS_CLUSTER: seeds.join(','), REDIS_PREFIX: prefix, CACHE_STORE: 'redis' },
        cluster.ports,
      );
      expect(cost.evalsha, 'the pops').to.be.at.least(2);
      expect(cost.hello, 'HELLO sent to a node').to.equal(0);
      await queue.close();
    });
  });

  describe('behind Sentinel', function () {
    let sentinel: LocalSentinel;
    before(async function () {
      sentinel = await LocalSentinel.start(this);
    });
    after(async () => sentinel?.stop());

    it('larq work asks neither the sentinels nor the primary for RESP3', async () => {
      const prefix = randomPrefix();
      const queue = new RedisQueue({ connection: sentinel.client({ protocol: 2 }), prefix, laravel: 13 });
      for (const step of [1, 2]) await queue.push(ChainStep.make({ step }));
      const cost = await workCalls(
        {
          LARQ_REDIS_SENTINELS: sentinel.sentinels.map((s) => `${s.host}:${s.port}`).join(','),
          LARQ_REDIS_SENTINEL_SERVICE: sentinel.name,
          REDIS_PREFIX: prefix,
          CACHE_STORE: 'redis',
        },
        [...sentinel.dataPorts, ...sentinel.sentinelPorts],
      );
      expect(cost.evalsha, 'the pops').to.be.at.least(2);
      expect(cost.hello, 'HELLO sent to a sentinel or data node').to.equal(0);
      await queue.close();
    });
  });
});
