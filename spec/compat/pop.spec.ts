// larq's pop against every recorded Laravel fixture: same returned strings, byte-identical reserved copy
// (Redis' own cjson does the re-encoding), same Redis state afterwards; then delete and release(5).
import { expect } from 'chai';
import type Redis from 'ioredis';
import { FakeClock } from '../../lib/clock';
import { RedisQueue } from '../../lib/RedisQueue';
import type { LaravelLine } from '../../lib/redis/keys';
import { FIXTURE_NOW, FIXTURE_RETRY_AFTER, loadFixtures, type Fixture, type RedisDump } from '../support/fixtures';
import { dumpKeys } from '../support/redis';
import { useRedisQueue } from '../support/useRedisQueue';

// The fixtures' keys, moved under a test's own prefix so tests never share keys.
function rename(dump: RedisDump, from: string, to: string): RedisDump {
  return Object.fromEntries(Object.entries(dump).map(([k, v]) => [to + k.slice(from.length), v]));
}

async function load(client: Redis, dump: RedisDump): Promise<void> {
  for (const [key, entry] of Object.entries(dump)) {
    if (entry.type === 'list') await client.rpush(key, ...(entry.items as string[]));
    else if (entry.type === 'zset') {
      for (const { member, score } of entry.items as { member: string; score: number }[])
        await client.zadd(key, score, member);
    } else throw new Error(`fixture key ${key} has unexpected type ${entry.type}`);
  }
}

// The bare queue name of a fixture: `emails` from `<prefix>queues:emails:delayed`.
function queueName(f: Fixture): string {
  const key = Object.keys(f.written)[0].slice(f.prefix.length);
  return key.replace(/^queues:/, '').replace(/:(delayed|reserved|notify)$/, '');
}

function lineOf(f: Fixture): LaravelLine {
  return Number(f.version.split('.')[0]) as LaravelLine;
}

describe('compat: pop matches Laravel on every fixture', function () {
  const redis = useRedisQueue(() => ({
    retryAfter: FIXTURE_RETRY_AFTER,
    clock: new FakeClock(FIXTURE_NOW * 1000),
  }));
  const open = (f: Fixture): RedisQueue => redis.open({ laravel: lineOf(f) });

  for (const f of loadFixtures()) {
    describe(`${f.version}/${f.name}`, () => {
      it('returns the raw and reserved strings and leaves the recorded state', async () => {
        const q = open(f);
        await load(redis.client, rename(f.written, f.prefix, redis.prefix));
        const job = await q.pop(queueName(f));
        if (f.popped === null) {
          expect(job).to.equal(null);
          expect(await dumpKeys(redis.client, redis.prefix)).to.deep.equal(rename(f.written, f.prefix, redis.prefix));
          return;
        }
        expect(job).to.not.equal(null);
        expect(job!.getRawBody()).to.equal(f.popped.raw);
        expect(Buffer.from(job!.getReservedJob(), 'utf8').equals(Buffer.from(f.popped.reserved, 'utf8'))).to.equal(
          true,
        );
        expect(job!.getReservedJob()).to.equal(f.popped.reserved);
        expect(job!.attempts()).to.equal(f.popped.attempts);
        expect(job!.getQueue()).to.equal(queueName(f));
        expect(job!.getConnectionName()).to.equal('redis');
        expect(await dumpKeys(redis.client, redis.prefix)).to.deep.equal(
          rename(f.popped.after, f.prefix, redis.prefix),
        );
      });

      it('popMany, the batched pop of the worker, returns the same strings and leaves the same state', async () => {
        const q = open(f);
        await load(redis.client, rename(f.written, f.prefix, redis.prefix));
        const jobs = await q.popMany(queueName(f), 0, 1, (e) => {
          throw e;
        });
        if (f.popped === null) {
          expect(jobs).to.deep.equal([]);
          expect(await dumpKeys(redis.client, redis.prefix)).to.deep.equal(rename(f.written, f.prefix, redis.prefix));
          return;
        }
        expect(jobs.map((j) => [j.getRawBody(), j.getReservedJob(), j.attempts()])).to.deep.equal([
          [f.popped.raw, f.popped.reserved, f.popped.attempts],
        ]);
        expect(await dumpKeys(redis.client, redis.prefix)).to.deep.equal(
          rename(f.popped.after, f.prefix, redis.prefix),
        );
      });

      if (f.popped === null) return;
      const popped = f.popped;

      it('delete() removes the reservation and nothing else', async () => {
        const q = open(f);
        await load(redis.client, rename(f.written, f.prefix, redis.prefix));
        const job = (await q.pop(queueName(f)))!;
        await job.delete();
        expect(job.isDeleted()).to.equal(true);
        const expected = rename(popped.after, f.prefix, redis.prefix);
        delete expected[`${redis.prefix}queues:${queueName(f)}:reserved`];
        expect(await dumpKeys(redis.client, redis.prefix)).to.deep.equal(expected);
        if (f.name !== 'bulk') expect(await dumpKeys(redis.client, redis.prefix)).to.deep.equal({});
      });

      it('release(5) puts the reserved string in :delayed at now + 5', async () => {
        const q = open(f);
        await load(redis.client, rename(f.written, f.prefix, redis.prefix));
        const job = (await q.pop(queueName(f)))!;
        await job.release(5);
        expect(job.isReleased()).to.equal(true);
        const key = `${redis.prefix}queues:${queueName(f)}`;
        const expected = rename(popped.after, f.prefix, redis.prefix);
        delete expected[`${key}:reserved`];
        expected[`${key}:delayed`] = { type: 'zset', items: [{ member: popped.reserved, score: FIXTURE_NOW + 5 }] };
        expect(await dumpKeys(redis.client, redis.prefix)).to.deep.equal(expected);
      });
    });
  }
});
