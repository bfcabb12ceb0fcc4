// The queue and the worker on connections that are not a plain, steady TCP socket: a TLS connection to
// redis-server's --tls-port (a self-signed certificate made here with openssl), and connections cut by
// CLIENT KILL over and over while jobs are pushed and worked. Every job runs, none is left behind.
import { expect } from 'chai';
import { execFileSync } from 'child_process';
import { mkdtempSync, readFileSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import type Redis from 'ioredis';
import type { RedisOptions } from 'ioredis';
import { createWorker } from '../../lib/createWorker';
import { Handlers } from '../../lib/handlers/Handlers';
import { RedisQueue } from '../../lib/RedisQueue';
import { ChainStep } from '../support/phpJobs';
import { freePort, hasBinary, inCI, randomPrefix, requireRedis } from '../support/redis';
import { ownRedis, type OwnRedis } from '../support/redisServer';

describe('queue and worker over TLS and through reconnects (integration)', function () {
  this.timeout(120000);
  let dir: string;
  let tlsPort: number;
  let tls: RedisOptions['tls'];
  let server: OwnRedis;
  let admin: Redis;

  before(async function () {
    await requireRedis(this);
    if (!hasBinary('openssl')) {
      if (inCI) throw new Error('openssl is not installed; CI must install it');
      this.skip();
    }
    dir = mkdtempSync(join(tmpdir(), 'larq-tls-'));
    const key = join(dir, 'key.pem');
    const cert = join(dir, 'cert.pem');
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        key,
        '-out',
        cert,
        '-days',
        '1',
        '-subj',
        '/CN=localhost',
        '-addext',
        'subjectAltName=DNS:localhost,IP:127.0.0.1',
      ],
      { stdio: 'ignore' },
    );
    tlsPort = await freePort();
    server = await ownRedis([
      '--tls-port',
      String(tlsPort),
      '--tls-cert-file',
      cert,
      '--tls-key-file',
      key,
      '--tls-ca-cert-file',
      cert,
      '--tls-auth-clients',
      'no',
    ]);
    tls = { ca: readFileSync(cert), servername: 'localhost' };
    admin = server.admin();
  });
  after(async () => {
    admin?.disconnect();
    await server?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  // Push `total` ChainStep jobs (bulk and push, a few delayed by 1 s) while `cut` kills the client
  // connections now and then, work them with a worker of concurrency 10 on the same connection options,
  // and return how often each step ran.
  async function run(
    connection: RedisOptions,
    total: number,
    cutEveryMs: number | null,
  ): Promise<{ runs: Map<number, number>; kills: number; leftOver: number }> {
    const prefix = randomPrefix();
    const producer = new RedisQueue({ connection, prefix, laravel: 13, retryAfter: 3 });
    const queue = new RedisQueue({ connection, prefix, laravel: 13, retryAfter: 3, blockFor: 1 });
    const runs = new Map<number, number>();
    const handlers = new Handlers().object('App\\Jobs\\ChainStep', async (command) => {
      const step = Number(command.step);
      runs.set(step, (runs.get(step) ?? 0) + 1);
      await new Promise((r) => setTimeout(r, 2));
    });
    const worker = createWorker(queue, handlers, { concurrency: 10, maxTries: 5, sleep: 0.05, timeout: 0, memory: 0 });
    const errors: string[] = [];
    worker.on('error', (e) => errors.push(e.message));
    let stoppedEarly: unknown = null;
    const working = worker.daemon('default').then((r) => (stoppedEarly = r));

    let kills = 0;
    let cutting = cutEveryMs !== null;
    const cutter = (async () => {
      while (cutting) {
        await new Promise((r) => setTimeout(r, cutEveryMs ?? 0));
        await admin.client('KILL', 'TYPE', 'NORMAL').then(
          () => kills++,
          () => undefined,
        );
      }
    })();

    // Every step is pushed until Redis confirmed it: a write whose reply was lost is pushed again only if
    // it is not in Redis (checked by its step number over the queue's keys), as a careful producer would.
    const confirmed = new Set<number>();
    const step = (n: number) => ({ command: ChainStep.make({ step: n }), maxTries: 5 });
    for (let from = 1; from <= total; from += 100) {
      const batch = Array.from({ length: Math.min(100, total - from + 1) }, (_, i) => from + i);
      const [first, ...rest] = batch;
      await producer.push(step(first)).then(
        () => confirmed.add(first),
        () => undefined,
      );
      await producer.bulk(rest.map((n) => (n % 10 === 0 ? { ...step(n), delay: 1 } : step(n)))).then(
        () => rest.forEach((n) => confirmed.add(n)),
        () => undefined,
      );
    }
    // What a lost reply left unknown: push it now unless it ran or is waiting somewhere.
    const unknown = Array.from({ length: total }, (_, i) => i + 1).filter((n) => !confirmed.has(n));
    const keys = queue.keys.forQueue('default');
    for (const n of unknown) {
      for (;;) {
        const stored = [
          ...(await admin.lrange(keys.queue, 0, -1)),
          ...(await admin.zrange(keys.delayed, 0, '-1')),
          ...(await admin.zrange(keys.reserved, 0, '-1')),
        ];
        if (runs.has(n) || stored.some((p) => p.includes(`s:4:"step";i:${n};`))) break;
        if (
          await producer.push(step(n)).then(
            () => true,
            () => false,
          )
        )
          break;
      }
    }

    // The worker keeps being cut off while it works through the queue.
    const deadline = Date.now() + 60000;
    while (runs.size < total && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    cutting = false;
    await cutter;
    worker.stop();
    await working;
    const leftOver =
      (await admin.llen(keys.queue)) + (await admin.zcard(keys.delayed)) + (await admin.zcard(keys.reserved));
    await producer.close();
    await queue.close();
    expect(
      errors.filter((m) => !/did not answer|unreachable/.test(m)),
      'unexpected worker errors',
    ).to.deep.equal([]);
    expect(
      runs.size,
      `jobs that ran (worker stopped: ${JSON.stringify(stoppedEarly)}, errors: ${[...new Set(errors)].slice(0, 5).join(' | ')}; ${unknown.length} pushes unconfirmed, ${leftOver} left in Redis)`,
    ).to.equal(total);
    return { runs, kills, leftOver };
  }

  it('pushes, bulk pushes and works every job over TLS', async () => {
    const { runs, leftOver } = await run({ host: '127.0.0.1', port: tlsPort, tls }, 500, null);
    expect(runs.size).to.equal(500);
    expect(
      [...runs.values()].every((n) => n === 1),
      'a job ran twice',
    ).to.equal(true);
    expect(leftOver).to.equal(0);
  });

  // Every 200 ms: on a machine with fast loopback the 1,500 jobs run in under a second, and the spec wants
  // more than 3 kills while they do.
  it('over TLS, with the connections killed every 200 ms: every job runs, none is left in Redis', async () => {
    const { runs, kills, leftOver } = await run({ host: '127.0.0.1', port: tlsPort, tls }, 1500, 200);
    expect(kills).to.be.greaterThan(3);
    expect(runs.size).to.equal(1500);
    expect(leftOver).to.equal(0);
    console.log(`      tls: ${kills} kills, ${[...runs.values()].filter((n) => n > 1).length} jobs ran more than once`);
  });

  it('over TCP, with the connections killed every 200 ms: every job runs, none is left in Redis', async () => {
    const { runs, kills, leftOver } = await run({ host: '127.0.0.1', port: server.port }, 3000, 200);
    expect(kills).to.be.greaterThan(5);
    expect(runs.size).to.equal(3000);
    expect(leftOver).to.equal(0);
    console.log(`      tcp: ${kills} kills, ${[...runs.values()].filter((n) => n > 1).length} jobs ran more than once`);
  });
});
