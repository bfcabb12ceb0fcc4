// The benchmark's ceiling row (scripts/bench-ceiling.ts) claims to make the state changes a Laravel worker
// makes per job, only faster. Against a real redis-server: its reservations leave Redis as Laravel's pop
// script (larq's pop) leaves it, byte for byte for the scripted ways and equal as JSON for the plain one,
// and a full run takes every job and leaves nothing behind.
import { expect } from 'chai';
import { FakeClock } from '../../lib/clock';
import { ceilingSearchSpace, drainAtCeiling, type CeilingConfig, type CeilingKeys } from '../../scripts/bench-ceiling';
import { dumpKeys, randomPrefix } from '../support/redis';
import { useRedisQueue } from '../support/useRedisQueue';

const NOW = 1795276770;
const payload = (n: number) =>
  JSON.stringify({
    uuid: `u${n}`,
    displayName: `Job${n}`,
    job: 'Illuminate\\Queue\\CallQueuedHandler@call',
    data: { n, text: 'é/\u2028' },
    id: `id${n}`,
    attempts: n % 3,
  });

describe('the benchmark ceiling (integration)', function () {
  this.timeout(30000);
  const redis = useRedisQueue();

  const keysOf = (prefix: string): CeilingKeys => ({
    waiting: `${prefix}queues:default`,
    reserved: `${prefix}queues:default:reserved`,
    notify: `${prefix}queues:default:notify`,
  });

  // n jobs as Laravel's push leaves them: the payload on the list, a token on :notify.
  async function seed(prefix: string, n: number): Promise<void> {
    for (let i = 0; i < n; i++)
      await redis.client
        .pipeline()
        .rpush(`${prefix}queues:default`, payload(i))
        .rpush(`${prefix}queues:default:notify`, '1')
        .exec();
  }

  // Redis after Laravel's pop script (larq's pop) has run once per job: every job reserved until NOW + 90.
  async function laravelReserved(n: number): Promise<Record<string, unknown>> {
    const prefix = randomPrefix();
    await seed(prefix, n);
    const q = redis.open({
      prefix,
      clock: new FakeClock(NOW * 1000),
      retryAfter: 90,
    });
    try {
      for (let i = 0; i < n; i++) expect(await q.pop('default')).to.not.equal(null);
    } finally {
      await q.close();
    }
    return strip(await dumpKeys(redis.client, prefix), prefix);
  }

  function strip(dump: Record<string, unknown>, prefix: string): Record<string, unknown> {
    return Object.fromEntries(Object.entries(dump).map(([k, v]) => [k.slice(prefix.length), v]));
  }

  const configs: CeilingConfig[] = [
    { kind: 'lua-each', batch: 10, perWrite: 3, lanes: 2 },
    { kind: 'lua-bulk', batch: 10, perWrite: 3, lanes: 2 },
    { kind: 'plain', batch: 10, perWrite: 3, lanes: 2 },
    { kind: 'lua-bulk', batch: 1000, perWrite: 1, lanes: 4 },
  ];

  for (const config of configs) {
    it(`${config.kind} at ${config.batch} a call reserves as Laravel's pop does`, async () => {
      const n = 47;
      const expected = await laravelReserved(n);
      const prefix = randomPrefix();
      await seed(prefix, n);
      const taken = await drainAtCeiling(redis.port, keysOf(prefix), config, {
        expiry: () => NOW + 90,
        acknowledge: false,
      });
      expect(taken).to.equal(n);
      const actual = strip(await dumpKeys(redis.client, prefix), prefix);
      if (config.kind !== 'plain') {
        expect(actual).to.deep.equal(expected);
        return;
      }
      // The plain way adds 1 to attempts in the text, so its bytes are not cjson's: the same jobs as JSON.
      const asJson = (dump: Record<string, unknown>) => {
        const set = dump['queues:default:reserved'] as { items: { member: string; score: number }[] };
        return set.items
          .map((i) => ({ job: JSON.parse(i.member), score: i.score }))
          .sort((a, b) => a.job.id.localeCompare(b.job.id));
      };
      expect(Object.keys(actual)).to.deep.equal(Object.keys(expected));
      expect(asJson(actual)).to.deep.equal(asJson(expected));
    });
  }

  it('takes and acknowledges every job, leaving no key, in every searched configuration', async () => {
    for (const config of ceilingSearchSpace()) {
      const prefix = randomPrefix();
      await seed(prefix, 120);
      expect(await drainAtCeiling(redis.port, keysOf(prefix), config), JSON.stringify(config)).to.equal(120);
      expect(await dumpKeys(redis.client, prefix), JSON.stringify(config)).to.deep.equal({});
    }
  });
});
