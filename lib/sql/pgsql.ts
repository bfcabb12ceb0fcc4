// PostgreSQL through node-postgres. Every column is read as the server's text (a per-query type parser
// that returns the string), so failed_at is the stored `Y-m-d H:i:s` rather than a JS Date converted
// through the Node process's time zone; the stores turn ids and expirations into numbers themselves.
import type * as Pg from 'pg';
import { pooled, serialized, sqlClient } from './client';
import { quoteIdentifier } from './dialect';
import { loadDriver } from './loadDriver';
import type { PgClientLike, PgsqlSettings, PgTypeParsers, SqlClient, SqlRow, SqlRunner, SqlValue } from './SqlClient';

/** A pg Pool: it lends out clients of its own (a plain Client's connect() connects it instead). */
interface PgPoolLike extends PgClientLike {
  readonly totalCount: number;
  connect(): Promise<PgClientLike & { release(): void }>;
}

const RAW_TEXT: PgTypeParsers = { getTypeParser: () => (value: string) => value };

/** Open a small pg pool (ended again by close()). */
export function openPgsql(settings: PgsqlSettings, feature: string): SqlClient {
  const pg = loadDriver<typeof Pg>('pg', feature);
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
  return pgsqlClient(pool, () => endPool(pool));
}

/** Wrap a pg Client or Pool; `close` runs on close() (nothing for a caller's client). */
export function pgsqlClient(db: PgClientLike, close: () => Promise<void> = async () => undefined): SqlClient {
  const pool = db as PgPoolLike;
  const sessions =
    typeof pool.totalCount === 'number' && typeof pool.connect === 'function'
      ? pooled(pgRunner(db), async () => {
          const client = await pool.connect();
          return { runner: pgRunner(client), release: () => client.release() };
        })
      : serialized(pgRunner(db));
  return sqlClient('pgsql', sessions, close);
}

function pgRunner(db: PgClientLike): SqlRunner {
  const run = (text: string, values: readonly SqlValue[]) => db.query({ text, values: [...values], types: RAW_TEXT });
  return {
    select: async (sql, params = []) => (await run(sql, params)).rows as SqlRow[],
    execute: async (sql, params = []) => (await run(sql, params)).rowCount ?? 0,
    async insertGetId(sql, params, idColumn) {
      const rows = (await run(`${sql} RETURNING ${quoteIdentifier('pgsql', idColumn)}`, params)).rows as SqlRow[];
      return String(rows[0][idColumn]);
    },
  };
}

// pool.end() resolves before its connections have finished closing; wait for every `remove` too.
async function endPool(pool: Pg.Pool): Promise<void> {
  const open = pool.totalCount;
  let removed = 0;
  const closed = new Promise<void>((resolve) => {
    if (open === 0) resolve();
    pool.on('remove', () => ++removed >= open && resolve());
  });
  await pool.end();
  await closed;
}
