// MySQL and MariaDB through mysql2's promise API. Timestamps are read with dateStrings so failed_at comes
// back as the text Laravel wrote, not as a JS Date shifted through the Node process's time zone.
import type * as Mysql2 from 'mysql2/promise';
import { loadDriver } from './loadDriver';
import { indexName, quoteParts, type MysqlClientLike, type SqlClient, type SqlRow, type SqlValue } from './SqlClient';

/** What openMysql needs to open a pool. */
export interface MysqlSettings {
  host?: string;
  port?: number;
  socketPath?: string;
  user?: string;
  password?: string;
  database: string;
}

/** Open a small mysql2 pool (ended again by close()). */
export function openMysql(settings: MysqlSettings): SqlClient {
  const mysql = loadDriver<typeof Mysql2>('mysql2/promise', 'The mysql failed-job store');
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

/** Wrap a mysql2/promise Connection or Pool; `closeIt` runs on close() (nothing for a caller's client). */
export function mysqlClient(db: MysqlClientLike, closeIt: () => Promise<void> = async () => undefined): SqlClient {
  const run = async (sql: string, params: SqlValue[]): Promise<unknown> => (await db.query({ sql, values: params, dateStrings: true }))[0];
  return {
    dialect: 'mysql',
    quote: (identifier) => quoteParts(identifier, '`'),
    param: () => '?',
    async select(sql: string, params: SqlValue[] = []): Promise<SqlRow[]> {
      return (await run(sql, params)) as SqlRow[];
    },
    async execute(sql: string, params: SqlValue[] = []): Promise<number> {
      return ((await run(sql, params)) as { affectedRows: number }).affectedRows;
    },
    async insertGetId(sql: string, params: SqlValue[]): Promise<number | string> {
      return ((await run(sql, params)) as { insertId: number | string }).insertId;
    },
    deleteChunkSql(table, where, limit, idColumn) {
      // MySQL has DELETE ... LIMIT but refuses LIMIT inside an IN subquery, the other dialects' way.
      return `DELETE FROM ${quoteParts(table, '`')} WHERE ${where} ORDER BY ${quoteParts(idColumn, '`')} LIMIT ${limit}`;
    },
    failedJobsTableSql(table, withUuid) {
      const t = quoteParts(table, '`');
      const columns = [
        '`id` bigint unsigned not null auto_increment primary key',
        ...(withUuid ? ['`uuid` varchar(255) not null'] : []),
        '`connection` text not null',
        '`queue` text not null',
        '`payload` longtext not null',
        '`exception` longtext not null',
        '`failed_at` timestamp not null default CURRENT_TIMESTAMP',
      ];
      const statements = [`CREATE TABLE ${t} (${columns.join(', ')}) DEFAULT CHARACTER SET utf8mb4 COLLATE 'utf8mb4_unicode_ci'`];
      if (withUuid) statements.push(`ALTER TABLE ${t} ADD UNIQUE ${quoteParts(indexName(table, 'uuid', 'unique'), '`')} (\`uuid\`)`);
      return statements;
    },
    close: closeIt,
  };
}
