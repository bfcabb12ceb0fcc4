// Failure records when the failed-job store cannot be written (issue 21, finding 7): a worker failing 2,000
// jobs while the store is unwritable for 5 s, on SQLite, MariaDB and PostgreSQL, and a store that is
// unreachable from the start. Every job must end up either in the store or still in Redis (waiting,
// delayed, reserved or in larq's failed list), and the worker must name each job it could not record.
import { expect } from 'chai';
import { randomBytes, randomUUID } from 'crypto';
import type Redis from 'ioredis';
import { createWorker } from '../../../lib/createWorker';
import { DatabaseFailedJobProvider } from '../../../lib/failed/DatabaseFailedJobProvider';
import { Handlers } from '../../../lib/handlers/Handlers';
import { RedisQueue } from '../../../lib/RedisQueue';
import { connectSql, createFailedJobsTable, type SqlClient, type SqlConnectionConfig } from '../../../lib/sql';
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
    ...(await client.zrange(`${base}:reserved`, 0, '-1')),
    ...(await client.zrange(`${base}:delayed`, 0, '-1')),
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

/** How the store is made unwritable and writable again. */
interface Fault {
  /** The connection settings the store under test uses. */
  config: SqlConnectionConfig;
  break(): Promise<void>;
  repair(): Promise<void>;
  dispose(): Promise<void>;
}

/** The table renamed away and back: any backend. */
function renameFault(sql: SqlClient, db: TestDatabase, table: string): Fault {
  const rename = (from: string, to: string) =>
    sql.execute(`ALTER TABLE ${sql.quote(from)} RENAME TO ${sql.quote(to)}`).then(() => undefined);
  return {
    config: db.config,
    break: () => rename(table, `${table}_off`),
    repair: () => rename(`${table}_off`, table),
    dispose: async () => undefined,
  };
}

/** INSERT revoked from the store's own database user and granted again (a superuser would ignore the revoke). */
async function revokeFault(sql: SqlClient, db: TestDatabase, table: string): Promise<Fault> {
  const user = `larq_fault_${randomBytes(4).toString('hex')}`;
  const config = db.config as Exclude<SqlConnectionConfig, { client: unknown }> & { database: string };
  if (db.kind === 'pgsql') {
    const t = sql.quote(table);
    await sql.execute(`CREATE ROLE "${user}" LOGIN`);
    await sql.execute(`GRANT SELECT, INSERT, DELETE ON ${t} TO "${user}"`);
    await sql.execute(`GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO "${user}"`);
    return {
      config: { ...config, user } as SqlConnectionConfig,
      break: () => sql.execute(`REVOKE INSERT ON ${t} FROM "${user}"`).then(() => undefined),
      repair: () => sql.execute(`GRANT INSERT ON ${t} TO "${user}"`).then(() => undefined),
      dispose: async () => {
        await sql.execute(`DROP OWNED BY "${user}"`);
        await sql.execute(`DROP ROLE "${user}"`);
      },
    };
  }
  // MariaDB: table privileges apply from the client's next statement; one account per host form a
  // connection can arrive as (TCP from 127.0.0.1, or the socket as localhost).
  const hosts = ['%', 'localhost', '127.0.0.1'];
  const t = `\`${config.database}\`.\`${table}\``;
  const each = async (statement: (account: string) => string) => {
    for (const host of hosts) await sql.execute(statement(`'${user}'@'${host}'`));
  };
  await each((a) => `CREATE USER ${a} IDENTIFIED BY 'fault'`);
  await each((a) => `GRANT SELECT, INSERT, DELETE ON ${t} TO ${a}`);
  return {
    config: { ...config, user, password: 'fault' } as SqlConnectionConfig,
    break: () => each((a) => `REVOKE INSERT ON ${t} FROM ${a}`),
    repair: () => each((a) => `GRANT INSERT ON ${t} TO ${a}`),
    dispose: () => each((a) => `DROP USER ${a}`),
  };
}

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

    it('keeps a payload that is not valid UTF-8 byte for byte: in the table on SQLite, else in Redis, never altered', async function () {
      const prefix = randomPrefix();
      const table = freshTable();
      await createFailedJobsTable(sql, { table, uuid: true });
      const queue = new RedisQueue({ connection: { port }, prefix, laravel: 12, retryAfter: 60 });
      const store = new DatabaseFailedJobProvider(db.config, { table });
      const uuid = randomUUID();
      const bytes = Buffer.concat([
        Buffer.from(`{"uuid":"${uuid}","job":"App\\\\Jobs\\\\Boom@handle","data":{"s":"`),
        Buffer.from([0xff, 0xc3, 0x28]),
        Buffer.from('"},"attempts":0}'),
      ]);
      try {
        await client.rpush(`${prefix}queues:default`, bytes);
        const worker = createWorker(
          queue,
          failing(),
          { sleep: 0, stopWhenEmpty: true, memory: 4096, maxTries: 1 },
          { failed: store },
        );
        await worker.daemon('default');
        const rows = await sql.select(`SELECT ${sql.quote('payload')} FROM ${sql.quote(table)}`);
        const kept = await client.lrangeBuffer(`${prefix}queues:default:larq:failed`, 0, -1);
        if (kind === 'sqlite') {
          expect(rows.map((r) => Buffer.from(r.payload as Buffer).equals(bytes))).to.deep.equal([true]);
          expect(kept).to.deep.equal([]);
        } else {
          expect(rows).to.deep.equal([]);
          expect(kept.map((e) => e.subarray(e.indexOf(0x0a) + 1).equals(bytes))).to.deep.equal([true]);
        }
      } finally {
        await store.close();
        await queue.close();
      }
    });

    for (const how of kind === 'sqlite'
      ? (['table renamed'] as const)
      : (['table renamed', 'INSERT revoked'] as const)) {
      it(`loses no failure record of ${JOBS} failing jobs while the store is unwritable for 5 s mid-run (${how})`, async function () {
        const prefix = randomPrefix();
        const table = freshTable();
        await createFailedJobsTable(sql, { table, uuid: true });
        const fault = how === 'table renamed' ? renameFault(sql, db, table) : await revokeFault(sql, db, table);
        const queue = new RedisQueue({ connection: { port }, prefix, laravel: 12, retryAfter: 60 });
        const store = new DatabaseFailedJobProvider(fault.config, { table });
        try {
          const pushed = await pushFailingJobs(queue, JOBS);
          expect(pushed).to.have.length(JOBS);
          const worker = createWorker(
            queue,
            failing(),
            { sleep: 0, stopWhenEmpty: true, memory: 4096, concurrency: 10, maxTries: 1 },
            { failed: store },
          );
          const errors: string[] = [];
          worker.on('error', (e) => void errors.push(e.message));
          // The store goes away after the first few hundred failures, for 5 s.
          let failures = 0;
          let restored: Promise<void> | undefined;
          worker.on('JobFailed', () => {
            if (++failures !== 300) return;
            restored = (async () => {
              await fault.break();
              await new Promise((r) => setTimeout(r, OUTAGE_MS));
              await fault.repair();
            })();
          });
          await worker.daemon('default');
          await restored;

          const recorded = (await sql.select(`SELECT ${sql.quote('uuid')} FROM ${sql.quote(table)}`)).map((r) =>
            String(r.uuid),
          );
          const inRedis = await uuidsInRedis(client, prefix);
          const accounted = new Set([...recorded, ...inRedis]);
          const lost = pushed.filter((u) => !accounted.has(u));
          expect(lost.length, `jobs with no failure record and gone from Redis (of ${JOBS})`).to.equal(0);
          expect(recorded.length, 'some failures were recorded').to.be.greaterThan(0);
          const unrecorded = pushed.filter((u) => !recorded.includes(u));
          expect(unrecorded.length, 'the outage left some jobs unrecorded in the store').to.be.greaterThan(0);
          const unnamed = unrecorded.filter((u) => !errors.some((m) => m.includes(u)));
          expect(unnamed.length, 'unrecorded jobs the worker did not name').to.equal(0);
        } finally {
          await store.close();
          await fault.dispose();
          await queue.close();
          await client.del(...(await client.keys(`${prefix}*`)), 'x');
        }
      });
    }
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
    const store = new DatabaseFailedJobProvider({
      driver: 'pgsql',
      host: '127.0.0.1',
      port: await freePort(),
      user: 'postgres',
      database: 'nowhere',
    });
    try {
      const pushed = await pushFailingJobs(queue, 300);
      const worker = createWorker(
        queue,
        failing(),
        { sleep: 0, stopWhenEmpty: true, memory: 4096, concurrency: 10, maxTries: 1 },
        { failed: store },
      );
      const errors: string[] = [];
      worker.on('error', (e) => void errors.push(e.message));
      await worker.daemon('default');
      const inRedis = new Set(await uuidsInRedis(client, prefix));
      expect(pushed.filter((u) => !inRedis.has(u)).length, 'jobs gone from Redis with no record').to.equal(0);
      expect(pushed.filter((u) => !errors.some((m) => m.includes(u))).length, 'jobs the worker did not name').to.equal(
        0,
      );
    } finally {
      await store.close().catch(() => undefined);
      await queue.close();
    }
  });
});
