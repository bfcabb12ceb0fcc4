// larq's SQL stores against real Laravel's own DatabaseUuidFailedJobProvider and DatabaseFailedJobProvider
// (compat-fixtures/php/failed-provider.php), on every line of LARAVEL_LINES (8.83, 12.67, 13.26), on one
// SQLite file: rows written by either side are read,
// forgotten and pruned by the other, and larq's table is the one Laravel's migration stub makes.
// SQLite only: Debian's PHP here has no pdo_mysql / pdo_pgsql (php-mysql, php-pgsql).
import { expect } from 'chai';
import { randomUUID } from 'crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import Sqlite from 'better-sqlite3';
import { FakeClock } from '../../../lib/clock';
import { DatabaseFailedJobProvider } from '../../../lib/failed/DatabaseFailedJobProvider';
import { createFailedJobsTable } from '../../../lib/sql';
import { LARAVEL_LINES, laravelHarness, requirePhp } from '../../support/php';
import { sameBytes, trickyPayload } from './support/payloads';

const T0 = 1_700_000_000; // 2023-11-15 03:43:20 in Asia/Kolkata
const TZ = 'Asia/Kolkata';

/** Laravel's record as failed-provider.php prints it (stdClass rows). */
interface PhpRecord {
  id: string | number;
  uuid?: string;
  connection: string;
  queue: string;
  payload: string;
  exception: string;
  failed_at: string;
}

// PHP's Throwable::__toString shape (and larq's): head line, "Stack trace:", #n frames, {main}.
const PHP_EXCEPTION_SHAPE = /^[\w\\]+(?:: [^]*?)? in [^\n]+:\d+\nStack trace:\n(?:#\d+ [^\n]+\(\)\n)*#\d+ \{main\}$/;

for (const line of LARAVEL_LINES)
  describe(`failed jobs: interop with Laravel ${line} (SQLite)`, function () {
    let dir: string;
    let n = 0;
    const { runPhp } = laravelHarness(line);

    before(function () {
      requirePhp(this, line);
      dir = mkdtempSync(join(tmpdir(), 'larq-failed-php-'));
    });

    after(() => {
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    /** A new empty SQLite file (Laravel's connector refuses a missing one). */
    function newFile(): string {
      const file = join(dir, `db-${++n}.sqlite`);
      writeFileSync(file, '');
      return file;
    }

    async function php<T>(
      file: string,
      driver: string,
      command: string,
      arg?: object,
      env: Record<string, string> = {},
    ): Promise<T> {
      const res = await runPhp('failed-provider.php', arg === undefined ? [command] : [command, JSON.stringify(arg)], {
        LARQ_SQLITE: file,
        LARQ_FAILED_DRIVER: driver,
        LARQ_TZ: TZ,
        ...env,
      });
      if (res.code !== 0) throw new Error(`failed-provider.php ${command} exited ${res.code}:\n${res.stderr}`);
      return JSON.parse(res.stdout) as T;
    }

    for (const driver of ['database-uuids', 'database'] as const) {
      describe(driver, () => {
        let file: string;
        let clock: FakeClock;
        let store: DatabaseFailedJobProvider;

        beforeEach(async () => {
          file = newFile();
          await createFailedJobsTable({ driver: 'sqlite', database: file }, { uuid: driver === 'database-uuids' });
          clock = new FakeClock(T0 * 1000);
          store = new DatabaseFailedJobProvider({ driver: 'sqlite', database: file }, { driver, clock, timezone: TZ });
        });

        afterEach(async () => store.close());

        it('Laravel reads a row larq wrote: same id, payload, exception and failed_at', async () => {
          const uuid = randomUUID();
          const payload = trickyPayload(uuid);
          const cause = new Error('connection refused');
          const id = await store.log('redis', 'emails', payload, new TypeError('bad job', { cause }));
          const mine = (await store.find(id))!;

          const all = await php<PhpRecord[]>(file, driver, 'all');
          expect(all).to.have.length(1);
          const found = await php<PhpRecord>(file, driver, 'find', { id });
          for (const theirs of [all[0], found]) {
            expect(theirs.id).to.equal(driver === 'database-uuids' ? uuid : id);
            expect(theirs).to.include({
              connection: 'redis',
              queue: 'emails',
              failed_at: '2023-11-15 03:43:20',
              exception: mine.exception,
            });
            expect(sameBytes(theirs.payload, payload), 'payload bytes').to.equal(true);
            // Laravel's uuid store shows the uuid as the id and drops the column.
            if (driver === 'database-uuids') expect(theirs).to.not.have.property('uuid');
          }
          expect(mine.exception).to.match(PHP_EXCEPTION_SHAPE);
          expect(mine.exception).to.match(/^Error: connection refused in [^]*\n\nNext TypeError: bad job in /);
        });

        it('Laravel forgets a row larq wrote (queue:forget, and queue:retry after pushing)', async () => {
          const id = await store.log('redis', 'default', trickyPayload(), 'E');
          expect(await php<boolean>(file, driver, 'forget', { id })).to.equal(true);
          expect(await store.find(id)).to.equal(null);
          expect(await php<boolean>(file, driver, 'forget', { id })).to.equal(false);
        });

        it('larq reads a row Laravel wrote', async () => {
          const uuid = randomUUID();
          const payload = trickyPayload(uuid);
          const logged = await php<{ id: string | number; exception: string }>(
            file,
            driver,
            'log',
            {
              connection: 'redis',
              queue: 'default',
              payload_b64: Buffer.from(payload, 'utf8').toString('base64'),
              message: 'from PHP é',
            },
            { LARQ_NOW: String(T0) },
          );
          if (driver === 'database-uuids') expect(logged.id).to.equal(uuid);
          const record = (await store.find(logged.id))!;
          expect(record.id).to.equal(logged.id);
          expect(sameBytes(record.payload, payload), 'payload bytes').to.equal(true);
          expect(record).to.include({
            connection: 'redis',
            queue: 'default',
            exception: logged.exception,
            failed_at: '2023-11-15 03:43:20',
          });
          expect(logged.exception).to.match(PHP_EXCEPTION_SHAPE);

          // Newest first across both writers, then larq forgets Laravel's row.
          clock.advance(1);
          const mine = await store.log('redis', 'default', trickyPayload(), 'E');
          expect(await store.ids()).to.deep.equal([mine, logged.id]);
          expect((await php<PhpRecord[]>(file, driver, 'all')).map((r) => r.id)).to.deep.equal([mine, logged.id]);
          expect(await store.forget(logged.id)).to.equal(true);
          expect(await php<PhpRecord | null>(file, driver, 'find', { id: logged.id })).to.equal(null);
        });

        it('Laravel prunes larq rows and larq prunes Laravel rows with the same cutoffs', async () => {
          const early = await store.log('redis', 'default', trickyPayload(), 'E');
          clock.advance(120);
          const late = await store.log('redis', 'default', trickyPayload(), 'E');
          expect(await php<number>(file, driver, 'prune', { before: T0 + 60 })).to.equal(1);
          expect(await store.ids()).to.deep.equal([late]);
          expect(await store.find(early)).to.equal(null);

          const payload = trickyPayload();
          await php(
            file,
            driver,
            'log',
            { connection: 'redis', queue: 'q', payload_b64: Buffer.from(payload).toString('base64'), message: 'm' },
            { LARQ_NOW: String(T0 + 300) },
          );
          // failed_at is strictly compared: the same second stays, the next one goes.
          expect(await store.prune(new Date((T0 + 300) * 1000))).to.equal(1);
          expect(await store.prune(new Date((T0 + 301) * 1000))).to.equal(1);
          expect(await php<PhpRecord[]>(file, driver, 'all')).to.deep.equal([]);
        });
      });
    }

    describe('createFailedJobsTable on SQLite', () => {
      for (const uuid of [true, false]) {
        it(`makes the table Laravel's schema builder makes from the 8.x stub${uuid ? '' : ' without uuid'}`, async () => {
          const theirs = newFile();
          const mine = newFile();
          await php(theirs, 'database-uuids', 'create-table', { uuid });
          await createFailedJobsTable({ driver: 'sqlite', database: mine }, { uuid });
          expect(describeTable(mine)).to.deep.equal(describeTable(theirs));
        });
      }
    });
  });

/** Columns and indexes of failed_jobs as SQLite reports them. */
function describeTable(file: string): unknown {
  const db = new Sqlite(file, { readonly: true });
  try {
    const columns = db.prepare('PRAGMA table_info("failed_jobs")').all();
    const indexes = (
      db.prepare('PRAGMA index_list("failed_jobs")').all() as { name: string; unique: number; origin: string }[]
    ).map((ix) => ({
      name: ix.name,
      unique: ix.unique,
      origin: ix.origin,
      columns: (db.prepare(`PRAGMA index_info("${ix.name}")`).all() as { name: string }[]).map((c) => c.name),
    }));
    const autoincrement = db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name = 'sqlite_sequence'").get();
    return { columns, indexes, autoincrement };
  } finally {
    db.close();
  }
}
