// A failed-job store whose reply is lost after its insert commits: the worker cannot know the failure was
// recorded and keeps the job in larq's failed list in Redis too. The failure still has one home for the
// CLI: `larq failed` lists it once, `larq retry all` pushes it once however often it runs, and
// `larq forget` removes both copies. On the file store, and on real MariaDB and PostgreSQL through a SQL
// client whose INSERT commits and then reports a lost connection.
import { expect } from 'chai';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import type Redis from 'ioredis';
import { main } from '../../../lib/cli/main';
import { createWorker } from '../../../lib/createWorker';
import { DatabaseFailedJobProvider } from '../../../lib/failed/DatabaseFailedJobProvider';
import type { FailedJobProvider } from '../../../lib/failed/FailedJobProvider';
import { FileFailedJobProvider } from '../../../lib/failed/FileFailedJobProvider';
import { Handlers } from '../../../lib/handlers/Handlers';
import { RedisQueue } from '../../../lib/RedisQueue';
import { connectSql, createFailedJobsTable, type SqlClient } from '../../../lib/sql';
import { openTestDatabase, type TestDatabase } from '../../support/databases';
import { randomPrefix, rawClient, requireRedis } from '../../support/redis';

/** `client` with every INSERT committed, then answered by a lost connection instead of its reply. */
function losingInsertReplies(client: SqlClient): SqlClient {
  const lost = () => new Error('Connection lost: The server closed the connection.');
  return new Proxy(client, {
    get(target, prop, receiver) {
      if (prop === 'execute' || prop === 'insertGetId') {
        return async (sql: string, ...rest: unknown[]) => {
          const result = await (target[prop] as (...args: unknown[]) => Promise<unknown>).call(target, sql, ...rest);
          if (/^\s*insert/i.test(sql)) throw lost();
          return result;
        };
      }
      return Reflect.get(target, prop, receiver);
    },
  });
}

for (const kind of ['file', 'mariadb', 'pgsql'] as const) {
  describe(`failed-job store on ${kind} whose insert reply is lost`, function () {
    this.timeout(60000);
    let port: number;
    let client: Redis;
    let dir: string;
    let prefix: string;
    let queue: RedisQueue;
    let envFile: string;
    let db: TestDatabase | undefined;
    let sql: SqlClient | undefined;
    let table: string;

    before(async function () {
      port = await requireRedis(this);
      client = rawClient(port);
      dir = mkdtempSync(join(tmpdir(), 'larq-lost-reply-'));
      if (kind !== 'file') db = await openTestDatabase(this, kind);
    });
    after(async () => {
      client?.disconnect();
      await db?.dispose();
      rmSync(dir, { recursive: true, force: true });
    });
    beforeEach(async () => {
      prefix = randomPrefix();
      queue = new RedisQueue({ connection: { port }, prefix, laravel: 12, retryAfter: 90 });
      mkdirSync(join(dir, prefix));
      envFile = join(dir, `${prefix}.env`);
      const lines = ['APP_NAME=Shop', 'REDIS_HOST=127.0.0.1', `REDIS_PORT=${port}`, `REDIS_PREFIX=${prefix}`];
      if (db) {
        const c = db.config as {
          host?: string;
          port?: number;
          socketPath?: string;
          user: string;
          password?: string;
          database: string;
        };
        table = `failed_${prefix.replace(/\W/g, '')}`;
        await createFailedJobsTable(db.config, { table });
        sql = connectSql(db.config);
        lines.push(
          `DB_CONNECTION=${kind}`,
          `DB_DATABASE=${c.database}`,
          `DB_USERNAME=${c.user}`,
          `DB_PASSWORD=${c.password ?? ''}`,
          `QUEUE_FAILED_TABLE=${table}`,
        );
        if (c.host) lines.push(`DB_HOST=${c.host}`, `DB_PORT=${c.port}`);
        if (c.socketPath) lines.push(`DB_SOCKET=${c.socketPath}`);
      } else {
        lines.push('QUEUE_FAILED_DRIVER=file');
      }
      writeFileSync(envFile, `${lines.join('\n')}\n`);
    });
    afterEach(async () => {
      await queue.close();
      await sql?.close();
      sql = undefined;
    });

    async function larq(...args: string[]): Promise<{ code: number; out: string[]; err: string[] }> {
      const out: string[] = [];
      const err: string[] = [];
      const code = await main([...args, `--env=${envFile}`, `--app=${join(dir, prefix)}`], {
        out: (l) => void out.push(l),
        err: (l) => void err.push(l),
      });
      return { code, out, err };
    }

    /** The store `larq` opens, with every insert's reply lost. */
    function losingStore(): FailedJobProvider {
      if (kind === 'file') {
        const file = new FileFailedJobProvider(join(dir, prefix, 'storage', 'framework', 'cache', 'failed-jobs.json'));
        return Object.assign(Object.create(file) as FailedJobProvider, {
          log: async (...args: Parameters<FailedJobProvider['log']>) => {
            await file.log(...args);
            throw new Error('the reply was lost');
          },
        });
      }
      return new DatabaseFailedJobProvider(losingInsertReplies(sql!), { table });
    }

    /** Push `n` failing jobs and run a worker over them against the losing store; their uuids. */
    async function failWithLostReplies(n: number): Promise<string[]> {
      await queue.bulk(Array.from({ length: n }, (_, i) => ({ job: 'App\\Jobs\\Boom@handle', data: { i } })));
      const uuids = (await queue.pendingJobs()).map((j) => (JSON.parse(j.payload) as { uuid: string }).uuid);
      const handlers = new Handlers().string('App\\Jobs\\Boom@handle', () => Promise.reject(new Error('boom')));
      const worker = createWorker(
        queue,
        handlers,
        { sleep: 0, stopWhenEmpty: true, memory: 4096, maxTries: 1 },
        { failed: losingStore() },
      );
      worker.on('error', () => undefined);
      await worker.daemon('default');
      return uuids;
    }

    const waiting = async () =>
      (await client.lrange(`${prefix}queues:default`, 0, -1)).map((p) => (JSON.parse(p) as { uuid: string }).uuid);

    it('retry all pushes each failure once, however often it runs', async function () {
      const uuids = await failWithLostReplies(3);
      // The state the lost replies leave: every failure in the store and in Redis.
      expect(await client.llen(`${prefix}queues:default:larq:failed`)).to.equal(3);
      for (let run = 0; run < 2; run++) {
        const retried = await larq('retry', 'all');
        expect(retried.code, retried.err.join('\n')).to.equal(0);
      }
      expect((await waiting()).sort()).to.deep.equal([...uuids].sort());
      expect(await client.exists(`${prefix}queues:default:larq:failed`)).to.equal(0);
    });

    it('lists each failure once, retries one by id once, and forget removes both copies', async function () {
      const [first, second] = await failWithLostReplies(2);
      const listed = await larq('failed', '--json');
      const rows = JSON.parse(listed.out.join('\n')) as { id: string; kept: string }[];
      // Each once: in the store, or only in Redis where the worker stopped trying the store.
      expect(rows.map((r) => r.id).sort()).to.deep.equal([first, second].sort());
      expect(rows.find((r) => r.id === first)?.kept).to.equal('store');
      expect((await larq('retry', first)).code).to.equal(0);
      expect((await larq('retry', 'all')).code).to.equal(0);
      expect((await waiting()).sort()).to.deep.equal([first, second].sort());
      await client.del(`${prefix}queues:default`);

      const [third] = await failWithLostReplies(1);
      expect((await larq('forget', third)).code).to.equal(0);
      expect((await larq('failed', '--json')).out.join('')).to.equal('[]');
      expect((await larq('retry', 'all')).out).to.deep.equal(['No failed jobs to retry.']);
      expect(await waiting()).to.deep.equal([]);
    });
  });
}
