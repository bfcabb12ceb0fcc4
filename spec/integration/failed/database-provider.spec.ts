// Both SQL stores (database-uuids, database) on SQLite, MariaDB and PostgreSQL: what log() writes, the
// read paths, deletion, pruning, and that payload text survives byte for byte.
import { expect } from 'chai';
import { randomUUID } from 'crypto';
import { FakeClock } from '../../../lib/clock';
import { DatabaseFailedJobProvider } from '../../../lib/failed/DatabaseFailedJobProvider';
import { connectSql, createFailedJobsTable, type SqlClient } from '../../../lib/sql';
import { DATABASE_KINDS, freshTable, nativeClient, openTestDatabase, type TestDatabase } from '../../support/databases';
import { sameBytes, simplePayload, trickyPayload } from './support/payloads';

// 2023-11-14 22:13:20 UTC; 2023-11-15 03:43:20 in Asia/Kolkata (+05:30).
const T0 = 1_700_000_000;

for (const kind of DATABASE_KINDS) {
  for (const driver of ['database-uuids', 'database'] as const) {
    describe(`failed jobs: ${driver} store on ${kind}`, function () {
      let db: TestDatabase;
      let sql: SqlClient;
      let table: string;
      let clock: FakeClock;
      let store: DatabaseFailedJobProvider;
      const byUuid = driver === 'database-uuids';

      before(async function () {
        db = await openTestDatabase(this, kind);
        sql = connectSql(db.config);
      });

      after(async () => {
        await sql?.close();
        await db?.dispose();
      });

      beforeEach(async () => {
        table = freshTable();
        await createFailedJobsTable(sql, { table, uuid: byUuid });
        clock = new FakeClock(T0 * 1000);
        store = new DatabaseFailedJobProvider(sql, { driver, table, clock });
      });

      it('logs a failed job and finds it again with the exact payload', async () => {
        const uuid = randomUUID();
        const payload = trickyPayload(uuid);
        const id = await store.log(
          'redis',
          'emails',
          payload,
          'RuntimeException: boom in /app/Job.php:12\nStack trace:\n#0 {main}',
        );
        if (byUuid) expect(id).to.equal(uuid);
        else expect(id).to.be.a('number').and.to.be.greaterThan(0);

        const record = await store.find(id);
        expect(record).to.not.equal(null);
        expect(record!.id).to.equal(id);
        expect(record!.connection).to.equal('redis');
        expect(record!.queue).to.equal('emails');
        expect(sameBytes(record!.payload, payload), 'payload bytes').to.equal(true);
        expect(record!.exception).to.equal('RuntimeException: boom in /app/Job.php:12\nStack trace:\n#0 {main}');
        expect(record!.failed_at).to.equal('2023-11-14 22:13:20');
      });

      it('stores the payload column byte for byte, as the database itself holds it', async () => {
        const payload = trickyPayload();
        await store.log('redis', 'default', payload, 'E');
        const rows = await sql.select(`SELECT ${sql.quote('payload')} FROM ${sql.quote(table)}`);
        expect(sameBytes(String(rows[0].payload), payload)).to.equal(true);
        expect(String(rows[0].payload))
          .to.include(String.raw`\/path\/to`)
          .and.include(String.raw`\u0000`)
          .and.include('🎉');
      });

      it('writes an Error through formatException', async () => {
        const error = new TypeError('bad input');
        await store.log('redis', 'default', simplePayload(), error);
        const [record] = await store.all();
        expect(record.exception).to.match(/^TypeError: bad input in \/.+:\d+\nStack trace:\n#0 /);
        expect(record.exception).to.match(/\n#\d+ \{main\}$/);
      });

      it('writes failed_at in the configured timezone', async () => {
        const kolkata = new DatabaseFailedJobProvider(sql, { driver, table, clock, timezone: 'Asia/Kolkata' });
        const id = await kolkata.log('redis', 'default', simplePayload(), 'E');
        expect((await store.find(id))!.failed_at).to.equal('2023-11-15 03:43:20');
      });

      it('lists all records and ids newest first, and ids by queue', async () => {
        const a = await store.log('redis', 'one', simplePayload(), 'E');
        clock.advance(1);
        const b = await store.log('redis', 'two', simplePayload(), 'E');
        clock.advance(1);
        const c = await store.log('sqs', 'one', simplePayload(), 'E');
        expect((await store.all()).map((r) => r.id)).to.deep.equal([c, b, a]);
        expect(await store.ids()).to.deep.equal([c, b, a]);
        expect(await store.ids('one')).to.deep.equal([c, a]);
        expect(await store.ids('none')).to.deep.equal([]);
        const all = await store.all();
        expect(all[0]).to.include({ connection: 'sqs', queue: 'one', failed_at: '2023-11-14 22:13:22' });
        if (byUuid) expect(all.every((r) => r.uuid === r.id)).to.equal(true);
      });

      it('forgets one record', async () => {
        const a = await store.log('redis', 'default', simplePayload(), 'E');
        const b = await store.log('redis', 'default', simplePayload(), 'E');
        expect(await store.forget(a)).to.equal(true);
        expect(await store.forget(a)).to.equal(false);
        expect(await store.find(a)).to.equal(null);
        expect(await store.ids()).to.deep.equal([b]);
      });

      it('finds nothing for an unknown or malformed id', async () => {
        await store.log('redis', 'default', simplePayload(), 'E');
        expect(await store.find(byUuid ? randomUUID() : 999999)).to.equal(null);
        expect(await store.find('not-a-number; DROP')).to.equal(null);
        expect(await store.forget('not-a-number')).to.equal(false);
        expect(await store.all()).to.have.length(1);
      });

      it('flushes everything, or only records at least N hours old', async () => {
        const old = await store.log('redis', 'default', simplePayload(), 'E');
        clock.advance(3 * 3600);
        const edge = await store.log('redis', 'default', simplePayload(), 'E');
        clock.advance(2 * 3600);
        const fresh = await store.log('redis', 'default', simplePayload(), 'E');
        // now = T0 + 5h: "2 hours" reaches back to T0 + 3h, and Laravel's flush compares with <=.
        expect(await store.flush(2)).to.equal(2);
        expect(await store.ids()).to.deep.equal([fresh]);
        expect([old, edge]).to.not.include(fresh);
        expect(await store.flush()).to.equal(1);
        expect(await store.all()).to.deep.equal([]);
      });

      it('prunes records that failed strictly before the date', async () => {
        const a = await store.log('redis', 'default', simplePayload(), 'E');
        clock.advance(60);
        const b = await store.log('redis', 'default', simplePayload(), 'E');
        clock.advance(60);
        const c = await store.log('redis', 'default', simplePayload(), 'E');
        expect(await store.prune(new Date((T0 + 60) * 1000))).to.equal(1);
        expect(await store.ids()).to.deep.equal([c, b]);
        expect(await store.prune(new Date((T0 + 10_000) * 1000))).to.equal(2);
        expect(await store.all()).to.deep.equal([]);
        expect(await store.find(a)).to.equal(null);
      });

      it('prunes in the app timezone', async () => {
        const kolkata = new DatabaseFailedJobProvider(sql, { driver, table, clock, timezone: 'Asia/Kolkata' });
        await kolkata.log('redis', 'default', simplePayload(), 'E');
        // The stored text is 03:43:20 local; a cutoff one second later in the same zone removes it,
        // one second earlier keeps it, wherever the Node process thinks it is.
        expect(await kolkata.prune(new Date((T0 - 1) * 1000))).to.equal(0);
        expect(await kolkata.prune(new Date((T0 + 1) * 1000))).to.equal(1);
      });

      it('prunes more than one chunk of 1000 rows', async function () {
        this.timeout(60000);
        const q = (c: string) => sql.quote(c);
        const cols = ['connection', 'queue', 'payload', 'exception', 'failed_at', ...(byUuid ? ['uuid'] : [])];
        const tuples: string[] = [];
        for (let i = 0; i < 2345; i++) {
          tuples.push(`('redis', 'default', '{"n":${i}}', 'E', '2020-01-01 00:00:00'${byUuid ? `, 'u-${i}'` : ''})`);
        }
        await sql.execute(`INSERT INTO ${q(table)} (${cols.map(q).join(', ')}) VALUES ${tuples.join(', ')}`);
        const keep = await store.log('redis', 'default', simplePayload(), 'E');
        expect(await store.prune(new Date('2021-01-01T00:00:00Z'))).to.equal(2345);
        expect(await store.ids()).to.deep.equal([keep]);
      });

      if (byUuid) {
        it('keeps uuids unique: a second record for the same job is refused by the database', async () => {
          const uuid = randomUUID();
          await store.log('redis', 'default', simplePayload(uuid), 'first');
          let failed: unknown;
          await store.log('redis', 'default', simplePayload(uuid), 'second').catch((e: unknown) => (failed = e));
          expect(failed, 'duplicate uuid insert').to.be.instanceOf(Error);
          expect((await store.all()).map((r) => r.exception)).to.deep.equal(['first']);
        });

        // Issue 21 finding 8: these were refused (Laravel's insert fails on the NOT NULL uuid), which dropped
        // the job. Each is now recorded under a generated uuid, with its payload unchanged.
        it('records a payload without a uuid, or not JSON at all, under a generated uuid', async () => {
          const bad = ['{"job":"x","attempts":0}', 'not json', '{"uuid":null}', '[1]'];
          const ids: (string | number)[] = [];
          for (const payload of bad) ids.push(await store.log('redis', 'default', payload, 'E'));
          expect(new Set(ids).size).to.equal(bad.length);
          for (const [i, id] of ids.entries()) {
            expect(id).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
            expect((await store.find(id))!.payload).to.equal(bad[i]);
          }
          expect(await store.forget(ids[0])).to.equal(true);
          expect(await store.all()).to.have.length(bad.length - 1);
        });
      } else {
        it('accepts a row id given as text (as artisan passes it) in the database store', async () => {
          const id = await store.log('redis', 'default', simplePayload(), 'E');
          expect((await store.find(String(id)))!.id).to.equal(id);
          expect(await store.forget(String(id))).to.equal(true);
        });

        it('gives every failure its own row, even for the same job twice and without a uuid', async () => {
          const payload = simplePayload();
          const a = await store.log('redis', 'default', payload, 'E');
          const b = await store.log('redis', 'default', payload, 'E');
          const c = await store.log('redis', 'default', 'not even json', 'E');
          expect(new Set([a, b, c]).size).to.equal(3);
          expect((await store.find(c))!.payload).to.equal('not even json');
        });
      }

      it("works on a SqlClient of the caller's and leaves it open", async () => {
        const own = connectSql(db.config);
        const s = new DatabaseFailedJobProvider(own, { driver, table, clock });
        await s.log('redis', 'default', simplePayload(), 'E');
        await s.close();
        expect(await own.select(`SELECT 1 AS one`)).to.have.length(1);
        await own.close();
      });

      it("works on a driver client of the caller's and leaves it open", async () => {
        const native = await nativeClient(db);
        try {
          const s = new DatabaseFailedJobProvider(native.config, { driver, table, clock });
          const payload = trickyPayload();
          const id = await s.log('redis', 'default', payload, 'E');
          expect(sameBytes((await s.find(id))!.payload, payload)).to.equal(true);
          expect((await s.find(id))!.failed_at).to.equal('2023-11-14 22:13:20');
          await s.close();
          // Still usable after the store closed.
          expect(await new DatabaseFailedJobProvider(native.config, { driver, table }).ids()).to.deep.equal([id]);
        } finally {
          await native.close();
        }
      });

      it('opens and closes its own connection from settings', async () => {
        const s = new DatabaseFailedJobProvider(db.config, { driver, table, clock });
        const id = await s.log('redis', 'default', trickyPayload(), 'E');
        expect((await s.find(id))!.queue).to.equal('default');
        await s.close();
        expect(await store.ids()).to.deep.equal([id]);
      });
    });
  }
}
