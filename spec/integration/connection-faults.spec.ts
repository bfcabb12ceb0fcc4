// Queue writes against a real redis-server whose connections are cut while they are in flight (CLIENT
// KILL), whose scripts are flushed (SCRIPT FLUSH): a bulk call is all-or-nothing and leaves the
// connection usable, a delayed entry in a bulk never depends on a cached script, an awaited push lands
// at most once and says so when Redis never answered, and a pop never reserves a job that nobody was
// told about without saying so, nor loses the deletes it carried.
import { expect } from 'chai';
import type Redis from 'ioredis';
import { RedisQueue } from '../../lib/RedisQueue';
import type { RedisJob } from '../../lib/jobs/RedisJob';
import { commandCalls, randomPrefix, requireRedis } from '../support/redis';
import { ownRedis, type OwnRedis } from '../support/redisServer';

type Outcome = 'resolved' | 'unknown' | 'failed';

// Read by name, so that the spec runs (and fails for what it checks) on code that has no such class.
const outcomeOf = (e: unknown): Outcome => ((e as Error).name === 'UnconfirmedWriteError' ? 'unknown' : 'failed');

const payload = (call: number, i: number): string =>
  JSON.stringify({
    uuid: `c${call}-${i}`,
    displayName: 'App\\Jobs\\X',
    job: 'Illuminate\\Queue\\CallQueuedHandler@call',
    attempts: 0,
    data: { call, i },
  });

describe('queue writes under dropped connections (integration)', function () {
  this.timeout(120000);
  let server: OwnRedis;
  let admin: Redis;
  let prefix: string;
  const queues: RedisQueue[] = [];

  before(async function () {
    await requireRedis(this); // skips (locally) or fails (CI) without redis-server
    server = await ownRedis();
    admin = server.admin();
  });
  after(async () => {
    admin?.disconnect();
    await server?.stop();
  });
  beforeEach(() => (prefix = randomPrefix()));
  afterEach(async () => {
    await Promise.all(queues.splice(0).map((q) => q.close()));
  });

  function open(retryAfter = 600): RedisQueue {
    const q = new RedisQueue({ connection: { port: server.port, host: '127.0.0.1' }, prefix, laravel: 13, retryAfter });
    queues.push(q);
    return q;
  }

  // Kill every normal client connection (not admin's own) every `everyMs` until stopped.
  function killer(everyMs: number): { stop(): Promise<number>; readonly kills: number } {
    let kills = 0;
    let running = true;
    const loop = (async () => {
      while (running) {
        await new Promise((r) => setTimeout(r, everyMs));
        await admin.client('KILL', 'TYPE', 'NORMAL').then(
          () => kills++,
          () => undefined,
        );
      }
    })();
    return {
      async stop() {
        running = false;
        await loop;
        return kills;
      },
      get kills() {
        return kills;
      },
    };
  }

  // Settles within `ms`, or fails the spec: a promise left unsettled is a bug of its own.
  async function settled<T>(what: string, promise: Promise<T>, ms = 30000): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>(
      (_, reject) => (timer = setTimeout(() => reject(new Error(`${what} never settled`)), ms)),
    );
    try {
      return await Promise.race([promise, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  async function queued(key: string): Promise<Map<string, number>> {
    const counts = new Map<string, number>();
    for (const item of await admin.lrange(key, 0, -1)) counts.set(item, (counts.get(item) ?? 0) + 1);
    return counts;
  }

  it('bulk() is all-or-nothing when its connection is killed mid-call, and the connection stays usable', async () => {
    const q = open();
    const calls = 120;
    const size = 400;
    const outcomes: Outcome[] = [];
    const kills = killer(15);
    let next = 0;
    const caller = async () => {
      for (let call = next++; call < calls; call = next++) {
        const entries = Array.from({ length: size }, (_, i) => payload(call, i));
        outcomes[call] = await settled(
          `bulk call ${call}`,
          q.bulkRaw(entries).then(() => 'resolved' as const, outcomeOf),
        );
      }
    };
    await Promise.all([caller(), caller(), caller()]);
    const killed = await kills.stop();
    expect(killed, 'connections killed during the run').to.be.greaterThan(20);

    const counts = await queued(q.keys.forQueue('default').queue);
    const landed = (call: number) => Array.from({ length: size }, (_, i) => counts.get(payload(call, i)) ?? 0);
    const partial: string[] = [];
    for (let call = 0; call < calls; call++) {
      const got = landed(call);
      const total = got.reduce((a, b) => a + b, 0);
      if (got.some((n) => n > 1)) partial.push(`call ${call} (${outcomes[call]}): a payload landed twice`);
      else if (outcomes[call] === 'resolved' && total !== size)
        partial.push(`call ${call} resolved with ${total}/${size} landed`);
      else if (outcomes[call] === 'failed' && total !== 0)
        partial.push(`call ${call} rejected with ${total}/${size} landed`);
      else if (outcomes[call] === 'unknown' && total !== 0 && total !== size)
        partial.push(`call ${call} unknown with ${total}/${size} landed`);
    }
    expect(partial.slice(0, 5), `${partial.length} calls wrong`).to.deep.equal([]);
    // Every payload came with its notify token, as Laravel's push leaves them.
    expect(await admin.llen(q.keys.forQueue('default').notify)).to.equal(
      await admin.llen(q.keys.forQueue('default').queue),
    );

    // The connection is not left inside a MULTI or out of step: a push and a pop on it answer correctly.
    await q.pushRaw(payload(999, 0), 'after');
    const job = await q.pop('after');
    expect(job?.getRawBody()).to.equal(payload(999, 0));
    console.log(
      `      bulk: ${killed} kills, ${outcomes.filter((o) => o === 'resolved').length} resolved, ${outcomes.filter((o) => o === 'unknown').length} unknown, ${outcomes.filter((o) => o === 'failed').length} failed`,
    );
  });

  it('a delayed entry in a bulk is a plain ZADD: SCRIPT FLUSH never fails a bulk or commits part of it', async () => {
    const q = open();
    const keys = q.keys.forQueue('default');
    const evalshaBefore = await commandCalls(admin, 'evalsha');
    for (let round = 0; round < 3; round++) {
      await admin.script('FLUSH');
      await q.bulkRaw([payload(round, 0), { payload: payload(round, 1), delay: 60 }, payload(round, 2)]);
    }
    expect(await admin.llen(keys.queue)).to.equal(6);
    expect(await admin.zcard(keys.delayed)).to.equal(3);
    expect(await admin.llen(keys.notify)).to.equal(6);
    expect(await commandCalls(admin, 'evalsha'), 'EVALSHA sent by bulk').to.equal(evalshaBefore);
  });

  it('an awaited push lands at most once, and once for sure when it resolved; none is left unsettled', async () => {
    const q = open();
    const loops = 25;
    const perLoop = 160;
    const outcomes = new Map<string, Outcome>();
    const kills = killer(20);
    await Promise.all(
      Array.from({ length: loops }, async (_, loop) => {
        // At least perLoop pushes each, and on until the connections were killed often enough: a fast
        // machine must not finish before the faults have had their turn.
        for (let i = 0; i < perLoop || (kills.kills <= 20 && i < 20 * perLoop); i++) {
          const p = payload(loop, i);
          outcomes.set(
            p,
            await settled(
              `push ${loop}/${i}`,
              q.pushRaw(p).then(() => 'resolved' as const, outcomeOf),
            ),
          );
        }
      }),
    );
    const killed = await kills.stop();
    expect(killed).to.be.greaterThan(20);
    const counts = await queued(q.keys.forQueue('default').queue);
    const wrong: string[] = [];
    for (const [p, outcome] of outcomes) {
      const n = counts.get(p) ?? 0;
      if (n > 1) wrong.push(`${p}: ${outcome}, landed ${n} times`);
      else if (outcome === 'resolved' && n !== 1) wrong.push(`${p}: resolved, landed ${n} times`);
      else if (outcome === 'failed' && n !== 0) wrong.push(`${p}: rejected, landed ${n} times`);
    }
    expect(wrong.slice(0, 5), `${wrong.length} pushes wrong`).to.deep.equal([]);
    const tally = (o: Outcome) => [...outcomes.values()].filter((x) => x === o).length;
    console.log(
      `      push: ${killed} kills, ${tally('resolved')} resolved, ${tally('unknown')} unknown, ${tally('failed')} failed`,
    );
  });

  // Push `total` jobs onto the default queue, through a queue of its own.
  async function fill(total: number): Promise<void> {
    const pusher = open();
    for (let from = 0; from < total; from += 500)
      await pusher.bulkRaw(Array.from({ length: 500 }, (_, i) => payload(0, from + i)));
  }

  it('a pop whose reply was lost is reported, never a reservation silently kept from its caller', async () => {
    const q = open();
    const total = 3000;
    await fill(total);
    const returned = new Map<string, number>();
    let unknownPops = 0;
    let failedPops = 0;
    const kills = killer(10); // 3,000 jobs drain in a few hundred ms: kill often enough to land more than 10 times
    let empty = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (empty < 8) {
          try {
            const jobs = await settled(
              'popMany',
              q.popMany('default', 1, 10, () => undefined),
            );
            if (jobs.length === 0) empty++;
            for (const job of jobs) {
              const uuid = (JSON.parse(job.getRawBody()) as { uuid: string }).uuid;
              returned.set(uuid, (returned.get(uuid) ?? 0) + 1);
            }
          } catch (e) {
            if (outcomeOf(e) === 'unknown') unknownPops++;
            else failedPops++;
          }
        }
      }),
    );
    const killed = await kills.stop();
    expect(killed).to.be.greaterThan(10);
    const reserved = (await admin.zrange(q.keys.forQueue('default').reserved, 0, '-1')).map(
      (member) => (JSON.parse(member) as { uuid: string }).uuid,
    );
    const orphans = reserved.filter((p) => !returned.has(p));
    expect(
      [...returned.values()].filter((n) => n > 1),
      'jobs handed out twice',
    ).to.deep.equal([]);
    expect(returned.size + orphans.length, 'every job reserved').to.equal(total);
    // Each orphan belongs to a pop whose caller was told its reply was lost (at most 10 jobs per pop).
    expect(
      orphans.length,
      `${orphans.length} reservations nobody was told about (${unknownPops} pops reported lost)`,
    ).to.be.at.most(unknownPops * 10);
    console.log(
      `      pop: ${killed} kills, ${returned.size} returned, ${orphans.length} reserved by ${unknownPops} lost pops, ${failedPops} failed pops`,
    );
  });

  it('the finished jobs a lost pop carried are removed all the same: every delete settles, none stays reserved', async () => {
    const q = open();
    await fill(3000);
    const uuidOf = (job: RedisJob) => (JSON.parse(job.getRawBody()) as { uuid: string }).uuid;
    const deleted = new Set<string>();
    const deletes: Promise<unknown>[] = [];
    let lostCarrying = 0;
    const kills = killer(10);
    let empty = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        let finished: RedisJob[] = [];
        while (empty < 8) {
          // The jobs of the last batch finish in the tick of the next pop: their ZREMs ride in its script.
          for (const job of finished) {
            deleted.add(uuidOf(job));
            deletes.push(settled('a delete', job.delete()));
          }
          const carried = finished.length > 0;
          finished = [];
          try {
            finished = await settled(
              'popMany',
              q.popMany('default', 1, 10, () => undefined),
            );
            if (finished.length === 0) empty++;
          } catch (e) {
            if (outcomeOf(e) === 'unknown' && carried) lostCarrying++;
          }
        }
      }),
    );
    const killed = await kills.stop();
    expect(killed).to.be.greaterThan(10);
    expect(lostCarrying, 'pops whose reply was lost while they carried deletes').to.be.greaterThan(0);
    // Whether the lost script ran or not, each delete it carried was sent again and resolved.
    const outcomes = await Promise.allSettled(deletes);
    expect(outcomes.filter((o) => o.status === 'rejected')).to.deep.equal([]);
    const reserved = (await admin.zrange(q.keys.forQueue('default').reserved, 0, '-1')).map(
      (member) => (JSON.parse(member) as { uuid: string }).uuid,
    );
    expect(
      reserved.filter((uuid) => deleted.has(uuid)),
      'jobs deleted but still reserved',
    ).to.deep.equal([]);
    console.log(`      acks: ${killed} kills, ${deleted.size} deleted, ${lostCarrying} lost pops carrying deletes`);
  });
});
