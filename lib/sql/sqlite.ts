// SQLite through better-sqlite3: synchronous on one connection, so statements and transactions take
// turns; the file may be shared with a PHP app, which better-sqlite3's default busy timeout (5 s)
// tolerates for short writes.
import type BetterSqlite3 from 'better-sqlite3';
import { serialized, sqlClient } from './client';
import { loadDriver } from './loadDriver';
import type { SqlClient, SqliteDatabaseLike, SqlRow } from './SqlClient';

/** Open the SQLite file at `path` (closed again by close()). */
export function openSqlite(path: string, feature: string): SqlClient {
  const Database = loadDriver<typeof BetterSqlite3>('better-sqlite3', feature);
  const db = new Database(path);
  return sqliteClient(db, async () => {
    if (db.open) db.close();
  });
}

/** Wrap a better-sqlite3 Database; `close` runs on close() (nothing for a caller's database). */
export function sqliteClient(db: SqliteDatabaseLike, close: () => Promise<void> = async () => undefined): SqlClient {
  return sqlClient(
    'sqlite',
    serialized({
      select: async (sql, params = []) => db.prepare(sql).all(...params) as SqlRow[],
      execute: async (sql, params = []) => db.prepare(sql).run(...params).changes,
      async insertGetId(sql, params) {
        const id = db.prepare(sql).run(...params).lastInsertRowid;
        return typeof id === 'bigint' ? safeId(id) : id;
      },
    }),
    close,
  );
}

function safeId(id: bigint): number | string {
  return id <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(id) : id.toString();
}
