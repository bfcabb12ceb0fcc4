// Failure records when the failed-job store cannot be written (issue 21, finding 7): a worker failing 2,000
// jobs while the store is unwritable for 5 s, on SQLite, MariaDB and PostgreSQL, and a store that is
// unreachable from the start. Every job must end up either in the store or still in Redis (waiting,
// delayed, reserved or in larq's failed list), and the worker must name each job it could not record.
import { expect } from 'chai';
import type Redis from 'ioredis';
import { createWorker } from '../../../lib/createWorker';
import { DatabaseFailedJobProvider } from '../../../lib/failed/DatabaseFailedJobProvider';
import { Handlers } from '../../../lib/handlers/Handlers';
import { RedisQueue } from '../../../lib/RedisQueue';
import { connectSql, createFailedJobsTable, type SqlClient } from '../../../lib/sql';
import { DATABASE_KINDS, freshTable, openTestDatabase, type TestDatabase } from '../../support/databases';
import { freePort, randomPrefix, rawClient, requireRedis } from '../../support/redis';

const JOBS = 2000;
const OUTAGE_MS = 5000;

/** The uuid of a payload, or of the payload carried by an entry of larq's failed list (a header line, then the payload). */
function uuidOf(entry: string): string | undefined {
  const body = entry.startsWith('#larq') ? entry.slice(entry.indexOf('\n') + 1) : entry;
  try {
    return (JSON.parse(body) as { uuid?: string }).uuid;
  } catch {
    return undefined;
  }
}

/** Every job uuid still held in Redis under `prefix` for the default queue, wherever it sits. */
async function uuidsInRedis(client: Redis, prefix: string): Promise<string[]> {
  const base = `${prefix}queues:default`;
  const entries = [
    ...(await client.lrange(base, 0, -1)),
    ...(await client.zrange(`${base}:reserved`, 0, -1)),
    ...(await client.zrange(`${base}:delayed`, 0, -1)),
    ...(await client.lrange(`${base}:larq:failed`, 0, -1)),
  ];
  return entries.map(uuidOf).filter((u): u is string => u !== undefined);
}

async function pushFailingJobs(queue: RedisQueue, count: number): Promise<string[]> {
  const jobs = Array.from({ length: count }, (_, n) => ({ job: 'App\\Jobs\\Boom@handle', data: { n } }));
  await queue.bulk(jobs);
  const payloads = await queue.pendingJobs();
  return payloads.map((j) => (JSON.parse(j.payload) as { uuid: string }).uuid);
}

const failing = () => new Handlers().string('App\\Jobs\\Boom@handle', () => Promise.reject(new Error('boom')));

for (const kind of DATABASE_KINDS) {
  describe(`failed-job store faults on ${kind}`, function () {
    this.timeout(120000);
    let port: number;
    let client: Redis;
    let db: TestDatabase;
    let sql: SqlClient;

    before(async function () {
      port = await requireRedis(this);
      client = rawClient(port);
      db = await openTestDatabase(this, kind);
      sql = connectSql(db.config);
    });
    after(async () => {
      client?.disconnect();
      await sql?.close();
      await db?.dispose();
    });

    it(`loses no failure record of ${JOBS} failing jobs while the table is unwritable for 5 s mid-run`, async function () {
      const prefix = randomPrefix();
      const table = freshTable();
      await createFailedJobsTable(sql, { table, uuid: true });
      const queue = new RedisQueue({ connection: { port }, prefix, laravel: 12, retryAfter: 60 });
      const store = new DatabaseFailedJobProvider(db.config, { table });
      try {
        const pushed = await pushFailingJobs(queue, JOBS);
        expect(pushed).to.have.length(JOBS);
        const worker = createWorker(queue, failing(), { sleep: 0, stopWhenEmpty: true, memory: 4096, concurrency: 10, maxTries: 1 }, { failed: store });
        const errors: string[] = [];
        worker.on('error', (e) => void errors.push(e.message));
        // The store goes away after the first few hundred failures, for 5 s, by renaming the table.
        let failures = 0;
        let restored: Promise<void> | undefined;
        worker.on('JobFailed', () => {
          if (++failures !== 300) return;
          restored = (async () => {
            await sql.execute(`ALTER TABLE ${sql.quote(table)} RENAME TO ${sql.quote(`${table}_off`)}`);
            await new Promise((r) => setTimeout(r, OUTAGE_MS));
            await sql.execute(`ALTER TABLE ${sql.quote(`${table}_off`)} RENAME TO ${sql.quote(table)}`);
          })();
        });
        await worker.daemon('default');
        await restored;

        const recorded = (await sql.select(`SELECT ${sql.quote('uuid')} FROM ${sql.quote(table)}`)).map((r) => String(r.uuid));
        const inRedis = await uuidsInRedis(client, prefix);
        const accounted = new Set([...recorded, ...inRedis]);
        const lost = pushed.filter((u) => !accounted.has(u));
        expect(lost.length, `jobs with no failure record and gone from Redis (of ${JOBS})`).to.equal(0);
        expect(recorded.length, 'some failures were recorded before and after the outage').to.be.greaterThan(0);
        const unrecorded = pushed.filter((u) => !recorded.includes(u));
        expect(unrecorded.length, 'the outage left some jobs unrecorded in the store').to.be.greaterThan(0);
        const unnamed = unrecorded.filter((u) => !errors.some((m) => m.includes(u)));
        expect(unnamed.length, 'unrecorded jobs the worker did not name').to.equal(0);
      } finally {
        await store.close();
        await queue.close();
        await client.del(...(await client.keys(`${prefix}*`)), 'x');
      }
    });
  });
}

describe('failed-job store unreachable from the start', function () {
  this.timeout(60000);
  let port: number;
  let client: Redis;

  before(async function () {
    port = await requireRedis(this);
    client = rawClient(port);
  });
  after(() => client?.disconnect());

  it('keeps every one of 300 failing jobs in Redis and names each, when the database is on a wrong port', async function () {
    const prefix = randomPrefix();
    const queue = new RedisQueue({ connection: { port }, prefix, laravel: 12, retryAfter: 60 });
    const store = new DatabaseFailedJobProvider({ driver: 'pgsql', host: '127.0.0.1', port: await freePort(), user: 'postgres', database: 'nowhere' });
    try {
      const pushed = await pushFailingJobs(queue, 300);
      const worker = createWorker(queue, failing(), { sleep: 0, stopWhenEmpty: true, memory: 4096, concurrency: 10, maxTries: 1 }, { failed: store });
      const errors: string[] = [];
      worker.on('error', (e) => void errors.push(e.message));
      await worker.daemon('default');
      const inRedis = new Set(await uuidsInRedis(client, prefix));
      expect(pushed.filter((u) => !inRedis.has(u)).length, 'jobs gone from Redis with no record').to.equal(0);
      expect(pushed.filter((u) => !errors.some((m) => m.includes(u))).length, 'jobs the worker did not name').to.equal(0);
    } finally {
      await store.close().catch(() => undefined);
      await queue.close();
    }
  });
});
