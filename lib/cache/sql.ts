// The little SQL the database cache store needs, over three drivers loaded only when used
// (better-sqlite3, mysql2/promise, pg: optional peer dependencies). Statements are written with `?`
// placeholders; PostgreSQL gets them renumbered to `$n`.
import type BetterSqlite3 from 'better-sqlite3';
import type { Pool as MysqlPool, PoolConnection as MysqlConnection, PoolOptions as MysqlPoolOptions, ResultSetHeader } from 'mysql2/promise';
import type { Pool as PgPool, PoolClient as PgClient, PoolConfig as PgPoolConfig } from 'pg';
import { InvalidOptionError, MissingDependencyError } from '../errors';

/** The SQL dialects the database store speaks. */
export type SqlDialect = 'sqlite' | 'mysql' | 'pg';

/** How to reach the database: a file/URI/options larq opens (and closes), or a caller-owned handle. */
export type SqlConnection =
  | { client: 'sqlite'; filename: string }
  | { client: 'sqlite'; database: BetterSqlite3.Database }
  | { client: 'mysql'; uri: string }
  | { client: 'mysql'; options: MysqlPoolOptions }
  | { client: 'mysql'; pool: MysqlPool }
  | { client: 'pg'; connectionString: string }
  | { client: 'pg'; options: PgPoolConfig }
  | { client: 'pg'; pool: PgPool };

/** A bound parameter. */
export type SqlParam = string | number | null;

/** A row as the driver returned it. */
export type SqlRow = Record<string, unknown>;

/** Runs statements, inside or outside a transaction. */
export interface SqlRunner {
  /** The rows of a query. */
  select(sql: string, params?: readonly SqlParam[]): Promise<SqlRow[]>;
  /** A statement's affected-row count. */
  run(sql: string, params?: readonly SqlParam[]): Promise<number>;
}

/** A connection (or pool) with transactions. */
export interface SqlClient extends SqlRunner {
  readonly dialect: SqlDialect;
  /** Runs `fn` in one transaction (SQLite: BEGIN IMMEDIATE); rolls back when it throws. */
  transaction<T>(fn: (tx: SqlRunner) => Promise<T>): Promise<T>;
  /** Closes what larq opened; a caller-owned handle stays open. */
  close(): Promise<void>;
}

// Optional peers: loaded on first use; a missing one is a MissingDependencyError naming the package.
function load<T>(name: string): T {
  try {
    return require(name) as T;
  } catch (e) {
    if ((e as { code?: string }).code !== 'MODULE_NOT_FOUND') throw e;
    const pkg = name.split('/')[0];
    throw new MissingDependencyError(pkg, 'The database cache store', { cause: e });
  }
}

/** Opens (or adopts) a connection. */
export function openSql(conn: SqlConnection): SqlClient {
  if (typeof conn !== 'object' || conn === null) throw new InvalidOptionError('connection', 'must be a { client: ... } object');
  if (conn.client === 'sqlite') {
    if ('database' in conn) return new SqliteClient(conn.database, false);
    const Database = load<typeof BetterSqlite3>('better-sqlite3');
    return new SqliteClient(new Database(conn.filename), true);
  }
  if (conn.client === 'mysql') {
    if ('pool' in conn) return new MysqlClient(conn.pool, false);
    const mysql = load<typeof import('mysql2/promise')>('mysql2/promise');
    return new MysqlClient('uri' in conn ? mysql.createPool(conn.uri) : mysql.createPool(conn.options), true);
  }
  if (conn.client === 'pg') {
    if ('pool' in conn) return new PgSqlClient(conn.pool, false);
    const pg = load<typeof import('pg')>('pg');
    return new PgSqlClient(new pg.Pool('connectionString' in conn ? { connectionString: conn.connectionString } : conn.options), true);
  }
  throw new InvalidOptionError('connection', "client must be 'sqlite', 'mysql' or 'pg'");
}

/** Whether `err` is a duplicate-key error from any of the three drivers. */
export function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: unknown; errno?: unknown } | null;
  if (typeof e !== 'object' || e === null) return false;
  const code = String(e.code ?? '');
  return code.startsWith('SQLITE_CONSTRAINT_PRIMARYKEY') || code.startsWith('SQLITE_CONSTRAINT_UNIQUE') || code === 'ER_DUP_ENTRY' || e.errno === 1062 || code === '23505';
}

/** An identifier (possibly `schema.table`) quoted for the dialect. */
export function quoteIdent(dialect: SqlDialect, name: string): string {
  const q = dialect === 'mysql' ? '`' : '"';
  return name
    .split('.')
    .map((part) => q + part.split(q).join(q + q) + q)
    .join('.');
}

// better-sqlite3 is synchronous on one connection: a transaction holds a queue so no other statement of
// this client runs between its BEGIN and COMMIT while its callback awaits.
class SqliteClient implements SqlClient {
  readonly dialect = 'sqlite' as const;
  private tail: Promise<unknown> = Promise.resolve();
  private readonly direct: SqlRunner;

  constructor(
    private readonly db: BetterSqlite3.Database,
    private readonly owned: boolean,
  ) {
    this.direct = {
      select: async (sql, params = []) => this.db.prepare(sql).all(...params) as SqlRow[],
      run: async (sql, params = []) => this.db.prepare(sql).run(...params).changes,
    };
  }

  private queued<T>(fn: () => Promise<T>): Promise<T> {
    const result = this.tail.then(fn);
    this.tail = result.catch(() => undefined);
    return result;
  }

  select(sql: string, params?: readonly SqlParam[]): Promise<SqlRow[]> {
    return this.queued(() => this.direct.select(sql, params));
  }

  run(sql: string, params?: readonly SqlParam[]): Promise<number> {
    return this.queued(() => this.direct.run(sql, params));
  }

  transaction<T>(fn: (tx: SqlRunner) => Promise<T>): Promise<T> {
    return this.queued(async () => {
      this.db.exec('BEGIN IMMEDIATE');
      try {
        const result = await fn(this.direct);
        this.db.exec('COMMIT');
        return result;
      } catch (e) {
        if (this.db.inTransaction) this.db.exec('ROLLBACK');
        throw e;
      }
    });
  }

  async close(): Promise<void> {
    if (this.owned && this.db.open) this.db.close();
  }
}

function mysqlRunner(target: MysqlPool | MysqlConnection): SqlRunner {
  return {
    select: async (sql, params = []) => (await target.query(sql, params as SqlParam[]))[0] as SqlRow[],
    run: async (sql, params = []) => ((await target.query(sql, params as SqlParam[]))[0] as ResultSetHeader).affectedRows,
  };
}

class MysqlClient implements SqlClient {
  readonly dialect = 'mysql' as const;
  private readonly direct: SqlRunner;

  constructor(
    private readonly pool: MysqlPool,
    private readonly owned: boolean,
  ) {
    this.direct = mysqlRunner(pool);
  }

  select(sql: string, params?: readonly SqlParam[]): Promise<SqlRow[]> {
    return this.direct.select(sql, params);
  }

  run(sql: string, params?: readonly SqlParam[]): Promise<number> {
    return this.direct.run(sql, params);
  }

  async transaction<T>(fn: (tx: SqlRunner) => Promise<T>): Promise<T> {
    const conn = await this.pool.getConnection();
    try {
      await conn.beginTransaction();
      try {
        const result = await fn(mysqlRunner(conn));
        await conn.commit();
        return result;
      } catch (e) {
        await conn.rollback().catch(() => undefined);
        throw e;
      }
    } finally {
      conn.release();
    }
  }

  async close(): Promise<void> {
    if (this.owned) await this.pool.end();
  }
}

// `?` to `$1, $2, ...` (the store's statements never contain a literal question mark).
function numbered(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

function pgRunner(target: PgPool | PgClient): SqlRunner {
  return {
    select: async (sql, params = []) => (await target.query(numbered(sql), params as SqlParam[])).rows as SqlRow[],
    run: async (sql, params = []) => (await target.query(numbered(sql), params as SqlParam[])).rowCount ?? 0,
  };
}

class PgSqlClient implements SqlClient {
  readonly dialect = 'pg' as const;
  private readonly direct: SqlRunner;

  constructor(
    private readonly pool: PgPool,
    private readonly owned: boolean,
  ) {
    this.direct = pgRunner(pool);
    // An idle pooled connection the server drops (restart, shutdown) is discarded by the pool, and the
    // next query opens a new one; without a listener that drop would crash the process.
    if (owned) pool.on('error', () => undefined);
  }

  select(sql: string, params?: readonly SqlParam[]): Promise<SqlRow[]> {
    return this.direct.select(sql, params);
  }

  run(sql: string, params?: readonly SqlParam[]): Promise<number> {
    return this.direct.run(sql, params);
  }

  async transaction<T>(fn: (tx: SqlRunner) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      try {
        const result = await fn(pgRunner(client));
        await client.query('COMMIT');
        return result;
      } catch (e) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw e;
      }
    } finally {
      client.release();
    }
  }

  async close(): Promise<void> {
    if (!this.owned) return;
    // pool.end() resolves before its connections have finished closing; wait for every `remove`.
    const open = this.pool.totalCount;
    let removed = 0;
    const closed = new Promise<void>((resolve) => {
      if (open === 0) resolve();
      this.pool.on('remove', () => ++removed >= open && resolve());
    });
    await this.pool.end();
    await closed;
  }
}
