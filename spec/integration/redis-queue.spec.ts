// RedisQueue against a real redis-server: migration, blocking pops, sizes, inspection, key naming,
// options, and the quarantine of payloads Laravel's pop would lose.
import { expect } from 'chai';
import { connect, createServer, type Socket } from 'net';
import { FakeClock } from '../../lib/clock';
import { BulkPartlyPushedError, InvalidOptionError, InvalidPayloadError } from '../../lib/errors';
import { phpClass } from '../../lib/php/builder';
import { RedisQueue, type RedisQueueOptions } from '../../lib/RedisQueue';
import { KeySpace, laravelPrefix, queueKey } from '../../lib/redis/keys';
import { slug } from '../../lib/support/Str';
import { scriptSha, scriptSource } from '../../lib/redis/scripts';
import { commandCalls, countingRelay, dumpKeys, freePort, monitorCaughtUp, rawClient } from '../support/redis';
import { useRedisQueue } from '../support/useRedisQueue';
import { quarantinedPayloads } from '../support/quarantine';

const NOW = 1795276770;
const job = (n: number, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    uuid: `u${n}`,
    displayName: `Job${n}`,
    job: 'x@y',
    data: { n },
    id: `id${n}`,
    attempts: 0,
    ...extra,
  });

describe('RedisQueue (integration)', function () {
  let clock: FakeClock;
  const redis = useRedisQueue(() => ({ clock, retryAfter: 90 }));
  beforeEach(() => {
    clock = new FakeClock(NOW * 1000);
  });

  const open = (options: RedisQueueOptions = {}): RedisQueue => redis.open(options);
  const key = (suffix = '') => `${redis.prefix}queues:default${suffix}`;
  const list = (k: string) => redis.client.lrange(k, 0, -1);

  describe('migration', () => {
    it('moves due delayed jobs in score order to the tail, one notify token each', async () => {
      const q = open();
      await redis.client.rpush(key(), 'head');
      await redis.client.zadd(key(':delayed'), NOW - 1, 'b', NOW - 5, 'a', NOW, 'c', NOW + 1, 'later');
      expect(await q.migrateExpiredJobs('queues:default:delayed', 'queues:default')).to.deep.equal(['a', 'b', 'c']);
      expect(await list(key())).to.deep.equal(['head', 'a', 'b', 'c']);
      expect(await list(key(':notify'))).to.deep.equal(['1', '1', '1']);
      expect(await redis.client.zrange(key(':delayed'), 0, '-1')).to.deep.equal(['later']);
    });

    it('pop migrates delayed before reserved, then reserves the head', async () => {
      const q = open();
      await redis.client.zadd(key(':reserved'), NOW - 1, job(2, { attempts: 1 }));
      await redis.client.zadd(key(':delayed'), NOW - 1, job(1));
      const popped = (await q.pop())!;
      expect(popped.getJobId()).to.equal('id1');
      expect(await list(key())).to.deep.equal([job(2, { attempts: 1 })]);
      expect(await list(key(':notify'))).to.deep.equal(['1']);
      expect((await q.pop())!.attempts()).to.equal(2);
    });

    it('honours migrationBatchSize: 0 moves nothing, 2 moves two, -1 moves all', async () => {
      await redis.client.zadd(key(':delayed'), ...[1, 2, 3, 4, 5].flatMap((n) => [NOW - 10 + n, `m${n}`]));
      expect(
        await open({ migrationBatchSize: 0 }).migrateExpiredJobs('queues:default:delayed', 'queues:default'),
      ).to.deep.equal([]);
      expect(
        await open({ migrationBatchSize: 2 }).migrateExpiredJobs('queues:default:delayed', 'queues:default'),
      ).to.deep.equal(['m1', 'm2']);
      expect(
        await open({ migrationBatchSize: -1 }).migrateExpiredJobs('queues:default:delayed', 'queues:default'),
      ).to.deep.equal(['m3', 'm4', 'm5']);
      expect(await list(key())).to.deep.equal(['m1', 'm2', 'm3', 'm4', 'm5']);
      expect(await redis.client.llen(key(':notify'))).to.equal(5);
    });

    it('moves more than 100 members (chunked RPUSH) in order, with one token per member', async () => {
      const members = Array.from({ length: 250 }, (_, i) => `m${String(i).padStart(3, '0')}`);
      await redis.client.zadd(key(':delayed'), ...members.flatMap((m) => [NOW - 1, m]));
      expect(await open().migrateExpiredJobs('queues:default:delayed', 'queues:default')).to.have.length(250);
      expect(await list(key())).to.deep.equal(members);
      expect(await redis.client.llen(key(':notify'))).to.equal(250);
      expect(await redis.client.exists(key(':delayed'))).to.equal(0);
    });

    it('never migrates reserved jobs when retryAfter is null', async () => {
      const q = open({ retryAfter: null });
      await redis.client.zadd(key(':reserved'), NOW - 1000, job(1, { attempts: 1 }));
      expect(await q.pop()).to.equal(null);
      expect(await q.reservedSize()).to.equal(1);
      expect(await q.pendingSize()).to.equal(0);
    });

    it('release puts the job back with its incremented attempts; the next due pop runs attempt 2', async () => {
      const q = open();
      await q.pushRaw(job(1));
      const first = (await q.pop())!;
      await first.release(5);
      expect(await q.pop()).to.equal(null);
      clock.advance(5);
      const second = (await q.pop())!;
      expect(second.attempts()).to.equal(2);
      expect(second.getRawBody()).to.equal(first.getReservedJob());
    });
  });

  describe('blocking pops', () => {
    it('blocks on :notify and wakes up on a push from another redis.client', async () => {
      const q = open({ blockFor: 5 });
      const started = Date.now();
      const popping = q.pop();
      await new Promise((r) => setTimeout(r, 200));
      await open().pushRaw(job(1));
      const popped = await popping;
      expect(popped!.getJobId()).to.equal('id1');
      expect(Date.now() - started).to.be.lessThan(3000);
      expect(await redis.client.exists(key(':notify'))).to.equal(0);
    });

    it('blocks for blockFor seconds at most, then returns null', async () => {
      const started = Date.now();
      expect(await open({ blockFor: 0.3 }).pop()).to.equal(null);
      expect(Date.now() - started).to.be.within(250, 2500);
    });

    it('does not block on a secondary queue (index > 0)', async () => {
      const started = Date.now();
      expect(await open({ blockFor: 5 }).pop('low', 1)).to.equal(null);
      expect(Date.now() - started).to.be.lessThan(1000);
    });

    it('does not block on the first queue right after a secondary queue had a job (11.27+)', async () => {
      const q = open({ blockFor: 5 });
      await q.pushRaw(job(1), 'low');
      expect(await q.pop('low', 1)).to.not.equal(null);
      const started = Date.now();
      expect(await q.pop('high', 0)).to.equal(null);
      expect(Date.now() - started).to.be.lessThan(1000);
    });

    it('blocks on its own connection: size() answers while a pop is blocked', async () => {
      const q = open({ blockFor: 3 });
      await q.pushRaw(job(1), 'other');
      const popping = q.pop();
      await new Promise((r) => setTimeout(r, 200));
      const started = Date.now();
      expect(await q.size('other')).to.equal(1);
      expect(Date.now() - started).to.be.lessThan(500);
      await q.pushRaw(job(2));
      expect((await popping)!.getJobId()).to.equal('id2');
    });

    it('a pop woken by a push asks Redis nothing more: its pop went out behind the BLPOP', async () => {
      // From push to job in one round trip instead of two: the pop waits in the blocking connection's
      // input, Redis runs it as soon as BLPOP takes the token, and both replies come back together.
      const relay = await countingRelay(redis.port);
      const q = new RedisQueue({
        connection: { host: '127.0.0.1', port: relay.port },
        prefix: redis.prefix,
        clock,
        retryAfter: 90,
        blockFor: 5,
      });
      try {
        const popping = q.pop();
        await new Promise((r) => setTimeout(r, 200));
        const before = relay.sent();
        await open().pushRaw(job(1));
        expect((await popping)!.getJobId()).to.equal('id1');
        expect(relay.sent() - before, 'bytes larq sent after the push').to.equal(0);
        expect(await redis.client.zcard(key(':reserved'))).to.equal(1);
      } finally {
        await q.close();
        await relay.close();
      }
    });

    it('a wait that times out still hands over the job its closing pop found (pushed without a notify token)', async () => {
      // A producer that RPUSHes without a token never wakes BLPOP. The pop sent behind the BLPOP runs when
      // the wait times out, and what it reserves must reach the caller: a reservation nobody holds would
      // only come back after retry_after.
      const q = open({ blockFor: 0.5 });
      const popping = q.pop();
      await new Promise((r) => setTimeout(r, 200));
      await redis.client.rpush(key(), job(1));
      expect((await popping)?.getJobId()).to.equal('id1');
      expect(await redis.client.zcard(key(':reserved'))).to.equal(1);
      expect(await list(key())).to.deep.equal([]);
    });

    it('a wait that crossed a second leaves the reservation expiring when a pop run at the wake-up would', async () => {
      // The pop behind the BLPOP was sent with the expiry of the second the wait began in.
      const q = open({ blockFor: 5 });
      const popping = q.pop();
      await new Promise((r) => setTimeout(r, 200));
      clock.advance(3);
      await open().pushRaw(job(1));
      const popped = (await popping)!;
      await q.size(); // on the same connection as the correction, so after it
      expect(await redis.client.zrange(key(':reserved'), 0, '-1', 'WITHSCORES')).to.deep.equal([
        popped.getReservedJob(),
        String(NOW + 3 + 90),
      ]);
    });

    it('with retryAfter null too, the reservation of a wait that crossed a second is scored at the wake-up', async () => {
      const q = open({ blockFor: 5, retryAfter: null });
      const popping = q.pop();
      await new Promise((r) => setTimeout(r, 200));
      clock.advance(2);
      await open().pushRaw(job(1));
      const popped = (await popping)!;
      await q.size();
      expect(await redis.client.zrange(key(':reserved'), 0, '-1', 'WITHSCORES')).to.deep.equal([
        popped.getReservedJob(),
        String(NOW + 2),
      ]);
    });

    it('a wait longer than half of retryAfter goes out as BLPOPs that long at most, and still lasts blockFor', async () => {
      // A pop sent with a BLPOP carries the expiry of the second it was sent in: cut this way, that
      // expiry is still in the future whenever the pop runs.
      const blpops = () => commandCalls(redis.client, 'blpop');
      const before = await blpops();
      const started = Date.now();
      expect(await open({ blockFor: 2.5, retryAfter: 2 }).pop()).to.equal(null);
      expect(Date.now() - started).to.be.within(2400, 5000);
      expect((await blpops()) - before).to.equal(3);
    });

    it('close() ends a pop blocked forever (blockFor 0) with null', async () => {
      const q = open({ blockFor: 0 });
      const popping = q.pop();
      await new Promise((r) => setTimeout(r, 200));
      await q.close();
      expect(await popping).to.equal(null);
    });
  });

  describe('sizes, clear and inspection', () => {
    it('counts each key and clears all four', async () => {
      const q = open();
      await q.bulkRaw([job(1), job(2), { payload: job(3), delay: 60 }]);
      await q.pop();
      expect([await q.size(), await q.pendingSize(), await q.delayedSize(), await q.reservedSize()]).to.deep.equal([
        3, 1, 1, 1,
      ]);
      expect(await q.clear()).to.equal(3);
      expect(await dumpKeys(redis.client, redis.prefix)).to.deep.equal({});
    });

    it('lists pending, delayed and reserved jobs with their scores', async () => {
      const q = open();
      await q.pushRaw(job(1, { createdAt: NOW }));
      await q.pushRaw('not json');
      await q.laterRaw(30, job(2));
      await redis.client.zadd(key(':reserved'), NOW + 90, job(3, { attempts: 2 }));
      expect(await q.pendingJobs()).to.deep.equal([
        {
          uuid: 'u1',
          queue: 'default',
          name: 'Job1',
          attempts: 0,
          payload: job(1, { createdAt: NOW }),
          createdAt: NOW,
        },
        { uuid: null, queue: 'default', name: null, attempts: 0, payload: 'not json', createdAt: null },
      ]);
      expect(await q.delayedJobs()).to.deep.equal([
        {
          uuid: 'u2',
          queue: 'default',
          name: 'Job2',
          attempts: 0,
          payload: job(2),
          createdAt: null,
          availableAt: NOW + 30,
        },
      ]);
      expect(await q.reservedJobs()).to.deep.equal([
        {
          uuid: 'u3',
          queue: 'default',
          name: 'Job3',
          attempts: 2,
          payload: job(3, { attempts: 2 }),
          createdAt: null,
          reservedUntil: NOW + 90,
        },
      ]);
    });

    it("treats '' and '0' as the default queue, as PHP's `?:` does", async () => {
      const q = open();
      await q.pushRaw(job(1), '0');
      await q.pushRaw(job(2), '');
      expect(await q.pendingSize('default')).to.equal(2);
    });
  });

  describe('keys and redis.prefix', () => {
    it('derives Laravel prefixes', () => {
      expect(laravelPrefix('Laravel', 8)).to.equal('laravel_database_');
      expect(laravelPrefix('Laravel', 12)).to.equal('laravel_database_');
      expect(laravelPrefix('Laravel', 13)).to.equal('laravel-database-');
      expect(laravelPrefix('Café Ünïcode', 8)).to.equal('cafe_unicode_database_');
      expect(slug('Café Ünïcode', '_')).to.equal('cafe_unicode');
      expect(slug('a@b', '_')).to.equal('a_at_b');
      expect(slug('a@b')).to.equal('a-at-b');
      expect(slug('My App', '_')).to.equal('my_app');
      expect(slug('  --My__App!! 2-- ', '_')).to.equal('my_app_2');
      expect(slug('Straße Øl', '-')).to.equal('strasse-ol');
      expect(
        new RedisQueue({ connection: { lazyConnect: true }, appName: 'My App', laravel: 8 }).options.prefix,
      ).to.equal('my_app_database_');
      expect(new RedisQueue({ connection: { lazyConnect: true } }).options.prefix).to.equal('laravel-database-');
    });

    it('wraps queue names in {} only for 13.x on a cluster, and leaves hash-tagged names alone', () => {
      expect(queueKey('default', 13, true)).to.equal('queues:{default}');
      expect(queueKey('{x}y', 13, true)).to.equal('queues:{x}y');
      expect(queueKey('{}', 13, true)).to.equal('queues:{{}}');
      expect(queueKey('default', 12, true)).to.equal('queues:default');
      expect(queueKey('default', 13, false)).to.equal('queues:default');
      expect(queueKey(' default', 13, false)).to.equal('queues: default');
      expect(new KeySpace('p_', 13, true).forQueue('default').notify).to.equal('p_queues:{default}:notify');
    });

    it('writes cluster-form keys end to end', async () => {
      const q = open({ laravel: 13, cluster: true });
      await q.pushRaw(job(1));
      await q.pushRaw(job(2), '{x}y');
      expect(Object.keys(await dumpKeys(redis.client, redis.prefix))).to.deep.equal([
        `${redis.prefix}queues:{default}`,
        `${redis.prefix}queues:{default}:notify`,
        `${redis.prefix}queues:{x}y`,
        `${redis.prefix}queues:{x}y:notify`,
      ]);
      expect((await q.pop())!.getQueue()).to.equal('default');
    });
  });

  describe('payloads Laravel would lose', () => {
    for (const [what, payload] of [
      ['not JSON', 'not json'],
      ['a JSON object without attempts', '{"job":"x","data":{}}'],
      ['a non-numeric attempts', '{"job":"x","attempts":{}}'],
      ['a JSON scalar', '42'],
    ]) {
      it(`quarantines ${what} instead of losing it`, async () => {
        const q = open();
        await q.pushRaw(payload);
        await q.pushRaw(job(2));
        const error = await q.pop().then(
          () => null,
          (e: unknown) => e,
        );
        expect(error).to.be.instanceOf(InvalidPayloadError);
        expect((error as InvalidPayloadError).message)
          .to.contain('"default"')
          .and.contain(key(':larq:invalid'));
        expect((error as InvalidPayloadError).payload).to.equal(payload);
        expect(await quarantinedPayloads(redis.client, key(':larq:invalid'))).to.deep.equal([payload]);
        expect(await list(key(':notify'))).to.deep.equal(['1']);
        expect(await list(key())).to.deep.equal([job(2)]);
        expect(await q.reservedSize()).to.equal(0);
        expect((await q.pop())!.getJobId()).to.equal('id2');
        expect(await redis.client.exists(key(':notify'))).to.equal(0);
      });
    }
  });

  it('reserves a body cjson reads but JSON.parse does not (hex number) and treats it as PHP would', async () => {
    const q = open();
    await q.pushRaw('{"attempts":0x0,"id":"h"}');
    const popped = (await q.pop())!;
    expect(JSON.parse(popped.getReservedJob())).to.deep.equal({ attempts: 1, id: 'h' }); // key order is cjson's
    expect([popped.attempts(), popped.getJobId()]).to.deep.equal([1, null]);
    await popped.delete();
    expect(await dumpKeys(redis.client, redis.prefix)).to.deep.equal({});
  });

  describe('commands on the wire (MONITOR)', () => {
    // Every command the server runs under our prefix, scripts' inner commands included, lower-cased.
    async function record(action: () => Promise<unknown>): Promise<string[]> {
      const monitor = await rawClient(redis.port).monitor();
      const seen: string[] = [];
      monitor.on('monitor', (_time: string, args: string[]) => {
        if (args.some((a) => a.startsWith(redis.prefix)) || ['multi', 'exec'].includes(args[0].toLowerCase()))
          seen.push(args[0].toLowerCase());
      });
      await action();
      await monitorCaughtUp(monitor, redis.client);
      monitor.disconnect();
      // EVAL or EVALSHA depends on whether ioredis already sent the script on this socket.
      return seen.filter((c) => c !== 'ping').map((c) => (c === 'evalsha' ? 'eval' : c));
    }

    it("pop runs Laravel's sequence: migrate delayed, migrate reserved, pop (LPOP, ZADD, LPOP)", async () => {
      const q = open();
      await q.pushRaw(job(1, { attempts: '3' }));
      let popped: Awaited<ReturnType<RedisQueue['pop']>> = null;
      const seen = await record(async () => (popped = await q.pop()));
      expect(seen).to.deep.equal(['eval', 'zrangebyscore', 'eval', 'zrangebyscore', 'eval', 'lpop', 'zadd', 'lpop']);
      expect(popped!.attempts()).to.equal(4); // a numeric string counts, as in Lua and PHP
    });

    it("a blocking pop woken by a push runs Laravel's sequence: migrations, pop, BLPOP, pop", async () => {
      const q = open({ blockFor: 5 });
      const pusher = open();
      const seen = await record(async () => {
        const popping = q.pop();
        await new Promise((r) => setTimeout(r, 200));
        await pusher.pushRaw(job(1));
        await popping;
      });
      // MONITOR shows BLPOP when it starts to wait, before the push that wakes it.
      expect(seen).to.deep.equal([
        'eval',
        'zrangebyscore',
        'eval',
        'zrangebyscore',
        'eval',
        'lpop',
        'blpop',
        'eval',
        'rpush',
        'rpush',
        'eval',
        'lpop',
        'zadd',
        'lpop',
      ]);
    });

    it('push and later run their scripts by SHA (the one Redis files them under), and again by text after SCRIPT FLUSH', async () => {
      const q = open();
      await q.pushRaw(job(1));
      await q.laterRaw(10, job(0)); // both scripts are on the server from here on
      expect(
        await redis.client.script('EXISTS', scriptSha(scriptSource('push')), scriptSha(scriptSource('later'))),
      ).to.deep.equal([1, 1]);
      const [evalshaBefore, evalBefore] = [
        await commandCalls(redis.client, 'evalsha'),
        await commandCalls(redis.client, 'eval'),
      ];
      await q.pushRaw(job(2));
      await q.laterRaw(10, job(3));
      expect([
        (await commandCalls(redis.client, 'evalsha')) - evalshaBefore,
        (await commandCalls(redis.client, 'eval')) - evalBefore,
      ]).to.deep.equal([2, 0]);
      await redis.client.script('FLUSH');
      // Redis refuses the SHA without running anything; the call is made again with the script's text.
      const seen = await record(async () => {
        await q.pushRaw(job(4));
        await q.laterRaw(10, job(5));
      });
      expect(seen).to.deep.equal(['eval', 'eval', 'rpush', 'rpush', 'eval', 'eval', 'zadd']);
      expect(await list(key())).to.deep.equal([job(1), job(2), job(4)]);
      expect(await list(key(':notify'))).to.deep.equal(['1', '1', '1']);
      expect(await redis.client.zrange(key(':delayed'), 0, '-1')).to.deep.equal([job(0), job(3), job(5)]);
    });

    it("push rejects with Redis' own error when the script fails, and sends it once", async () => {
      const q = open();
      await redis.client.set(key(), 'not a list');
      const seen = await record(() => q.pushRaw(job(1)).catch((e: Error) => e));
      expect(seen).to.deep.equal(['eval', 'rpush']);
      const error = await q.pushRaw(job(1)).catch((e: Error) => e);
      expect(error).to.be.instanceOf(Error);
      expect((error as Error).message).to.match(/WRONGTYPE/);
    });

    it('bulkRaw sends one MULTI/EXEC: each run of pushes as one RPUSH of payloads and one of tokens, delayed entries as a plain ZADD in their place (what the later script runs)', async () => {
      const q = open();
      const seen = await record(() => q.bulkRaw([job(1), job(2), { payload: job(3), delay: 10 }, job(4)]));
      expect(seen).to.deep.equal(['multi', 'rpush', 'rpush', 'zadd', 'rpush', 'rpush', 'exec']);
    });

    it('bulkRaw splits a large transaction into RPUSHes of about 256 KiB: one of payloads and one of tokens each, inside one MULTI/EXEC', async () => {
      const payloads = Array.from({ length: 300 }, (_, i) => job(i, { pad: 'x'.repeat(1000) })); // about 300 KiB
      const q = open();
      await q.size();
      const seen = await record(() => q.bulkRaw(payloads));
      const bytes = payloads.reduce((n, p) => n + p.length, 0);
      const pairs = (seen.length - 2) / 2;
      expect([seen[0], seen[seen.length - 1]]).to.deep.equal(['multi', 'exec']);
      expect(seen.slice(1, -1)).to.deep.equal(new Array<string>(pairs * 2).fill('rpush'));
      expect(pairs).to.be.within(Math.floor(bytes / (256 * 1024)), Math.ceil(bytes / (256 * 1024)));
      expect(await list(key())).to.deep.equal(payloads);
      expect(await redis.client.llen(key(':notify'))).to.equal(300);
    });

    it('bulk whose entry throws after chunks went out discards them: the queue is untouched and the connection still works', async () => {
      const Big = phpClass('App\\Jobs\\Big', { pad: 'public' });
      const q = open();
      await q.size();
      const jobs: Parameters<RedisQueue['bulk']>[0] = Array.from({ length: 200 }, () =>
        Big.make({ pad: 'x'.repeat(2000) }),
      );
      jobs.push({} as never); // neither a job object nor a string job: refused when its turn comes
      const error = await q.bulk(jobs).catch((e: unknown) => e);
      expect(error).to.be.instanceOf(InvalidOptionError);
      expect(await redis.client.exists(key(), key(':notify'))).to.equal(0);
      await q.pushRaw(job(1)); // not swallowed by a MULTI left open
      expect(await list(key())).to.deep.equal([job(1)]);
      expect(await q.size()).to.equal(1);
    });

    it('bulkRaw on a connection not ready yet still sends one MULTI (through the offline queue) and leaves the same state', async () => {
      const q = open({ connection: { port: redis.port, lazyConnect: true } });
      const entries = [job(1), { payload: job(2), delay: 10 }, job(3)];
      expect(await q.bulkRaw(entries)).to.deep.equal(['id1', 'id2', 'id3']);
      expect(await list(key())).to.deep.equal([job(1), job(3)]);
      expect(await list(key(':notify'))).to.deep.equal(['1', '1']);
      expect(await redis.client.zrange(key(':delayed'), 0, '-1', 'WITHSCORES')).to.deep.equal([
        job(2),
        String(NOW + 10),
      ]);
    });

    it('bulkRaw whose connection drops after MULTI answered fails whole: ioredis does not resend the rest outside a MULTI', async () => {
      // A relay that, once armed, lets through the MULTI and its +OK only, then cuts both sides: Redis never
      // sees the RPUSHes, the client has MULTI answered and the rest waiting. A reconnect goes through unarmed.
      const MULTI = Buffer.from('*1\r\n$5\r\nmulti\r\n');
      let armed = false;
      const sockets: Socket[] = [];
      const relay = createServer((inbound) => {
        const outbound = connect(redis.port, '127.0.0.1');
        sockets.push(inbound, outbound);
        for (const s of [inbound, outbound]) s.on('error', () => undefined);
        let cut = false;
        inbound.on('data', (chunk: Buffer) => {
          if (!armed) return void outbound.write(chunk);
          armed = false;
          expect(chunk.subarray(0, MULTI.length)).to.deep.equal(MULTI);
          cut = true;
          outbound.write(chunk.subarray(0, MULTI.length));
        });
        outbound.on('data', (chunk: Buffer) => {
          inbound.write(chunk);
          if (cut) {
            inbound.destroy();
            outbound.destroy();
          }
        });
        inbound.on('close', () => outbound.destroy());
        outbound.on('close', () => inbound.destroy());
      });
      await new Promise<void>((r) => relay.listen(0, '127.0.0.1', () => r()));
      try {
        const q = open({ connection: { port: (relay.address() as { port: number }).port } });
        await q.size();
        armed = true;
        const error = await q.bulkRaw([job(1), job(2), { payload: job(3), delay: 5 }, job(4)]).catch((e: unknown) => e);
        expect(error).to.be.instanceOf(Error);
        await q.pushRaw(job(5)); // the reconnected connection works, in no MULTI
        expect(await list(key())).to.deep.equal([job(5)]);
        expect(await list(key(':notify'))).to.deep.equal(['1']);
        expect(await redis.client.exists(key(':delayed'))).to.equal(0);
      } finally {
        for (const s of sockets) s.destroy();
        await new Promise((r) => relay.close(r));
      }
    });

    it('bulkRaw reports the reason Redis refused a queued command, not a bare EXECABORT', async () => {
      const q = open();
      await q.size();
      await redis.client.config('SET', 'maxmemory', '1');
      try {
        const error = (await q.bulkRaw([job(1), job(2)]).catch((e: unknown) => e)) as Error;
        expect(error).to.be.instanceOf(Error);
        expect(error.message).to.match(/OOM/);
      } finally {
        await redis.client.config('SET', 'maxmemory', '0');
      }
      expect(await redis.client.exists(key())).to.equal(0);
      await q.pushRaw(job(3));
      expect(await list(key())).to.deep.equal([job(3)]);
    });

    it('bulk that Redis ran in part (WRONGTYPE on :delayed during EXEC) rejects naming exactly the entries that landed', async () => {
      const q = open();
      await redis.client.set(key(':delayed'), 'not a sorted set');
      const error = (await q
        .bulkRaw([job(1), { payload: job(2), delay: 60 }, job(3)])
        .catch((e: unknown) => e)) as BulkPartlyPushedError;
      expect(error).to.be.instanceOf(BulkPartlyPushedError);
      expect(error.landed).to.deep.equal([0, 2]);
      expect(error.notLanded).to.deep.equal([1]);
      expect(error.message).to.match(/entries 0, 2 landed; entry 1 did not: WRONGTYPE/);
      // Laravel's bulk (one MULTI) leaves the same: the pushes ran, the ZADD did not.
      expect(await list(key())).to.deep.equal([job(1), job(3)]);
      expect(await list(key(':notify'))).to.deep.equal(['1', '1']);
    });

    it('bulkRaw leaves exactly the state of pushRaw and laterRaw run one by one', async () => {
      const entries = [job(1), job(2), { payload: job(3), delay: 10 }, job(4), { payload: job(5), delay: 0 }, job(1)];
      const one = open();
      for (const e of entries) {
        if (typeof e === 'string') await one.pushRaw(e);
        else await one.laterRaw(e.delay, e.payload);
      }
      const before = await dumpKeys(redis.client, redis.prefix);
      await redis.client.del(...Object.keys(before));
      await open().bulkRaw(entries);
      expect(await dumpKeys(redis.client, redis.prefix)).to.deep.equal(before);
      expect(await list(key())).to.deep.equal([job(1), job(2), job(4), job(1)]);
      expect(await list(key(':notify'))).to.deep.equal(['1', '1', '1', '1']);
    });
  });

  describe('options and connections', () => {
    it('with Redis unreachable, a command rejects with the error and ioredis prints no unhandled error events', async () => {
      const down = await freePort(); // nothing listens there
      const printed: string[] = [];
      const original = console.error;
      console.error = (...args: unknown[]) => void printed.push(args.map(String).join(' '));
      try {
        const q = new RedisQueue({ connection: { port: down, maxRetriesPerRequest: 0, retryStrategy: () => 50 } });
        const error = await q.size().catch((e: unknown) => e);
        await new Promise((r) => setTimeout(r, 200)); // a few reconnect attempts
        await q.close();
        expect(error).to.be.instanceOf(Error);
        expect(printed.filter((line) => /Unhandled error event/.test(line))).to.deep.equal([]);
      } finally {
        console.error = original;
      }
    });

    it('push and later land, in order, on a connection not connected yet and on one that auto-pipelines', async () => {
      for (const [name, extra] of [
        ['lazy', { lazyConnect: true }],
        ['auto', { enableAutoPipelining: true }],
      ] as const) {
        const q = open({ connection: { port: redis.port, host: '127.0.0.1', ...extra } });
        await Promise.all([q.pushRaw(job(1), name), q.laterRaw(5, job(2), name), q.pushRaw(job(3), name)]);
        expect(await list(`${redis.prefix}queues:${name}`), name).to.deep.equal([job(1), job(3)]);
        expect(await redis.client.zrange(`${redis.prefix}queues:${name}:delayed`, 0, '-1'), name).to.deep.equal([
          job(2),
        ]);
      }
    });

    it('rejects bad options, naming the option', () => {
      const bad: [RedisQueueOptions, string][] = [
        [{ retryAfter: -1 }, 'retryAfter'],
        [{ retryAfter: 1.5 }, 'retryAfter'],
        [{ blockFor: -1 }, 'blockFor'],
        [{ migrationBatchSize: 1.5 }, 'migrationBatchSize'],
        [{ laravel: 14 as 13 }, 'laravel'],
        [{ queue: '' }, 'queue'],
        [{ retry_after: 5 } as RedisQueueOptions, 'retry_after'],
        [{ connection: { keyPrefix: 'x:' } }, 'connection'],
      ];
      for (const [options, option] of bad) {
        expect(() => new RedisQueue({ connection: { lazyConnect: true }, ...options }), option)
          .to.throw(InvalidOptionError)
          .with.property('option', option);
      }
    });

    it('uses a redis.client the caller owns and leaves it open on close()', async () => {
      const own = rawClient(redis.port);
      const q = new RedisQueue({ connection: own, prefix: redis.prefix, clock, blockFor: 0.1 });
      await q.pushRaw(job(1));
      expect(await q.pop()).to.not.equal(null);
      expect(await q.pop()).to.equal(null); // blocked briefly on larq's own duplicate connection
      await q.close();
      expect(await own.ping()).to.equal('PONG');
      await own.quit();
    });

    it('bulkRaw of more payloads than one RPUSH carries keeps them all, in order, with a token each', async () => {
      const payloads = Array.from({ length: 2500 }, (_, i) => job(i));
      const ids = await open().bulkRaw(payloads);
      expect(ids).to.deep.equal(payloads.map((_, i) => `id${i}`));
      expect(await list(key())).to.deep.equal(payloads);
      expect(await redis.client.llen(key(':notify'))).to.equal(2500);
    });

    it('bulkRaw is one MULTI: all payloads land, ids come back in order', async () => {
      const q = open();
      expect(await q.bulkRaw([job(1), job(2), 'no id'])).to.deep.equal(['id1', 'id2', null]);
      expect(await list(key())).to.deep.equal([job(1), job(2), 'no id']);
      expect(await q.bulkRaw([])).to.deep.equal([]);
    });
  });
});
