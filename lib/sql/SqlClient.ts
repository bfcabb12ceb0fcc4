// The one SQL layer under larq's database stores (failed jobs, cache, batches): what a connection can do,
// the driver objects it wraps, and the connection config every store takes, named as in Laravel's
// config/database.php (DB_CONNECTION = sqlite, mysql, mariadb or pgsql).

/** The SQL dialects larq speaks (mariadb speaks mysql). */
export type SqlDialect = 'sqlite' | 'mysql' | 'pgsql';

/** A bound parameter; a Buffer is bound as bytes (a BLOB on SQLite). */
export type SqlValue = string | number | null | Buffer;

/** A result row by column name. */
export type SqlRow = Record<string, unknown>;

/** Runs statements: on the shared connection, or inside a transaction on its own connection. */
export interface SqlRunner {
  /** Run a query and return its rows; date and time columns come back as the text the server holds. */
  select(sql: string, params?: readonly SqlValue[]): Promise<SqlRow[]>;
  /** Run a statement and return the number of rows it changed. */
  execute(sql: string, params?: readonly SqlValue[]): Promise<number>;
  /** Run an INSERT (written without RETURNING) and return the auto-increment `idColumn` it produced. */
  insertGetId(sql: string, params: readonly SqlValue[], idColumn: string): Promise<number | string>;
}

/** One connection (or pool) to a database, in one dialect. */
export interface SqlClient extends SqlRunner {
  /** Which dialect the SQL must be written in. */
  readonly dialect: SqlDialect;
  /** Quote a column or table name; "schema.table" is quoted part by part. */
  quote(identifier: string): string;
  /** The placeholder of the n-th parameter (1-based): `?`, or `$n` on pgsql. */
  param(n: number): string;
  /**
   * Run `fn` in one transaction (SQLite: BEGIN IMMEDIATE) on a connection nothing else uses meanwhile;
   * commit when it resolves, roll back when it throws. Inside, use only `tx`: on a single connection
   * (SQLite, or a driver Connection/Client of yours) a statement sent to the client itself waits for the
   * transaction to end.
   */
  transaction<T>(fn: (tx: SqlRunner) => Promise<T>): Promise<T>;
  /** Close the connection if larq opened it; a client passed in by the caller is left open. */
  close(): Promise<void>;
}

/** The part of a better-sqlite3 `Database` larq uses. */
export interface SqliteDatabaseLike {
  prepare(source: string): SqliteStatementLike;
}

/** The part of a better-sqlite3 `Statement` larq uses. */
export interface SqliteStatementLike {
  all(...params: unknown[]): unknown[];
  run(...params: unknown[]): { changes: number; lastInsertRowid: number | bigint };
}

/** A `mysql2/promise` Connection or Pool (a Pool is recognised by its getConnection). */
export interface MysqlClientLike {
  query(options: { sql: string; values?: SqlValue[]; dateStrings?: boolean }): Promise<[unknown, unknown]>;
}

/** A `pg` Client or Pool (a Pool is recognised by its totalCount). */
export interface PgClientLike {
  query(config: {
    text: string;
    values?: SqlValue[];
    types?: PgTypeParsers;
  }): Promise<{ rows: unknown[]; rowCount: number | null }>;
}

/** pg's per-query type parser lookup. */
export interface PgTypeParsers {
  getTypeParser(oid: number, format?: 'text' | 'binary'): (value: string) => unknown;
}

/** Where a MySQL or MariaDB server is (DB_HOST, DB_PORT, DB_USERNAME, DB_PASSWORD, DB_DATABASE). */
export interface MysqlSettings {
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 3306. */
  port?: number;
  /** A unix socket path instead of host and port. */
  socketPath?: string;
  /** Default root. */
  user?: string;
  password?: string;
  database: string;
}

/** Where a PostgreSQL server is (DB_HOST, DB_PORT, DB_USERNAME, DB_PASSWORD, DB_DATABASE). */
export interface PgsqlSettings {
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 5432. */
  port?: number;
  /** Default postgres. */
  user?: string;
  password?: string;
  database: string;
}

/**
 * Where a store's tables live: connection settings larq opens (and closes) itself, or a driver client
 * of yours, which larq never closes. One shape for every store, filled from Laravel's DB_* settings.
 */
export type SqlConnectionConfig =
  | { driver: 'sqlite'; /** Path of the database file (":memory:" works but is private to larq). */ database: string }
  | ({ driver: 'mysql' | 'mariadb' } & MysqlSettings)
  | ({ driver: 'pgsql' } & PgsqlSettings)
  | { driver: 'sqlite'; client: SqliteDatabaseLike }
  | { driver: 'mysql' | 'mariadb'; client: MysqlClientLike }
  | { driver: 'pgsql'; client: PgClientLike };

/** True for an open SqlClient (as opposed to connection settings or a driver's own client). */
export function isSqlClient(value: unknown): value is SqlClient {
  const c = value as Partial<SqlClient> | null;
  return (
    typeof c === 'object' &&
    c !== null &&
    typeof c.dialect === 'string' &&
    typeof c.quote === 'function' &&
    typeof c.transaction === 'function'
  );
}
