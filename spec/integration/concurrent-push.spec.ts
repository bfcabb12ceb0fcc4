// Many callers pushing at once on one queue object (a Node web app's requests, each dispatching a job):
// Redis runs Laravel's push script once per job, in the order the calls were made.
import { expect } from 'chai';
import Redis from 'ioredis';
import { RedisQueue } from '../../lib/RedisQueue';
import { scriptSha } from '../../lib/redis/scripts';
import { readFileSync } from 'fs';
import { join } from 'path';
import { monitorCaughtUp } from '../support/redis';
import { ownRedis, type OwnRedis } from '../support/redisServer';
import { requireBinaries } from '../support/redisProcess';

const payload = (n: number) =>
  JSON.stringify({ uuid: `u${n}`, displayName: 'Ping', job: 'ping', data: { n }, id: `id${n}`, attempts: 0 });

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

  it('runs the push script once per job, with that job alone, in the order of the calls', async () => {
    const monitor = await admin.monitor(); // a connection of its own, which disconnect() closes
    const seen: string[][] = [];
    monitor.on('monitor', (_time: string, args: string[]) => seen.push(args));
    await Promise.all(Array.from({ length: 20 }, (_, i) => queue.pushRaw(payload(i + 1))));
    await monitorCaughtUp(monitor, admin);
    monitor.disconnect();
    const sha = scriptSha(readFileSync(join(__dirname, '../../lib/redis/lua/push-2.lua'), 'utf8'));
    const pushes = seen.filter((args) => args[0].toLowerCase() === 'evalsha');
    expect(pushes).to.deep.equal(
      Array.from({ length: 20 }, (_, i) => [
        'evalsha',
        sha,
        '2',
        'cp_queues:default',
        'cp_queues:default:notify',
        payload(i + 1),
      ]),
    );
  });
});
