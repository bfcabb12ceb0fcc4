// Many callers pushing at once on one queue object (a Node web app's requests, each dispatching a job):
// their pushes share socket writes, and so Redis' reads, while Redis still runs Laravel's push script
// once per job, in the order the calls were made. The same holds for a cache store's reads (a worker's
// restart and pause checks).
import { expect } from 'chai';
import Redis from 'ioredis';
import { RedisCacheStore } from '../../lib/cache';
import { RedisQueue } from '../../lib/RedisQueue';
import { scriptSha } from '../../lib/redis/ScriptCall';
import { readFileSync } from 'fs';
import { join } from 'path';
import { monitorCaughtUp } from '../support/redis';
import { ownRedis, type OwnRedis } from '../support/redisServer';
import { requireBinaries } from '../support/redisProcess';

const CALLERS = 100;
const payload = (n: number) => JSON.stringify({ uuid: `u${n}`, displayName: 'Ping', job: 'ping', data: { n }, id: `id${n}`, attempts: 0 });

async function readsProcessed(admin: Redis): Promise<number> {
  const info = await admin.info('stats');
  return Number(/total_reads_processed:(\d+)/.exec(info)![1]);
}

describe('concurrent pushes on one queue', function () {
  this.timeout(20000);
  let server: OwnRedis;
  let admin: Redis;
  let queue: RedisQueue;

  before(async function () {
    requireBinaries(this, ['redis-server']);
    server = await ownRedis();
    admin = server.admin();
  });
  after(async () => {
    admin?.disconnect();
    await server?.stop();
  });
  beforeEach(async () => {
    await admin.flushall();
    queue = new RedisQueue({ connection: { port: server.port }, prefix: 'cp_' });
    await queue.pushRaw(payload(0)); // connected, script loaded
    await admin.del('cp_queues:default', 'cp_queues:default:notify');
  });
  afterEach(async () => queue.close());

  it(`sends ${CALLERS} pushes made in the same turn in a handful of writes, not one each`, async () => {
    const before = await readsProcessed(admin);
    await Promise.all(Array.from({ length: CALLERS }, (_, i) => queue.pushRaw(payload(i + 1))));
    // The INFO that reads the count is one read of its own.
    const reads = (await readsProcessed(admin)) - before - 1;
    expect(reads, 'reads Redis needed for the pushes').to.be.at.most(10);
    expect(await admin.lrange('cp_queues:default', 0, -1)).to.deep.equal(Array.from({ length: CALLERS }, (_, i) => payload(i + 1)));
    expect(await admin.llen('cp_queues:default:notify')).to.equal(CALLERS);
  });

  it('still runs the push script once per job, with that job alone, in the order of the calls', async () => {
    const monitor = await admin.monitor(); // a connection of its own, which disconnect() closes
    const seen: string[][] = [];
    monitor.on('monitor', (_time: string, args: string[]) => seen.push(args));
    await Promise.all(Array.from({ length: 20 }, (_, i) => queue.pushRaw(payload(i + 1))));
    await monitorCaughtUp(monitor, admin);
    monitor.disconnect();
    const sha = scriptSha(readFileSync(join(__dirname, '../../lib/redis/lua/push-2.lua'), 'utf8'));
    const pushes = seen.filter((args) => args[0].toLowerCase() === 'evalsha');
    expect(pushes).to.deep.equal(Array.from({ length: 20 }, (_, i) => ['evalsha', sha, '2', 'cp_queues:default', 'cp_queues:default:notify', payload(i + 1)]));
  });

  it("sends a cache store's reads made in the same turn in one write", async () => {
    const client = new Redis({ port: server.port });
    const cache = new RedisCacheStore({ connection: client, prefix: 'cp_', laravel: 13 });
    await cache.get('warm-up');
    await cache.forever('illuminate:queue:restart', 1795276770);
    const before = await readsProcessed(admin);
    const values = await Promise.all(['illuminate:queue:restart', 'illuminate:queues:paused', 'illuminate:queue:paused:redis:default'].map((k) => cache.get(k)));
    const reads = (await readsProcessed(admin)) - before - 1;
    expect(reads, 'reads Redis needed for the three GETs').to.equal(1);
    expect(values).to.deep.equal([1795276770, null, null]);
    client.disconnect();
  });
});
