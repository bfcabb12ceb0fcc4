// The local Sentinel set-up the failover specs run on (spec/support/sentinel.ts) is what it claims to
// be: 3 sentinels name the primary, a killed primary's replica is promoted, and an ioredis Sentinel
// client carries on against the new primary by itself.
import { expect } from 'chai';
import { LocalSentinel } from '../support/sentinel';

describe('local Sentinel set-up (test harness)', function () {
  this.timeout(90000);
  let setup: LocalSentinel;

  before(async function () {
    setup = await LocalSentinel.start(this);
  });
  after(async () => setup?.stop());

  it('has every sentinel name the primary, whose replica is synced', async () => {
    const [primaryPort, replicaPort] = setup.dataPorts;
    for (const port of setup.sentinelPorts) expect(await setup.primaryPort(port)).to.equal(primaryPort);
    expect((await setup.node(primaryPort).info('replication')).role).to.equal('master');
    const replica = await setup.node(replicaPort).info('replication');
    expect(replica.role).to.equal('slave');
    expect(replica.master_port).to.equal(String(primaryPort));
    expect(replica.master_link_status).to.equal('up');
  });

  it('reaches the primary through an ioredis Sentinel client', async () => {
    const client = setup.client();
    await client.set('harness:sentinel', 'written');
    expect(await setup.node(await setup.primaryPort()).command(['GET', 'harness:sentinel'])).to.equal('written');
  });

  it('promotes the replica when the primary is killed, and the Sentinel client reconnects to it', async () => {
    const client = setup.client();
    await client.set('harness:failover', 'before');
    const before = await setup.primaryPort();

    const failover = await setup.killPrimary();
    expect(failover.killedPort).to.equal(before);
    expect(failover.promotedPort).to.not.equal(before);
    for (const port of setup.sentinelPorts) expect(await setup.primaryPort(port)).to.equal(failover.promotedPort);

    // The client was connected to the killed primary; it asks the sentinels again and lands on the new one.
    expect(await client.get('harness:failover')).to.equal('before');
    await client.set('harness:failover', 'after');
    expect(await setup.node(failover.promotedPort).command(['GET', 'harness:failover'])).to.equal('after');
    console.log(`      sentinel start-up ${setup.startMs} ms, failover ${failover.failoverMs} ms`);
  });

  it('takes the killed primary back as a replica, and fails over to it again', async () => {
    const [first] = setup.dataPorts;
    expect(await setup.primaryPort()).to.not.equal(first);
    await setup.restart(first);
    const failover = await setup.killPrimary();
    expect(failover.promotedPort).to.equal(first);
  });
});
