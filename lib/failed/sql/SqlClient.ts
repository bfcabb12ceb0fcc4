// The few SQL operations the failed-job stores need, over three drivers. The stores write portable SQL
// and ask the client for what differs between dialects: identifier quoting, placeholders, getting an
// insert id, a chunked delete, and the failed_jobs DDL.

/** The SQL dialects larq speaks. */
export type SqlDialect = 'sqlite' | 'mysql' | 'pgsql';

/** A bound parameter. */
export type SqlValue = string | number | null;

/** A result row by column name. */
export type SqlRow = Record<string, unknown>;

/** One connection (or pool) to a database, in one dialect. */
export interface SqlClient {
  /** Which dialect the SQL must be written in. */
  readonly dialect: SqlDialect;
  /** Quote a column or table name; "schema.table" is quoted part by part. */
  quote(identifier: string): string;
  /** The placeholder of the n-th parameter (1-based): `?` or `$n`. */
  param(n: number): string;
  /** Run a query and return its rows; date and time columns come back as the text the server holds. */
  select(sql: string, params?: SqlValue[]): Promise<SqlRow[]>;
  /** Run a statement and return the number of rows it changed. */
  execute(sql: string, params?: SqlValue[]): Promise<number>;
  /** Run an INSERT (written without RETURNING) and return the auto-increment `idColumn` it produced. */
  insertGetId(sql: string, params: SqlValue[], idColumn: string): Promise<number | string>;
  /** A DELETE of at most `limit` rows of `table` matching `where` (with its placeholders), keyed by `idColumn`. */
  deleteChunkSql(table: string, where: string, limit: number, idColumn: string): string;
  /** The statements creating Laravel's failed_jobs table (8.x stub), or the pre-8 shape without `uuid`. */
  failedJobsTableSql(table: string, withUuid: boolean): string[];
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

/** A `mysql2/promise` Connection or Pool. */
export interface MysqlClientLike {
  query(options: { sql: string; values?: SqlValue[]; dateStrings?: boolean }): Promise<[unknown, unknown]>;
}

/** A `pg` Client or Pool. */
export interface PgClientLike {
  query(config: { text: string; values?: SqlValue[]; types?: PgTypeParsers }): Promise<{ rows: unknown[]; rowCount: number | null }>;
}

/** pg's per-query type parser lookup. */
export interface PgTypeParsers {
  getTypeParser(oid: number, format?: 'text' | 'binary'): (value: string) => unknown;
}

/** Where the failed_jobs table lives: connection settings larq opens itself, or a client you own. */
export type SqlConnectionConfig =
  | { driver: 'sqlite'; /** Path of the database file (":memory:" works but is private to larq). */ database: string }
  | {
      driver: 'mysql' | 'mariadb';
      host?: string;
      port?: number;
      /** A unix socket path instead of host and port. */
      socketPath?: string;
      user?: string;
      password?: string;
      database: string;
    }
  | { driver: 'pgsql'; host?: string; port?: number; user?: string; password?: string; database: string }
  | { driver: 'sqlite'; client: SqliteDatabaseLike }
  | { driver: 'mysql' | 'mariadb'; client: MysqlClientLike }
  | { driver: 'pgsql'; client: PgClientLike };

/** Quote each dot-separated part of a name with `q`, doubling `q` inside. */
export function quoteParts(identifier: string, q: string): string {
  return identifier
    .split('.')
    .map((part) => q + part.split(q).join(q + q) + q)
    .join('.');
}

/** An index name the way Laravel's schema builder makes it: table, columns and type, lowercase, with underscores. */
export function indexName(table: string, column: string, type: string): string {
  return `${table}_${column}_${type}`.toLowerCase().replace(/[-.]/g, '_');
}

/** True for an open SqlClient (as opposed to connection settings or a driver's own client). */
export function isSqlClient(value: unknown): value is SqlClient {
  return typeof value === 'object' && value !== null && typeof (value as SqlClient).failedJobsTableSql === 'function';
}
