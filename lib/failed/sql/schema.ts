// The failed_jobs table for users without Laravel's migrations (and for the specs): the columns of the
// 8.x-12.46 migration stub, or with `uuid: false` the older shape the `database` driver writes to.
import { connectSql } from './connect';
import { isSqlClient, type SqlClient, type SqlConnectionConfig } from './SqlClient';

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

/** Create the failed_jobs table in the dialect of `connection` (a config or an open SqlClient). */
export async function createFailedJobsTable(connection: SqlConnectionConfig | SqlClient, opts: CreateFailedJobsTableOptions = {}): Promise<void> {
  const table = opts.table ?? 'failed_jobs';
  const owned = !isSqlClient(connection);
  const client = isSqlClient(connection) ? connection : connectSql(connection);
  try {
    if (opts.ifNotExists && (await tableExists(client, table))) return;
    for (const statement of client.failedJobsTableSql(table, opts.uuid ?? true)) await client.execute(statement);
  } finally {
    if (owned) await client.close();
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
