// larq's failed and quarantine lists (`<queue>:larq:failed`, `<queue>:larq:invalid`) on a real local
// Redis Cluster: the lists of different queues live on different primaries, and `larq failed`, `flush`
// and `size` (through RedisFailedLists) must see the lists of every primary, not those of the one node
// a keyless SCAN happens to reach.
import { expect } from 'chai';
import { encodeFailedEntry } from '../../../lib/failed/FailedList';
import { RedisFailedLists } from '../../../lib/failed/RedisFailedLists';
import { KeySpace } from '../../../lib/redis/keys';
import { LocalCluster } from '../../support/cluster';
import { randomPrefix } from '../../support/redis';

const QUEUES = ['default', 'emails', 'high', 'low', 'reports', 'imports', 'exports', 'webhooks'];

const payload = (queue: string) =>
  JSON.stringify({
    uuid: `uuid-${queue}`,
    displayName: 'App\\Jobs\\Boom',
    job: 'Illuminate\\Queue\\CallQueuedHandler@call',
    data: {},
    attempts: 1,
  });
const header = (queue: string) => ({
  uuid: `uuid-${queue}`,
  connection: 'redis',
  queue,
  exception: 'Error: boom',
  failed_at: '2026-11-25 20:00:00',
  reason: 'the store is down',
});

describe('failed: RedisFailedLists on a Redis Cluster', function () {
  this.timeout(90000);
  let cluster: LocalCluster;

  before(async function () {
    cluster = await LocalCluster.start(this);
  });
  after(async () => cluster?.stop());

  // A failed entry for every queue and a quarantined payload for half of them; checks they span every primary.
  async function seed(keys: KeySpace): Promise<void> {
    const client = cluster.client();
    const ports = new Set<number>();
    for (const [i, queue] of QUEUES.entries()) {
      const k = keys.forQueue(queue);
      await client.rpush(k.failed, encodeFailedEntry(header(queue), payload(queue)));
      if (i % 2 === 0) await client.rpush(k.invalid, `not json ${queue}`);
      ports.add(await cluster.primaryPortOf(k.failed));
    }
    expect(ports.size, 'the lists live on every primary').to.equal(3);
  }

  it('lists the failed and quarantined entries of every primary', async () => {
    const keys = new KeySpace(randomPrefix(), 13, true);
    await seed(keys);
    const lists = new RedisFailedLists(cluster.client(), keys);
    const all = await lists.all();
    expect(
      all
        .filter((j) => j.kind === 'failed')
        .map((j) => j.queue)
        .sort(),
    ).to.deep.equal([...QUEUES].sort());
    expect(
      all
        .filter((j) => j.kind === 'invalid')
        .map((j) => j.queue)
        .sort(),
    ).to.deep.equal(QUEUES.filter((_, i) => i % 2 === 0).sort());
    expect((await lists.find('uuid-webhooks'))?.queue).to.equal('webhooks');
    for (const queue of QUEUES)
      expect(await lists.counts(queue)).to.deep.equal({ failed: 1, invalid: QUEUES.indexOf(queue) % 2 === 0 ? 1 : 0 });
  });

  it('retries and forgets entries whichever primary holds them', async () => {
    const keys = new KeySpace(randomPrefix(), 13, true);
    await seed(keys);
    const lists = new RedisFailedLists(cluster.client(), keys);
    const client = cluster.client();
    for (const queue of QUEUES) {
      const job = (await lists.find(`uuid-${queue}`))!;
      await lists.retry(job, job.bytes);
      expect(await client.lrange(keys.forQueue(queue).queue, 0, -1)).to.deep.equal([payload(queue)]);
    }
    for (const job of await lists.all()) expect(await lists.forget(job)).to.equal(true);
    expect(await lists.all()).to.deep.equal([]);
  });

  it('flushes the lists of every primary and counts every entry it deleted', async () => {
    const keys = new KeySpace(randomPrefix(), 13, true);
    await seed(keys);
    const lists = new RedisFailedLists(cluster.client(), keys);
    expect(await lists.flush()).to.equal(QUEUES.length + QUEUES.length / 2);
    const client = cluster.client();
    for (const queue of QUEUES)
      expect(await client.exists(keys.forQueue(queue).failed, keys.forQueue(queue).invalid)).to.equal(0);
  });
});
