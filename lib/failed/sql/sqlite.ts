// SQLite through better-sqlite3: synchronous, so every call resolves at once; the file may be shared
// with a PHP app, which better-sqlite3's default busy timeout (5 s) tolerates for short writes.
import type BetterSqlite3 from 'better-sqlite3';
import { loadDriver } from './loadDriver';
import { indexName, quoteParts, type SqlClient, type SqliteDatabaseLike, type SqlRow, type SqlValue } from './SqlClient';

/** Open the SQLite file at `path` (closed again by close()). */
export function openSqlite(path: string): SqlClient {
  const Database = loadDriver<typeof BetterSqlite3>('better-sqlite3', 'The sqlite failed-job store');
  const db = new Database(path);
  return sqliteClient(db, () => db.close());
}

/** Wrap a better-sqlite3 Database; `closeIt` runs on close() (nothing for a caller's database). */
export function sqliteClient(db: SqliteDatabaseLike, closeIt: () => void = () => undefined): SqlClient {
  return {
    dialect: 'sqlite',
    quote: (identifier) => quoteParts(identifier, '"'),
    param: () => '?',
    async select(sql: string, params: SqlValue[] = []): Promise<SqlRow[]> {
      return db.prepare(sql).all(...params) as SqlRow[];
    },
    async execute(sql: string, params: SqlValue[] = []): Promise<number> {
      return db.prepare(sql).run(...params).changes;
    },
    async insertGetId(sql: string, params: SqlValue[]): Promise<number | string> {
      const id = db.prepare(sql).run(...params).lastInsertRowid;
      return typeof id === 'bigint' ? safeId(id) : id;
    },
    deleteChunkSql(table, where, limit, idColumn) {
      // DELETE ... LIMIT needs a compile-time option most SQLite builds lack; a keyed subquery does not.
      const t = quoteParts(table, '"');
      const id = quoteParts(idColumn, '"');
      return `DELETE FROM ${t} WHERE ${id} IN (SELECT ${id} FROM ${t} WHERE ${where} LIMIT ${limit})`;
    },
    failedJobsTableSql(table, withUuid) {
      const t = quoteParts(table, '"');
      const columns = [
        '"id" integer primary key autoincrement not null',
        ...(withUuid ? ['"uuid" varchar not null'] : []),
        '"connection" text not null',
        '"queue" text not null',
        '"payload" text not null',
        '"exception" text not null',
        '"failed_at" datetime not null default CURRENT_TIMESTAMP',
      ];
      const statements = [`CREATE TABLE ${t} (${columns.join(', ')})`];
      if (withUuid) statements.push(`CREATE UNIQUE INDEX ${quoteParts(indexName(table, 'uuid', 'unique'), '"')} ON ${t} ("uuid")`);
      return statements;
    },
    async close(): Promise<void> {
      closeIt();
    },
  };
}

function safeId(id: bigint): number | string {
  return id <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(id) : id.toString();
}
