// PostgreSQL through node-postgres. Every column is read as the server's text (a per-query type parser
// that returns the string), so failed_at is the stored `Y-m-d H:i:s` rather than a JS Date converted
// through the Node process's time zone; the store turns ids back into numbers itself.
import type * as Pg from 'pg';
import { loadDriver } from './loadDriver';
import { indexName, quoteParts, type PgClientLike, type PgTypeParsers, type SqlClient, type SqlRow, type SqlValue } from './SqlClient';

/** What openPgsql needs to open a pool. */
export interface PgsqlSettings {
  host?: string;
  port?: number;
  user?: string;
  password?: string;
  database: string;
}

const RAW_TEXT: PgTypeParsers = { getTypeParser: () => (value: string) => value };

/** Open a small pg pool (ended again by close()). */
export function openPgsql(settings: PgsqlSettings): SqlClient {
  const pg = loadDriver<typeof Pg>('pg', 'The pgsql failed-job store');
  const pool = new pg.Pool({
    host: settings.host ?? '127.0.0.1',
    port: settings.port ?? 5432,
    user: settings.user ?? 'postgres',
    password: settings.password,
    database: settings.database,
    max: 4,
  });
  // An idle client losing its connection (server restart) is reported here; without a listener it
  // would crash the worker. The next query simply gets a fresh client.
  pool.on('error', () => undefined);
  return pgsqlClient(pool, () => pool.end());
}

/** Wrap a pg Client or Pool; `closeIt` runs on close() (nothing for a caller's client). */
export function pgsqlClient(db: PgClientLike, closeIt: () => Promise<void> = async () => undefined): SqlClient {
  const run = (text: string, values: SqlValue[]) => db.query({ text, values, types: RAW_TEXT });
  return {
    dialect: 'pgsql',
    quote: (identifier) => quoteParts(identifier, '"'),
    param: (n) => `$${n}`,
    async select(sql: string, params: SqlValue[] = []): Promise<SqlRow[]> {
      return (await run(sql, params)).rows as SqlRow[];
    },
    async execute(sql: string, params: SqlValue[] = []): Promise<number> {
      return (await run(sql, params)).rowCount ?? 0;
    },
    async insertGetId(sql: string, params: SqlValue[], idColumn: string): Promise<number | string> {
      const rows = (await run(`${sql} RETURNING ${quoteParts(idColumn, '"')}`, params)).rows as SqlRow[];
      return String(rows[0][idColumn]);
    },
    deleteChunkSql(table, where, limit, idColumn) {
      const t = quoteParts(table, '"');
      const id = quoteParts(idColumn, '"');
      return `DELETE FROM ${t} WHERE ${id} IN (SELECT ${id} FROM ${t} WHERE ${where} LIMIT ${limit})`;
    },
    failedJobsTableSql(table, withUuid) {
      const t = quoteParts(table, '"');
      const columns = [
        '"id" bigserial primary key not null',
        ...(withUuid ? ['"uuid" varchar(255) not null'] : []),
        '"connection" text not null',
        '"queue" text not null',
        '"payload" text not null',
        '"exception" text not null',
        '"failed_at" timestamp(0) without time zone not null default CURRENT_TIMESTAMP',
      ];
      const statements = [`CREATE TABLE ${t} (${columns.join(', ')})`];
      if (withUuid) statements.push(`ALTER TABLE ${t} ADD CONSTRAINT ${quoteParts(indexName(table, 'uuid', 'unique'), '"')} UNIQUE ("uuid")`);
      return statements;
    },
    close: closeIt,
  };
}
