// Turns a connection config into a SqlClient: larq opens (and later closes) a connection from settings,
// wraps a driver client of the caller's, or takes a SqlClient as it is; the last two are never closed.
import { InvalidOptionError } from '../errors';
import { mysqlClient, openMysql } from './mysql';
import { openPgsql, pgsqlClient } from './pgsql';
import { openSqlite, sqliteClient } from './sqlite';
import { isSqlClient, type SqlClient, type SqlConnectionConfig } from './SqlClient';

/** Who asks for the connection, for the errors: the option holding it, and the feature needing a driver. */
export interface ConnectSqlContext {
  /** The option name in an InvalidOptionError; default "database". */
  option?: string;
  /** The subject of a MissingDependencyError; default "larq's SQL connection". */
  feature?: string;
}

/** A SqlClient for `connection`; the driver package is loaded only now. close() ends only what this opened. */
export function connectSql(connection: SqlConnectionConfig | SqlClient, context: ConnectSqlContext = {}): SqlClient {
  if (isSqlClient(connection)) return borrowed(connection);
  const option = context.option ?? 'database';
  const feature = context.feature ?? "larq's SQL connection";
  if (typeof connection !== 'object' || connection === null) {
    throw new InvalidOptionError(
      option,
      'must be connection settings { driver, database, ... }, a driver client { driver, client } or a SqlClient',
    );
  }
  if ('client' in connection) {
    if (connection.driver === 'sqlite') return sqliteClient(connection.client);
    if (connection.driver === 'mysql' || connection.driver === 'mariadb') return mysqlClient(connection.client);
    if (connection.driver === 'pgsql') return pgsqlClient(connection.client);
  } else {
    if (connection.driver === 'sqlite') return openSqlite(connection.database, feature);
    if (connection.driver === 'mysql' || connection.driver === 'mariadb') return openMysql(connection, feature);
    if (connection.driver === 'pgsql') return openPgsql(connection, feature);
  }
  const driver: unknown = (connection as { driver?: unknown }).driver;
  throw new InvalidOptionError(
    `${option}.driver`,
    `expected "sqlite", "mysql", "mariadb" or "pgsql", got ${JSON.stringify(driver)}`,
  );
}

// The caller's SqlClient with a close() that leaves it open.
function borrowed(client: SqlClient): SqlClient {
  return {
    dialect: client.dialect,
    quote: (identifier) => client.quote(identifier),
    param: (n) => client.param(n),
    select: (sql, params) => client.select(sql, params),
    execute: (sql, params) => client.execute(sql, params),
    insertGetId: (sql, params, idColumn) => client.insertGetId(sql, params, idColumn),
    transaction: (fn) => client.transaction(fn),
    close: async () => undefined,
  };
}
