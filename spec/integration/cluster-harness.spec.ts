// The local Redis Cluster the cluster specs run on (spec/support/cluster.ts) is what it claims to be:
// 3 primaries and 3 replicas covering every slot, reachable through an ioredis Cluster, and a killed
// primary's slot comes back on its promoted replica.
import { expect } from 'chai';
import { CLUSTER_SLOTS, LocalCluster } from '../support/cluster';

describe('local Redis Cluster (test harness)', function () {
  this.timeout(90000);
  let cluster: LocalCluster;

  before(async function () {
    cluster = await LocalCluster.start(this);
  });
  after(async () => cluster?.stop());

  it('runs 3 primaries and 3 replicas that cover all 16384 slots, as every node sees it', async () => {
    for (const port of cluster.ports) {
      const view = await cluster.view(port);
      const primaries = view.filter((n) => n.role === 'master');
      const replicas = view.filter((n) => n.role === 'replica');
      expect(primaries).to.have.length(3);
      expect(replicas).to.have.length(3);
      expect(new Set(replicas.map((r) => r.primaryId))).to.deep.equal(new Set(primaries.map((p) => p.id)));
      const covered = new Set<number>();
      for (const [from, to] of primaries.flatMap((p) => p.slots)) for (let s = from; s <= to; s++) covered.add(s);
      expect(covered.size).to.equal(CLUSTER_SLOTS);
      expect(String(await cluster.node(port).command(['CLUSTER', 'INFO']))).to.include('cluster_state:ok');
    }
  });

  it('reads back through an ioredis Cluster what it wrote, on keys of different primaries', async () => {
    const client = cluster.client();
    const keys = ['a', 'b', 'c', 'd', 'e', 'f'].map((k) => `harness:${k}`);
    const owners = new Set(await Promise.all(keys.map((k) => cluster.primaryPortOf(k))));
    expect(owners.size, 'the keys span several primaries').to.be.greaterThan(1);
    for (const key of keys) await client.set(key, `value of ${key}`);
    for (const key of keys) expect(await client.get(key)).to.equal(`value of ${key}`);
    // The value sits on the primary that owns the slot, not merely somewhere the client can reach.
    for (const key of keys) {
      const owner = cluster.node(await cluster.primaryPortOf(key));
      expect(await owner.command(['GET', key])).to.equal(`value of ${key}`);
    }
  });

  it('promotes the replica when a slot primary is killed, and writes through the same client resume', async () => {
    const client = cluster.client();
    const key = 'harness:failover';
    await client.set(key, 'before');
    const before = await cluster.primaryPortOf(key);

    const failover = await cluster.killPrimaryOf(key);
    expect(failover.killedPort).to.equal(before);
    expect(failover.promotedPort).to.not.equal(before);
    expect(await cluster.primaryPortOf(key)).to.equal(failover.promotedPort);

    // The same client finds the new primary by itself (a refused connection or MOVED refreshes its map).
    expect(await client.get(key)).to.equal('before');
    await client.set(key, 'after');
    expect(await cluster.node(failover.promotedPort).command(['GET', key])).to.equal('after');
    console.log(
      `      cluster start-up ${cluster.startMs} ms, failover of slot ${failover.slot} ${failover.failoverMs} ms`,
    );
  });

  it('takes a killed primary back as a replica of the promoted one', async () => {
    // A key whose primary still has a replica: the test above left one primary without any.
    let key = '';
    for (let i = 0; !key; i++) {
      const view = await cluster.view();
      const ownerPort = await cluster.primaryPortOf(`harness:restart:${i}`);
      const owner = view.find((n) => n.port === ownerPort)!;
      if (view.some((n) => n.primaryId === owner.id && !n.failing)) key = `harness:restart:${i}`;
    }
    const failover = await cluster.killPrimaryOf(key);
    await cluster.restart(failover.killedPort);
    const view = await cluster.view(failover.killedPort);
    const me = view.find((n) => n.port === failover.killedPort)!;
    const promoted = view.find((n) => n.port === failover.promotedPort)!;
    expect(me.role).to.equal('replica');
    expect(me.primaryId).to.equal(promoted.id);
  });
});
