// MySQL and MariaDB through mysql2's promise API. Timestamps are read with dateStrings so failed_at comes
// back as the text Laravel wrote, not as a JS Date shifted through the Node process's time zone.
import type * as Mysql2 from 'mysql2/promise';
import { pooled, serialized, sqlClient } from './client';
import { loadDriver } from './loadDriver';
import type { MysqlClientLike, MysqlSettings, SqlClient, SqlRow, SqlRunner, SqlValue } from './SqlClient';

/** A mysql2/promise Pool: it lends out connections of its own. */
interface MysqlPoolLike extends MysqlClientLike {
  getConnection(): Promise<MysqlClientLike & { release(): void }>;
}

/** Open a small mysql2 pool (ended again by close()). */
export function openMysql(settings: MysqlSettings, feature: string): SqlClient {
  const mysql = loadDriver<typeof Mysql2>('mysql2/promise', feature);
  const pool = mysql.createPool({
    host: settings.host ?? '127.0.0.1',
    port: settings.port ?? 3306,
    socketPath: settings.socketPath,
    user: settings.user ?? 'root',
    password: settings.password ?? '',
    database: settings.database,
    // utf8mb4 as Laravel's connector sets it: payloads may hold any character, emoji included.
    charset: 'utf8mb4_unicode_ci',
    connectionLimit: 4,
  });
  return mysqlClient(pool, () => pool.end());
}

/** Wrap a mysql2/promise Connection or Pool; `close` runs on close() (nothing for a caller's client). */
export function mysqlClient(db: MysqlClientLike, close: () => Promise<void> = async () => undefined): SqlClient {
  const sessions =
    typeof (db as MysqlPoolLike).getConnection === 'function'
      ? pooled(mysqlRunner(db), async () => {
          const conn = await (db as MysqlPoolLike).getConnection();
          return { runner: mysqlRunner(conn), release: () => conn.release() };
        })
      : serialized(mysqlRunner(db));
  return sqlClient('mysql', sessions, close);
}

function mysqlRunner(db: MysqlClientLike): SqlRunner {
  const run = async (sql: string, params: readonly SqlValue[]): Promise<unknown> =>
    (await db.query({ sql, values: [...params], dateStrings: true }))[0];
  return {
    select: async (sql, params = []) => (await run(sql, params)) as SqlRow[],
    execute: async (sql, params = []) => ((await run(sql, params)) as { affectedRows: number }).affectedRows,
    insertGetId: async (sql, params) => ((await run(sql, params)) as { insertId: number | string }).insertId,
  };
}
