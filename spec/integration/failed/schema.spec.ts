// createFailedJobsTable on each database: the 8.x stub's columns (`Queue/Console/stubs/failed_jobs.stub`) with the types Laravel's
// schema grammars give them. SQLite is also compared with Laravel's own schema builder in
// laravel-interop.spec.ts; PHP here cannot reach MariaDB or PostgreSQL, so those are checked against
// the types the stub's Blueprint calls map to.
import { expect } from 'chai';
import { connectSql, createFailedJobsTable, type SqlClient } from '../../../lib/sql';
import { freshTable, openTestDatabase, type TestDatabase } from '../../support/databases';

describe('failed jobs: createFailedJobsTable on mariadb', function () {
  let db: TestDatabase;
  let sql: SqlClient;

  before(async function () {
    db = await openTestDatabase(this, 'mariadb');
    sql = connectSql(db.config);
  });

  after(async () => {
    await sql?.close();
    await db?.dispose();
  });

  async function columns(table: string): Promise<unknown[]> {
    return sql.select(
      `SELECT COLUMN_NAME AS name, COLUMN_TYPE AS type, IS_NULLABLE AS nullable, COLUMN_DEFAULT AS dflt, EXTRA AS extra, COLUMN_KEY AS ckey
       FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION`,
      [table],
    );
  }

  it('makes bigint unsigned auto-increment id, unique varchar(255) uuid, text, longtext and timestamp columns', async () => {
    const table = freshTable();
    await createFailedJobsTable(sql, { table });
    const cols = (await columns(table)) as {
      name: string;
      type: string;
      nullable: string;
      dflt: string | null;
      extra: string;
      ckey: string;
    }[];
    expect(cols.map((c) => [c.name, c.type, c.nullable])).to.deep.equal([
      ['id', 'bigint(20) unsigned', 'NO'],
      ['uuid', 'varchar(255)', 'NO'],
      ['connection', 'text', 'NO'],
      ['queue', 'text', 'NO'],
      ['payload', 'longtext', 'NO'],
      ['exception', 'longtext', 'NO'],
      ['failed_at', 'timestamp', 'NO'],
    ]);
    expect(cols[0]).to.include({ extra: 'auto_increment', ckey: 'PRI' });
    expect(cols[1].ckey).to.equal('UNI');
    expect(String(cols[6].dflt).toLowerCase()).to.match(/^current_timestamp(\(\))?$/);
    const [index] = await sql.select(
      `SELECT INDEX_NAME AS name, NON_UNIQUE AS nonUnique FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? AND COLUMN_NAME = 'uuid'`,
      [table],
    );
    expect(index).to.deep.equal({ name: `${table}_uuid_unique`, nonUnique: 0 });
    const [charset] = await sql.select(
      `SELECT TABLE_COLLATION AS c FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ?`,
      [table],
    );
    expect(charset.c).to.equal('utf8mb4_unicode_ci');
  });

  it('leaves out uuid on request, and does nothing for an existing table with ifNotExists', async () => {
    const table = freshTable();
    await createFailedJobsTable(db.config, { table, uuid: false });
    expect(((await columns(table)) as { name: string }[]).map((c) => c.name)).to.deep.equal([
      'id',
      'connection',
      'queue',
      'payload',
      'exception',
      'failed_at',
    ]);
    await createFailedJobsTable(db.config, { table, ifNotExists: true });
    let failed: unknown;
    await createFailedJobsTable(db.config, { table }).catch((e: unknown) => (failed = e));
    expect(failed).to.be.instanceOf(Error);
  });
});

describe('failed jobs: createFailedJobsTable on pgsql', function () {
  let db: TestDatabase;
  let sql: SqlClient;

  before(async function () {
    db = await openTestDatabase(this, 'pgsql');
    sql = connectSql(db.config);
  });

  after(async () => {
    await sql?.close();
    await db?.dispose();
  });

  async function columns(table: string): Promise<
    {
      name: string;
      type: string;
      nullable: string;
      dflt: string | null;
      len: string | null;
      precision: string | null;
    }[]
  > {
    return (await sql.select(
      `SELECT column_name AS name, data_type AS type, is_nullable AS nullable, column_default AS dflt,
              character_maximum_length AS len, datetime_precision AS precision
       FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position`,
      [table],
    )) as {
      name: string;
      type: string;
      nullable: string;
      dflt: string | null;
      len: string | null;
      precision: string | null;
    }[];
  }

  it('makes bigserial id, unique varchar(255) uuid, text columns and timestamp(0) without time zone', async () => {
    const table = freshTable();
    await createFailedJobsTable(sql, { table });
    const cols = await columns(table);
    expect(cols.map((c) => [c.name, c.type, c.nullable])).to.deep.equal([
      ['id', 'bigint', 'NO'],
      ['uuid', 'character varying', 'NO'],
      ['connection', 'text', 'NO'],
      ['queue', 'text', 'NO'],
      ['payload', 'text', 'NO'],
      ['exception', 'text', 'NO'],
      ['failed_at', 'timestamp without time zone', 'NO'],
    ]);
    expect(cols[0].dflt).to.equal(`nextval('${table}_id_seq'::regclass)`);
    expect(cols[1].len).to.equal('255');
    expect(cols[6]).to.include({ precision: '0', dflt: 'CURRENT_TIMESTAMP' });
    const constraints = await sql.select(
      `SELECT constraint_name AS name, constraint_type AS type FROM information_schema.table_constraints WHERE table_schema = current_schema() AND table_name = $1 ORDER BY constraint_type`,
      [table],
    );
    expect(constraints.filter((c) => c.type !== 'CHECK')).to.deep.equal([
      { name: `${table}_pkey`, type: 'PRIMARY KEY' },
      { name: `${table}_uuid_unique`, type: 'UNIQUE' },
    ]);
  });

  it('leaves out uuid on request, and does nothing for an existing table with ifNotExists', async () => {
    const table = freshTable();
    await createFailedJobsTable(db.config, { table, uuid: false });
    expect((await columns(table)).map((c) => c.name)).to.deep.equal([
      'id',
      'connection',
      'queue',
      'payload',
      'exception',
      'failed_at',
    ]);
    await createFailedJobsTable(db.config, { table, ifNotExists: true });
    let failed: unknown;
    await createFailedJobsTable(db.config, { table }).catch((e: unknown) => (failed = e));
    expect(failed).to.be.instanceOf(Error);
  });
});
