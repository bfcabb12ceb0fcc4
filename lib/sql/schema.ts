// The tables larq's database stores use, for setups without Laravel's migrations (and for the specs), in
// the column types Laravel's schema grammars give them: failed_jobs (the 8.x-12.46 stub, or with
// `uuid: false` the older shape the `database` driver writes to) and the cache migration's `cache` and
// `cache_locks` (8.x-13.x).
import { connectSql } from './connect';
import { indexName, quoteIdentifier } from './dialect';
import type { SqlClient, SqlConnectionConfig, SqlDialect } from './SqlClient';

/** Options of createFailedJobsTable. */
export interface CreateFailedJobsTableOptions {
  /** Table name; default "failed_jobs". */
  table?: string;
  /**
   * Include the unique `uuid` column (Laravel 8+ stub, needed by database-uuids); default true. The
   * `database` driver inserts no uuid, so on a table with this NOT NULL column its inserts fail, as in Laravel.
   */
  uuid?: boolean;
  /** Do nothing when the table already exists; default false. */
  ifNotExists?: boolean;
}

/** Options of createCacheTables. */
export interface CreateCacheTablesOptions {
  /** The cache table (`stores.database.table`); default "cache". */
  table?: string;
  /** The lock table (`lock_table`); default "cache_locks". */
  lockTable?: string;
}

// failed_jobs column types by dialect, in the stub's column order, and the table options after them.
const FAILED_JOBS: Record<
  SqlDialect,
  { id: string; uuid: string; text: string; long: string; failedAt: string; tail: string }
> = {
  sqlite: {
    id: 'integer primary key autoincrement not null',
    uuid: 'varchar not null',
    text: 'text not null',
    long: 'text not null',
    failedAt: 'datetime not null default CURRENT_TIMESTAMP',
    tail: '',
  },
  mysql: {
    id: 'bigint unsigned not null auto_increment primary key',
    uuid: 'varchar(255) not null',
    text: 'text not null',
    long: 'longtext not null',
    failedAt: 'timestamp not null default CURRENT_TIMESTAMP',
    tail: " DEFAULT CHARACTER SET utf8mb4 COLLATE 'utf8mb4_unicode_ci'",
  },
  pgsql: {
    id: 'bigserial primary key not null',
    uuid: 'varchar(255) not null',
    text: 'text not null',
    long: 'text not null',
    failedAt: 'timestamp(0) without time zone not null default CURRENT_TIMESTAMP',
    tail: '',
  },
};

/** The statements creating Laravel's failed_jobs table (8.x stub), or the pre-8 shape without `uuid`. */
export function failedJobsTableSql(dialect: SqlDialect, table = 'failed_jobs', withUuid = true): string[] {
  const q = (name: string) => quoteIdentifier(dialect, name);
  const types = FAILED_JOBS[dialect];
  const columns: [string, string][] = [
    ['id', types.id],
    ...(withUuid ? [['uuid', types.uuid] as [string, string]] : []),
    ['connection', types.text],
    ['queue', types.text],
    ['payload', types.long],
    ['exception', types.long],
    ['failed_at', types.failedAt],
  ];
  const t = q(table);
  const statements = [
    `CREATE TABLE ${t} (${columns.map(([name, type]) => `${q(name)} ${type}`).join(', ')})${types.tail}`,
  ];
  if (withUuid) {
    const index = q(indexName(table, 'uuid', 'unique'));
    const unique: Record<SqlDialect, string> = {
      sqlite: `CREATE UNIQUE INDEX ${index} ON ${t} ("uuid")`,
      mysql: `ALTER TABLE ${t} ADD UNIQUE ${index} (\`uuid\`)`,
      pgsql: `ALTER TABLE ${t} ADD CONSTRAINT ${index} UNIQUE ("uuid")`,
    };
    statements.push(unique[dialect]);
  }
  return statements;
}

/** The CREATE TABLE statements (IF NOT EXISTS) for the cache table and its lock table. */
export function cacheTableSql(dialect: SqlDialect, table = 'cache', lockTable = 'cache_locks'): string[] {
  const q = (name: string) => quoteIdentifier(dialect, name);
  // Laravel's `string` is varchar(255) on MySQL and PostgreSQL, plain varchar on SQLite.
  const str = dialect === 'sqlite' ? 'varchar' : 'varchar(255)';
  const text = dialect === 'mysql' ? 'mediumtext' : 'text';
  const int = dialect === 'mysql' ? 'int' : 'integer';
  const tail = dialect === 'mysql' ? " default character set utf8mb4 collate 'utf8mb4_unicode_ci'" : '';
  return [
    `create table if not exists ${q(table)} (${q('key')} ${str} not null, ${q('value')} ${text} not null, ${q('expiration')} ${int} not null, primary key (${q('key')}))${tail}`,
    `create table if not exists ${q(lockTable)} (${q('key')} ${str} not null, ${q('owner')} ${str} not null, ${q('expiration')} ${int} not null, primary key (${q('key')}))${tail}`,
  ];
}

/** Create the failed_jobs table in the dialect of `connection` (a config or an open SqlClient). */
export async function createFailedJobsTable(
  connection: SqlConnectionConfig | SqlClient,
  opts: CreateFailedJobsTableOptions = {},
): Promise<void> {
  const table = opts.table ?? 'failed_jobs';
  await withClient(connection, 'createFailedJobsTable', async (client) => {
    if (opts.ifNotExists && (await tableExists(client, table))) return;
    for (const statement of failedJobsTableSql(client.dialect, table, opts.uuid ?? true))
      await client.execute(statement);
  });
}

/** Create the cache and lock tables in the dialect of `connection`, unless they exist. */
export async function createCacheTables(
  connection: SqlConnectionConfig | SqlClient,
  opts: CreateCacheTablesOptions = {},
): Promise<void> {
  await withClient(connection, 'createCacheTables', async (client) => {
    for (const statement of cacheTableSql(client.dialect, opts.table, opts.lockTable)) await client.execute(statement);
  });
}

// Run `fn` on the connection, closing it afterwards if it was opened here.
async function withClient(
  connection: SqlConnectionConfig | SqlClient,
  feature: string,
  fn: (client: SqlClient) => Promise<void>,
): Promise<void> {
  const client = connectSql(connection, { feature });
  try {
    await fn(client);
  } finally {
    await client.close();
  }
}

async function tableExists(client: SqlClient, table: string): Promise<boolean> {
  // Selecting nothing from the table is portable; only a missing table makes it fail.
  try {
    await client.select(`SELECT 1 FROM ${client.quote(table)} WHERE 1 = 0`);
    return true;
  } catch {
    return false;
  }
}
