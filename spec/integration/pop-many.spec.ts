// RedisQueue.popMany, the worker's batched pop, and the batched acknowledgements, against a real
// redis-server. The promise they keep: Redis ends in exactly the state that the same number of single
// pops (Laravel's script, run back to back) and single ZREMs would leave.
import { expect } from 'chai';
import type Redis from 'ioredis';
import { FakeClock } from '../../lib/clock';
import { InvalidOptionError, InvalidPayloadError } from '../../lib/errors';
import type { RedisJob } from '../../lib/jobs/RedisJob';
import { RedisQueue, type RedisQueueOptions } from '../../lib/RedisQueue';
import { commandCalls, countingRelay, dumpKeys, monitorCaughtUp, randomPrefix, rawClient } from '../support/redis';
import { useRedisQueue } from '../support/useRedisQueue';
import { quarantinedPayloads } from '../support/quarantine';

const NOW = 1795276770;
const job = (n: number, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    uuid: `u${n}`,
    displayName: `Job${n}`,
    job: 'x@y',
    data: { n, text: 'é/\u2028' },
    id: `id${n}`,
    attempts: 0,
    ...extra,
  });

describe('RedisQueue.popMany (integration)', function () {
  const redis = useRedisQueue(() => ({ clock: new FakeClock(NOW * 1000), retryAfter: 90 }));
  let port: number;
  let client: Redis;
  before(() => {
    ({ port, client } = redis);
  });

  const open = (prefix: string, options: RedisQueueOptions = {}): RedisQueue => redis.open({ prefix, ...options });

  // The same mixed state under two prefixes: waiting jobs, a due delayed one, an expired reservation,
  // a delayed job not yet due, and a reservation still running.
  async function seed(prefix: string): Promise<void> {
    const k = `${prefix}queues:default`;
    for (const n of [1, 2, 3, 4])
      await client.eval(
        "redis.call('rpush', KEYS[1], ARGV[1]); redis.call('rpush', KEYS[2], 1)",
        2,
        k,
        `${k}:notify`,
        job(n),
      );
    await client.zadd(`${k}:delayed`, NOW - 1, job(5), NOW + 60, job(6));
    await client.zadd(`${k}:reserved`, NOW - 2, job(7, { attempts: 2 }), NOW + 30, job(8, { attempts: 1 }));
  }

  const strip = (dump: Record<string, unknown>, prefix: string) =>
    Object.fromEntries(Object.entries(dump).map(([k, v]) => [k.slice(prefix.length), v]));
  const strings = (jobs: (RedisJob | null)[]) =>
    jobs.map((j) => j && [j.getRawBody(), j.getReservedJob(), j.attempts()]);

  it('leaves Redis as the same number of single pops would, and returns the same jobs in the same order', async () => {
    const [a, b] = [randomPrefix(), randomPrefix()];
    await seed(a);
    await seed(b);
    const singles: (RedisJob | null)[] = [];
    const qa = open(a);
    for (let i = 0; i < 4; i++) singles.push(await qa.pop());
    const errors: Error[] = [];
    const batch = await open(b).popMany('default', 0, 4, (e) => errors.push(e));
    expect(errors).to.deep.equal([]);
    expect(strings(batch)).to.deep.equal(strings(singles));
    expect(strip(await dumpKeys(client, b), b)).to.deep.equal(strip(await dumpKeys(client, a), a));
    // the migrations ran first: the due delayed job and the expired reservation were taken after the list
    expect(batch.map((j) => j.getJobId())).to.deep.equal(['id1', 'id2', 'id3', 'id4']);
    expect(await client.llen(`${b}queues:default`)).to.equal(2);
  });

  it('takes fewer than asked when the list runs dry, and the state equals popping it empty one by one', async () => {
    const [a, b] = [randomPrefix(), randomPrefix()];
    await seed(a);
    await seed(b);
    const qa = open(a);
    const singles: (RedisJob | null)[] = [];
    for (let j = await qa.pop(); j !== null; j = await qa.pop()) singles.push(j);
    const batch = await open(b).popMany('default', 0, 50, () => undefined);
    expect(batch).to.have.length(6);
    expect(strings(batch)).to.deep.equal(strings(singles));
    expect(strip(await dumpKeys(client, b), b)).to.deep.equal(strip(await dumpKeys(client, a), a));
  });

  it('returns [] for an empty queue without blocking when blockFor is unset', async () => {
    const p = randomPrefix();
    expect(await open(p).popMany('default', 0, 10, () => undefined)).to.deep.equal([]);
    expect(await dumpKeys(client, p)).to.deep.equal({});
  });

  it('quarantines an undecodable payload mid-batch and still returns the jobs around it', async () => {
    const p = randomPrefix();
    const k = `${p}queues:default`;
    await client.rpush(k, job(1), 'not json', job(2, { attempts: 'x' }), job(3));
    await client.rpush(`${k}:notify`, 1, 1, 1, 1);
    const errors: Error[] = [];
    const jobs = await open(p).popMany('default', 0, 10, (e) => errors.push(e));
    expect(jobs.map((j) => j.getJobId())).to.deep.equal(['id1', 'id3']);
    expect(errors).to.have.length(2);
    expect(errors[0]).to.be.instanceOf(InvalidPayloadError);
    expect(errors[0].message).to.contain(`${k}:larq:invalid`);
    expect(await quarantinedPayloads(client, `${k}:larq:invalid`)).to.deep.equal([
      'not json',
      job(2, { attempts: 'x' }),
    ]);
    expect(await client.llen(`${k}:notify`)).to.equal(0);
    expect(await client.zcard(`${k}:reserved`)).to.equal(2);
  });

  it('with only undecodable payloads, throws the first error and passes the others to onError', async () => {
    const p = randomPrefix();
    await client.rpush(`${p}queues:default`, '{one', '{two', '{three');
    const onError: Error[] = [];
    const thrown = await open(p)
      .popMany('default', 0, 5, (e) => onError.push(e))
      .catch((e: unknown) => e);
    expect(thrown).to.be.instanceOf(InvalidPayloadError);
    expect((thrown as InvalidPayloadError).message).to.contain(`${p}queues:default:larq:invalid`);
    expect(onError.map((e) => e.constructor.name)).to.deep.equal(['InvalidPayloadError', 'InvalidPayloadError']);
    expect(await quarantinedPayloads(client, `${p}queues:default:larq:invalid`)).to.deep.equal([
      '{one',
      '{two',
      '{three',
    ]);
  });

  it('throws the error when nothing but an undecodable payload was found', async () => {
    const p = randomPrefix();
    await client.rpush(`${p}queues:default`, '{broken');
    const onError: Error[] = [];
    const thrown = await open(p)
      .popMany('default', 0, 5, (e) => onError.push(e))
      .catch((e: unknown) => e);
    expect(thrown).to.be.instanceOf(InvalidPayloadError);
    expect(onError).to.deep.equal([]);
    expect(await client.lrange(`${p}queues:larq:invalid`, 0, -1)).to.deep.equal([]);
    expect(await quarantinedPayloads(client, `${p}queues:default:larq:invalid`)).to.deep.equal(['{broken']);
  });

  it('with blockFor, waits on the notify list when the queue is empty and takes what is pushed', async () => {
    const p = randomPrefix();
    const q = open(p, { blockFor: 2 });
    const pusher = open(p);
    const popping = q.popMany('default', 0, 10, () => undefined);
    await new Promise((r) => setTimeout(r, 50));
    await pusher.pushRaw(job(1));
    const jobs = await popping;
    expect(jobs.map((j) => j.getJobId())).to.deep.equal(['id1']);
    expect(await client.zcard(`${p}queues:default:reserved`)).to.equal(1);
  });

  it('woken by a push, takes the job without asking Redis again: the pop went out behind the BLPOP', async () => {
    const p = randomPrefix();
    const relay = await countingRelay(port);
    const q = new RedisQueue({
      connection: { host: '127.0.0.1', port: relay.port },
      prefix: p,
      clock: new FakeClock(NOW * 1000),
      retryAfter: 90,
      blockFor: 2,
    });
    try {
      const popping = q.popMany('default', 0, 10, () => undefined);
      await new Promise((r) => setTimeout(r, 200));
      const before = relay.sent();
      await open(p).pushRaw(job(1));
      expect((await popping).map((j) => j.getJobId())).to.deep.equal(['id1']);
      expect(relay.sent() - before, 'bytes larq sent after the push').to.equal(0);
    } finally {
      await q.close();
      await relay.close();
    }
  });

  it('two pops waiting on an empty queue share one BLPOP, and the job pushed goes to exactly one of them', async () => {
    const p = randomPrefix();
    const q = open(p, { blockFor: 2 });
    const blpops = () => commandCalls(client, 'blpop');
    const before = await blpops();
    const popping = [q.popMany('default', 0, 5, () => undefined), q.popMany('default', 0, 5, () => undefined)];
    await new Promise((r) => setTimeout(r, 50));
    await open(p).pushRaw(job(1));
    const [a, b] = await Promise.all(popping);
    expect([...a, ...b].map((j) => j.getJobId())).to.deep.equal(['id1']);
    expect((await blpops()) - before).to.equal(1);
  });

  it('a payload whose bytes are not UTF-8 still leaves the reserved set when deleted or released, by pop and by popMany', async () => {
    // Laravel never writes such a payload, but another producer may: the reservation must still go, or
    // the job comes back after retry_after for ever. A reserved string decoded to text would have its
    // stray byte replaced, and its ZREM would remove nothing.
    const p = randomPrefix();
    const q = open(p);
    const k = `${p}queues:default`;
    const bad = (n: number) =>
      Buffer.concat([
        Buffer.from(`{"uuid":"u${n}","displayName":"Bad","job":"x@y","data":"`),
        Buffer.from([0xff, 0xfe]),
        Buffer.from(`","id":"id${n}","attempts":0}`),
      ]);
    for (const n of [1, 2, 3]) await client.rpush(k, bad(n));
    const single = await q.pop();
    const [deleted, released] = await q.popMany('default', 0, 2, () => undefined);
    expect([single, deleted, released].map((j) => j?.getJobId())).to.deep.equal(['id1', 'id2', 'id3']);
    await single!.delete();
    await deleted.delete();
    await released.release(30);
    expect(await client.zcard(`${k}:reserved`)).to.equal(0);
    const [member] = await client.zrangeBuffer(`${k}:delayed`, 0, '-1');
    expect(member.includes(Buffer.from([0xff, 0xfe])), 'the released job keeps its bytes').to.equal(true);
  });

  // The batch script issues each command once per batch (see lib/redis/lua/popBatch-4.lua); these hold it
  // to the state single pops leave where a batch could differ: repeated payloads, too few notify tokens,
  // undecodable payloads among good ones, and batches longer than one command's argument slice.
  describe('the same state as single pops, where a batch could differ', () => {
    async function singlesVersusBatch(fill: (key: string) => Promise<void>, count: number): Promise<void> {
      const [a, b] = [randomPrefix(), randomPrefix()];
      await fill(`${a}queues:default`);
      await fill(`${b}queues:default`);
      const qa = open(a);
      const singles: (RedisJob | null)[] = [];
      for (let i = 0; i < count; i++) {
        const popped = await qa
          .pop()
          .catch((e: unknown) => (e instanceof InvalidPayloadError ? 'quarantined' : Promise.reject(e)));
        if (popped === null) break;
        if (popped !== 'quarantined') singles.push(popped);
      }
      const batch = await open(b).popMany('default', 0, count, () => undefined);
      expect(strings(batch)).to.deep.equal(strings(singles));
      expect(strip(await dumpKeys(client, b), b)).to.deep.equal(strip(await dumpKeys(client, a), a));
    }

    it('the same payload twice in one batch: one member in the reserved set, as after two pops', async () => {
      await singlesVersusBatch(async (k) => {
        await client.rpush(k, job(1), job(1), job(2), job(1));
        await client.rpush(`${k}:notify`, 1, 1, 1, 1);
      }, 4);
    });

    it('fewer notify tokens than jobs, and more', async () => {
      await singlesVersusBatch(async (k) => {
        await client.rpush(k, job(1), job(2), job(3));
        await client.rpush(`${k}:notify`, 1);
      }, 3);
      await singlesVersusBatch(async (k) => {
        await client.rpush(k, job(1), job(2));
        await client.rpush(`${k}:notify`, 1, 1, 1, 1, 1);
      }, 5);
    });

    it('undecodable payloads between good ones, with jobs left in the list after the batch', async () => {
      await singlesVersusBatch(async (k) => {
        await client.rpush(k, 'not json', job(1), '{"attempts":"x"}', job(2), '[1]', job(3), job(4));
        await client.rpush(`${k}:notify`, 1, 1, 1, 1, 1, 1, 1);
      }, 6);
    });

    it('2,500 jobs in one batch, some undecodable: longer than one command takes in a slice', async function () {
      this.timeout(20000);
      await singlesVersusBatch(async (k) => {
        const payloads = Array.from({ length: 2600 }, (_, i) => (i % 997 === 5 ? `broken ${i}` : job(i)));
        await client.rpush(k, ...payloads);
        await client.rpush(`${k}:notify`, ...payloads.map(() => 1));
      }, 2500);
    });
  });

  it('a batch costs Redis one LRANGE, one ZADD and two LTRIMs whatever its size, and no LPOP per job', async () => {
    const p = randomPrefix();
    const k = `${p}queues:default`;
    await client.rpush(k, ...Array.from({ length: 30 }, (_, i) => job(i)));
    await client.rpush(`${k}:notify`, ...Array.from({ length: 30 }, () => 1));
    const q = open(p);
    await q.size(); // connected, so the stats below count the pop alone
    await client.config('RESETSTAT');
    expect(await q.popMany('default', 0, 25, () => undefined)).to.have.length(25);
    const calls = (command: string) => commandCalls(client, command);
    expect({
      lpop: await calls('lpop'),
      lrange: await calls('lrange'),
      ltrim: await calls('ltrim'),
      zadd: await calls('zadd'),
    }).to.deep.equal({ lpop: 0, lrange: 1, ltrim: 2, zadd: 1 });
    expect(await client.llen(k)).to.equal(5);
    expect(await client.zcard(`${k}:reserved`)).to.equal(25);
  });

  it('refuses a count that is not a positive integer', async () => {
    const q = open(randomPrefix());
    for (const bad of [0, -1, 1.5, NaN]) {
      const thrown = await q.popMany('default', 0, bad, () => undefined).catch((e: unknown) => e);
      expect(thrown, String(bad)).to.be.instanceOf(InvalidOptionError);
    }
  });

  describe('batched acknowledgements', () => {
    const zremCalls = () => commandCalls(client, 'zrem');

    it('deletes made in the same tick go out as one ZREM and leave exactly the other reservations', async () => {
      const p = randomPrefix();
      const q = open(p);
      for (const n of [1, 2, 3, 4, 5]) await q.pushRaw(job(n));
      const jobs = await q.popMany('default', 0, 5, () => undefined);
      const before = await zremCalls();
      await Promise.all([jobs[0].delete(), jobs[2].delete(), jobs[4].delete()]);
      expect((await zremCalls()) - before).to.equal(1);
      expect(await client.zrange(`${p}queues:default:reserved`, 0, '-1')).to.have.members([
        jobs[1].getReservedJob(),
        jobs[3].getReservedJob(),
      ]);
      await jobs[1].delete();
      await jobs[3].delete();
      expect(await dumpKeys(client, p)).to.deep.equal({});
    });

    it('a delete and a release of different jobs in one tick leave what Laravel would', async () => {
      const p = randomPrefix();
      const q = open(p);
      for (const n of [1, 2]) await q.pushRaw(job(n));
      const [one, two] = await q.popMany('default', 0, 2, () => undefined);
      await Promise.all([one.delete(), two.release(5)]);
      expect(await dumpKeys(client, p)).to.deep.equal({
        [`${p}queues:default:delayed`]: { type: 'zset', items: [{ member: two.getReservedJob(), score: NOW + 5 }] },
      });
    });

    it('acknowledgements still gathered ride in the next popMany, ahead of its pop, and settle with its replies', async () => {
      const p = randomPrefix();
      const q = open(p);
      for (const n of [1, 2, 3, 4]) await q.pushRaw(job(n));
      const first = await q.popMany('default', 0, 2, () => undefined);
      const monitor = await rawClient(port).monitor();
      const seen: string[] = [];
      monitor.on('monitor', (_time: string, args: string[], source: string) => {
        if (args.some((a) => a.startsWith(p))) seen.push(`${source === 'lua' ? 'lua ' : ''}${args[0].toLowerCase()}`);
      });
      const before = await zremCalls();
      // popMany is called in the same tick as the deletes, before their own flush would run
      const deleting = Promise.all(first.map((j) => j.delete()));
      const second = await q.popMany('default', 0, 2, () => undefined);
      await deleting;
      await monitorCaughtUp(monitor, client);
      monitor.disconnect();
      expect((await zremCalls()) - before).to.equal(1);
      // One script call: in it, Redis removed the finished reservations before it reserved the next jobs
      expect(seen.filter((c) => /^(eval|evalsha|zrem|zadd)$/.test(c.replace(/^lua /, '')))).to.deep.equal([
        seen.includes('evalsha') ? 'evalsha' : 'eval',
        'lua zrem',
        'lua zadd',
      ]);
      expect(second.map((j) => j.getJobId())).to.deep.equal(['id3', 'id4']);
      expect(await client.zrange(`${p}queues:default:reserved`, 0, '-1')).to.have.members(
        second.map((j) => j.getReservedJob()),
      );
    });

    it("a popMany carries only its own queue's acknowledgements (one cluster slot); others go out on their own", async () => {
      const p = randomPrefix();
      const q = open(p);
      await q.pushRaw(job(1), 'other');
      await q.pushRaw(job(2));
      const [fromOther] = await q.popMany('other', 0, 1, () => undefined);
      const monitor = await rawClient(port).monitor();
      const seen: string[] = [];
      monitor.on('monitor', (_time: string, args: string[]) => {
        if (args.some((a) => a.startsWith(p))) seen.push(`${args[0].toLowerCase()} ${args[1]}`);
      });
      const deleting = fromOther.delete();
      const popped = await q.popMany('default', 0, 1, () => undefined);
      await deleting;
      await monitorCaughtUp(monitor, client);
      monitor.disconnect();
      expect(popped.map((j) => j.getJobId())).to.deep.equal(['id2']);
      const zrem = seen.indexOf(`zrem ${p}queues:other:reserved`);
      expect(zrem, 'the other queue was acknowledged').to.be.greaterThan(-1);
      // it went out after this pop's pipeline, not inside it
      expect(seen.findIndex((c) => /^eval(sha)? /.test(c))).to.be.lessThan(zrem);
      expect(await client.zcard(`${p}queues:other:reserved`)).to.equal(0);
    });

    it('acknowledgements gathered when the connection is gone reject with its error', async () => {
      const p = randomPrefix();
      const q = open(p);
      await q.pushRaw(job(1));
      const [only] = await q.popMany('default', 0, 1, () => undefined);
      const deleting = only.delete().catch((e: unknown) => e);
      // the connection is cut: both the pop and the acknowledgement gathered for it fail
      const client = (q as unknown as { client: Redis }).client;
      client.disconnect();
      const popped = await q.popMany('default', 0, 1, () => undefined).catch((e: unknown) => e);
      expect(popped).to.be.instanceOf(Error);
      expect(await deleting).to.be.instanceOf(Error);
    });

    it('a migration that fails costs only itself: the error reaches onError, the acknowledgements and the pop still run', async () => {
      const p = randomPrefix();
      const q = open(p);
      for (const n of [1, 2]) await q.pushRaw(job(n));
      const [first] = await q.popMany('default', 0, 1, () => undefined);
      await client.set(`${p}queues:default:delayed`, 'not a sorted set');
      const errors: Error[] = [];
      const deleting = first.delete();
      const second = await q.popMany('default', 0, 1, (e) => errors.push(e));
      await deleting;
      expect(errors.map((e) => e.message)).to.deep.equal([
        'queue "default": migration failed: WRONGTYPE Operation against a key holding the wrong kind of value',
      ]);
      expect(second.map((j) => j.getJobId())).to.deep.equal(['id2']);
      expect(await client.zrange(`${p}queues:default:reserved`, 0, '-1')).to.deep.equal([second[0].getReservedJob()]);
    });

    it('close() sends acknowledgements still gathered', async () => {
      const p = randomPrefix();
      const q = open(p);
      await q.pushRaw(job(1));
      const [only] = await q.popMany('default', 0, 1, () => undefined);
      const deleting = only.delete();
      await q.close();
      await deleting;
      expect(await client.zcard(`${p}queues:default:reserved`)).to.equal(0);
    });
  });
});
