// larq's pushRaw / laterRaw / bulkRaw with each fixture's payload strings must leave exactly the Redis
// state Laravel wrote at dispatch.
import { expect } from 'chai';
import { FakeClock } from '../../lib/clock';
import { RedisQueue } from '../../lib/RedisQueue';
import { FIXTURE_NOW, loadFixtures, pushedPayloads, type Fixture, type RedisDump } from '../support/fixtures';
import { dumpKeys } from '../support/redis';
import { useRedisQueue } from '../support/useRedisQueue';

function rename(dump: RedisDump, from: string, to: string): RedisDump {
  return Object.fromEntries(Object.entries(dump).map(([k, v]) => [to + k.slice(from.length), v]));
}

// The bare queue name and whether the fixture's job was delayed (it then sits in `:delayed` only).
function target(f: Fixture): { name: string; delayed: boolean } {
  const key = Object.keys(f.written)[0].slice(f.prefix.length);
  return {
    name: key.replace(/^queues:/, '').replace(/:(delayed|reserved|notify)$/, ''),
    delayed: key.endsWith(':delayed'),
  };
}

function idOf(payload: string): string | null {
  return (JSON.parse(payload) as { id?: string }).id ?? null;
}

describe('compat: pushes write what Laravel wrote', function () {
  const redis = useRedisQueue(() => ({ clock: new FakeClock(FIXTURE_NOW * 1000) }));
  const open = (): RedisQueue => redis.open();

  for (const f of loadFixtures()) {
    const { name, delayed } = target(f);
    const payloads = pushedPayloads(f);

    it(`${f.version}/${f.name}: ${delayed ? 'laterRaw(120)' : f.name === 'bulk' ? 'bulkRaw' : 'pushRaw'}`, async () => {
      const q = open();
      let ids: (string | null)[];
      if (delayed) ids = [await q.laterRaw(120, payloads[0], name)];
      else if (f.name === 'bulk') ids = await q.bulkRaw(payloads, name);
      else ids = [await q.pushRaw(payloads[0], name)];
      expect(ids).to.deep.equal(payloads.map(idOf));
      expect(await dumpKeys(redis.client, redis.prefix)).to.deep.equal(rename(f.written, f.prefix, redis.prefix));
    });

    if (!delayed) {
      it(`${f.version}/${f.name}: pushRaw one by one equals bulkRaw`, async () => {
        const q = open();
        for (const p of payloads) await q.pushRaw(p, name);
        expect(await dumpKeys(redis.client, redis.prefix)).to.deep.equal(rename(f.written, f.prefix, redis.prefix));
      });
    } else {
      it(`${f.version}/${f.name}: laterRaw with a Date gives the same score`, async () => {
        const q = open();
        await q.laterRaw(new Date((FIXTURE_NOW + 120) * 1000), payloads[0], name);
        expect(await dumpKeys(redis.client, redis.prefix)).to.deep.equal(rename(f.written, f.prefix, redis.prefix));
      });
    }
  }
});
