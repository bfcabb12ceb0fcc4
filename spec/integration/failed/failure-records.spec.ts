// What a failure record keeps (issue 21, findings 8 and 12): a job without a uuid (a raw job pushed by
// another producer) is recorded under a generated uuid, never dropped; a payload with bytes that are not
// valid UTF-8 keeps those exact bytes from the pop to the record to `larq retry`; an `"attempts":"0"`
// (a string) runs, as PHP's `+ 1` counts it. A real redis-server, SQLite and the file store.
import { expect } from 'chai';
import { randomUUID } from 'crypto';
import { mkdirSync, writeFileSync } from 'fs';
import { join } from 'path';
import Sqlite from 'better-sqlite3';
import { main } from '../../../lib/cli/main';
import { createWorker } from '../../../lib/createWorker';
import { DatabaseFailedJobProvider } from '../../../lib/failed/DatabaseFailedJobProvider';
import type { FailedJobProvider } from '../../../lib/failed/FailedJobProvider';
import { FileFailedJobProvider } from '../../../lib/failed/FileFailedJobProvider';
import { Handlers } from '../../../lib/handlers/Handlers';
import { RedisQueue } from '../../../lib/RedisQueue';
import { createFailedJobsTable } from '../../../lib/sql';
import { useRedisQueue } from '../../support/useRedisQueue';
import { useTempDir } from '../../support/useTempDir';

/** A payload as PHP's json_encode writes a string job, with `bytes` as the value of data.s. */
function payloadWith(uuid: string, bytes: Buffer): Buffer {
  return Buffer.concat([
    Buffer.from(`{"uuid":"${uuid}","job":"App\\\\Jobs\\\\Boom@handle","data":{"s":"`),
    bytes,
    Buffer.from('"},"attempts":0}'),
  ]);
}

const INVALID_UTF8 = Buffer.from([0x41, 0xff, 0xfe, 0xc3, 0x28, 0xe2, 0x82, 0x42]);

describe('failure records: uuid-less jobs, exact payload bytes, string attempts', function () {
  this.timeout(30000);
  const redis = useRedisQueue();
  const temp = useTempDir('records', 'all');
  let queue: RedisQueue;
  let sqliteFile: string;
  let envFile: string;

  beforeEach(async () => {
    queue = redis.open({ laravel: 12, retryAfter: 90 });
    sqliteFile = join(temp.path, `${redis.prefix}.sqlite`);
    await createFailedJobsTable({ driver: 'sqlite', database: sqliteFile });
    envFile = join(temp.path, `${redis.prefix}.env`);
    mkdirSync(join(temp.path, redis.prefix));
  });

  function writeEnv(failed: 'database-uuids' | 'file'): void {
    const lines = [
      'APP_NAME=Shop',
      'QUEUE_CONNECTION=redis',
      'REDIS_HOST=127.0.0.1',
      `REDIS_PORT=${redis.port}`,
      `REDIS_PREFIX=${redis.prefix}`,
      'DB_CONNECTION=sqlite',
      `DB_DATABASE=${sqliteFile}`,
    ];
    lines.push(`QUEUE_FAILED_DRIVER=${failed}`);
    writeFileSync(envFile, `${lines.join('\n')}\n`);
  }

  async function larq(...args: string[]): Promise<{ code: number; out: string[]; err: string[] }> {
    const out: string[] = [];
    const err: string[] = [];
    const code = await main([...args, `--env=${envFile}`, `--app=${join(temp.path, redis.prefix)}`], {
      out: (l) => void out.push(l),
      err: (l) => void err.push(l),
    });
    return { code, out, err };
  }

  async function failAll(store: FailedJobProvider): Promise<string[]> {
    const handlers = new Handlers().string('App\\Jobs\\Boom@handle', () => Promise.reject(new Error('boom')));
    const worker = createWorker(
      queue,
      handlers,
      { sleep: 0, stopWhenEmpty: true, memory: 4096, maxTries: 1 },
      { failed: store },
    );
    const errors: string[] = [];
    worker.on('error', (e) => void errors.push(e.message));
    await worker.daemon('default');
    return errors;
  }

  // Where the file store lives in the app `larq --app` points at, as in Laravel.
  const filePath = () => join(temp.path, redis.prefix, 'storage', 'framework', 'cache', 'failed-jobs.json');
  const sqliteStore = () => new DatabaseFailedJobProvider({ driver: 'sqlite', database: sqliteFile });

  for (const kind of ['database-uuids', 'file'] as const) {
    it(`records a failing job without a uuid (another producer's raw push) in the ${kind} store`, async () => {
      const raw = '{"job":"App\\\\Jobs\\\\Boom@handle","data":{"n":1},"attempts":0}';
      await redis.client.rpush(`${redis.prefix}queues:default`, raw);
      const store = kind === 'file' ? new FileFailedJobProvider(filePath()) : sqliteStore();
      try {
        await failAll(store);
        const records = await store.all();
        expect(records.map((r) => r.payload)).to.deep.equal([raw]);
        expect(String(records[0].id)).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
        expect(await queue.size()).to.equal(0);
      } finally {
        await store.close();
      }
    });
  }

  it('keeps the exact bytes of a payload that is not valid UTF-8 in the SQLite record and through larq retry', async () => {
    const uuid = randomUUID();
    const bytes = payloadWith(uuid, INVALID_UTF8);
    await redis.client.rpush(`${redis.prefix}queues:default`, bytes);
    const store = sqliteStore();
    try {
      await failAll(store);
    } finally {
      await store.close();
    }
    const db = new Sqlite(sqliteFile);
    const row = db.prepare('SELECT payload FROM failed_jobs WHERE uuid = ?').get(uuid) as
      { payload: Buffer | string } | undefined;
    db.close();
    expect(row, 'the failure record').to.not.equal(undefined);
    expect(Buffer.from(row!.payload as Buffer).equals(bytes), 'record payload bytes').to.equal(true);

    writeEnv('database-uuids');
    const retried = await larq('retry', uuid);
    expect(retried.code, retried.err.join('\n')).to.equal(0);
    const [pushed] = await redis.client.lrangeBuffer(`${redis.prefix}queues:default`, 0, -1);
    expect(pushed?.equals(bytes), `retried bytes ${pushed?.toString('hex')}`).to.equal(true);
  });

  it('keeps a payload the file store cannot hold (not UTF-8) in Redis, byte for byte, listed by larq failed and retried by larq retry', async () => {
    const uuid = randomUUID();
    const bytes = payloadWith(uuid, INVALID_UTF8);
    await redis.client.rpush(`${redis.prefix}queues:default`, bytes);
    const store = new FileFailedJobProvider(filePath());
    const errors = await failAll(store);
    expect(await store.all()).to.deep.equal([]);
    expect(
      errors.some((m) => m.includes(uuid) && m.includes('App\\Jobs\\Boom@handle')),
      errors.join('\n'),
    ).to.equal(true);

    writeEnv('file');
    const listed = await larq('failed', '--json');
    const rows = JSON.parse(listed.out.join('\n')) as { id: string; queue: string; class: string }[];
    expect(rows.map((r) => [r.id, r.queue, r.class])).to.deep.equal([[uuid, 'default', 'App\\Jobs\\Boom@handle']]);

    const retried = await larq('retry', uuid);
    expect(retried.code, retried.err.join('\n')).to.equal(0);
    const [pushed] = await redis.client.lrangeBuffer(`${redis.prefix}queues:default`, 0, -1);
    expect(pushed?.equals(bytes), `retried bytes ${pushed?.toString('hex')}`).to.equal(true);
    expect(JSON.parse((await larq('failed', '--json')).out.join('\n'))).to.deep.equal([]);
  });

  it('lists and counts quarantined payloads with their reason in larq size, monitor and failed; forget and flush remove them', async () => {
    const uuid = randomUUID();
    const bad = ['not json', `{"uuid":"${uuid}","job":"App\\\\Jobs\\\\Boom@handle","data":{},"attempts":"many"}`];
    await redis.client.rpush(`${redis.prefix}queues:default`, ...bad);
    for (let i = 0; i < bad.length; i++) await queue.pop().catch(() => undefined);
    writeEnv('database-uuids');

    const sizes = JSON.parse((await larq('size', '--json')).out.join('\n')) as {
      queue: string;
      size: number;
      invalid: number;
      failed: number;
    }[];
    expect(sizes).to.deep.include({
      connection: 'redis',
      queue: 'default',
      size: 0,
      pending: 0,
      delayed: 0,
      reserved: 0,
      failed: 0,
      invalid: 2,
    });
    const monitor = await larq('monitor');
    expect(monitor.out[0]).to.match(
      /^Queue +Size +Pending +Delayed +Reserved +Failed +Invalid +Oldest pending +Status$/,
    );
    expect(monitor.out[1]).to.match(/^redis:default +0 +0 +0 +0 +0 +2 +N\/A +OK$/);

    const failed = await larq('failed', '--json');
    const rows = JSON.parse(failed.out.join('\n')) as { id: string; queue: string; class: string; kept: string }[];
    expect(rows.map((r) => [r.queue, r.kept])).to.deep.equal([
      ['default', 'quarantine'],
      ['default', 'quarantine'],
    ]);
    expect(rows[1]).to.include({ id: uuid, class: 'App\\Jobs\\Boom@handle' });
    expect(rows[0].id).to.match(/^invalid-[0-9a-f]{12}$/);
    const table = await larq('failed');
    expect(table.out[0]).to.match(/^ID +Connection +Queue +Class +Failed At +Kept$/);

    // The reason the pop script gave is kept with the payload (Lua's arithmetic error on "many").
    const { RedisFailedLists } = await import('../../../lib/failed/RedisFailedLists');
    const kept = await new RedisFailedLists(redis.client, queue.keys).all();
    expect(kept.map((k) => k.exception)).to.satisfy((texts: string[]) =>
      texts.every((t) => /could not reserve it \(.+\)/.test(t)),
    );
    expect(kept[1].exception).to.contain("arithmetic on field 'attempts'");

    const refused = await larq('retry', uuid);
    expect(refused.code).to.equal(1);
    expect(refused.err.join('\n')).to.contain('quarantined');
    expect((await larq('forget', rows[0].id)).code).to.equal(0);
    expect(await redis.client.llen(`${redis.prefix}queues:default:larq:invalid`)).to.equal(1);
    expect((await larq('flush')).code).to.equal(0);
    expect(await redis.client.exists(`${redis.prefix}queues:default:larq:invalid`)).to.equal(0);
  });

  it('leaves a failed job reserved and names it when neither the store nor Redis can keep it; it comes back after retry_after and fails as attempt 2', async () => {
    const short = redis.open({ laravel: 12, retryAfter: 1 });
    const uuid = randomUUID();
    await redis.client.rpush(
      `${redis.prefix}queues:default`,
      `{"uuid":"${uuid}","job":"App\\\\Jobs\\\\Boom@handle","data":{},"attempts":0}`,
    );
    // The failed list's key holds a string: RPUSH fails with WRONGTYPE. The store cannot be written either.
    await redis.client.set(`${redis.prefix}queues:default:larq:failed`, 'in the way');
    const refusing = {
      log: () => Promise.reject(new Error('failed_jobs is unwritable')),
    } as unknown as FailedJobProvider;
    const handlers = new Handlers().string('App\\Jobs\\Boom@handle', () => Promise.reject(new Error('boom')));
    const run = async () => {
      const worker = createWorker(
        short,
        handlers,
        { sleep: 0, stopWhenEmpty: true, memory: 4096, maxTries: 1 },
        { failed: refusing },
      );
      const errors: string[] = [];
      worker.on('error', (e) => void errors.push(e.message));
      await worker.daemon('default');
      return errors;
    };
    try {
      const first = await run();
      expect(
        first.filter((m) => m.includes(uuid) && m.includes('stays reserved')),
        first.join('\n'),
      ).to.have.length(1);
      expect(await redis.client.zcard(`${redis.prefix}queues:default:reserved`)).to.equal(1);

      await redis.client.del(`${redis.prefix}queues:default:larq:failed`);
      await new Promise((r) => setTimeout(r, 2100)); // past retry_after (1 s, whole seconds)
      const second = await run();
      expect(
        second.filter((m) => m.includes(uuid) && m.includes("larq's failed list")),
        second.join('\n'),
      ).to.have.length(1);
      expect(await redis.client.zcard(`${redis.prefix}queues:default:reserved`)).to.equal(0);
      const { RedisFailedLists } = await import('../../../lib/failed/RedisFailedLists');
      const [kept] = await new RedisFailedLists(redis.client, short.keys).all();
      // Counted as Laravel counts it: the reservation made it attempt 2, over maxTries 1.
      expect(JSON.parse(kept.payload)).to.include({ uuid, attempts: 1 });
      expect(kept.exception).to.match(/^MaxAttemptsExceededError: /);
    } finally {
      await short.close();
    }
  });

  it('larq failed --to-store moves the failures kept in Redis into the store once it can be written', async () => {
    const uuids = [randomUUID(), randomUUID()];
    const payloads = uuids.map(
      (u) => `{"uuid":"${u}","job":"App\\\\Jobs\\\\Boom@handle","data":{"s":"é"},"attempts":0}`,
    );
    await redis.client.rpush(`${redis.prefix}queues:default`, ...payloads);
    const refusing = {
      log: () => Promise.reject(new Error('failed_jobs is unwritable')),
    } as unknown as FailedJobProvider;
    await failAll(refusing);
    expect(await redis.client.llen(`${redis.prefix}queues:default:larq:failed`)).to.equal(2);

    writeEnv('database-uuids');
    const moved = await larq('failed', '--to-store', '--json');
    expect(moved.code, moved.err.join('\n')).to.equal(0);
    expect(moved.err).to.deep.equal(['Moved 2 failed jobs from Redis into the failed-job store.']);
    const rows = JSON.parse(moved.out.join('\n')) as { id: string; kept: string }[];
    expect(rows.map((r) => [r.id, r.kept]).sort()).to.deep.equal(uuids.map((u) => [u, 'store']).sort());
    expect(await redis.client.exists(`${redis.prefix}queues:default:larq:failed`)).to.equal(0);
    const store = sqliteStore();
    try {
      const records = await store.all();
      expect(records.map((r) => r.payload).sort()).to.deep.equal([...payloads].sort());
      expect(records.every((r) => r.exception.startsWith('Error: boom'))).to.equal(true);
    } finally {
      await store.close();
    }
  });

  it('larq failed --to-store exits non-zero and says how many stay in Redis when the store refuses some', async () => {
    const [text, bytes] = [randomUUID(), randomUUID()];
    await redis.client.rpush(
      `${redis.prefix}queues:default`,
      Buffer.from(`{"uuid":"${text}","job":"App\\\\Jobs\\\\Boom@handle","data":{},"attempts":0}`),
      payloadWith(bytes, INVALID_UTF8),
    );
    const refusing = {
      log: () => Promise.reject(new Error('failed_jobs is unwritable')),
    } as unknown as FailedJobProvider;
    await failAll(refusing);
    expect(await redis.client.llen(`${redis.prefix}queues:default:larq:failed`)).to.equal(2);

    // The file store cannot hold bytes that are not UTF-8: it takes one and refuses the other.
    writeEnv('file');
    const moved = await larq('failed', '--to-store', '--json');
    expect(moved.code).to.equal(1);
    expect(moved.err.join('\n')).to.include(`[${bytes}] stays in Redis`);
    expect(moved.err).to.include(
      'Moved 1 failed job from Redis into the failed-job store; 1 stays in Redis, refused by the store.',
    );
    const rows = JSON.parse(moved.out.join('\n')) as { id: string; kept: string }[];
    expect(rows.map((r) => [r.id, r.kept]).sort()).to.deep.equal(
      [
        [bytes, 'redis'],
        [text, 'store'],
      ].sort(),
    );
  });

  it('runs a job whose attempts is the string "0", as attempt 1 (PHP counts "0" + 1)', async () => {
    await redis.client.rpush(
      `${redis.prefix}queues:default`,
      `{"uuid":"${randomUUID()}","job":"App\\\\Jobs\\\\Ok@handle","data":{},"attempts":"0"}`,
    );
    const seen: number[] = [];
    const handlers = new Handlers().string('App\\Jobs\\Ok@handle', async (_data, ctx) => {
      seen.push(ctx.attempts);
      await ctx.delete();
    });
    const store = sqliteStore();
    try {
      const worker = createWorker(
        queue,
        handlers,
        { sleep: 0, stopWhenEmpty: true, memory: 4096, maxTries: 1 },
        { failed: store },
      );
      await worker.daemon('default');
      expect(seen).to.deep.equal([1]);
      expect(await store.all()).to.deep.equal([]);
      expect(await queue.size()).to.equal(0);
    } finally {
      await store.close();
    }
  });
});
