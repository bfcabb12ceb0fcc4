// Turns a connection config into a SqlClient: larq opens (and later closes) a connection from
// settings, or wraps a client the caller passed in and never closes it.
import { InvalidOptionError } from '../../errors';
import { mysqlClient, openMysql } from './mysql';
import { openPgsql, pgsqlClient } from './pgsql';
import { openSqlite, sqliteClient } from './sqlite';
import type { SqlClient, SqlConnectionConfig } from './SqlClient';

/** A SqlClient for `config`; the driver package is loaded only now. */
export function connectSql(config: SqlConnectionConfig): SqlClient {
  const driver: string = config?.driver;
  if ('client' in config) {
    if (config.driver === 'sqlite') return sqliteClient(config.client);
    if (config.driver === 'mysql' || config.driver === 'mariadb') return mysqlClient(config.client);
    if (config.driver === 'pgsql') return pgsqlClient(config.client);
  } else {
    if (config.driver === 'sqlite') return openSqlite(config.database);
    if (config.driver === 'mysql' || config.driver === 'mariadb') return openMysql(config);
    if (config.driver === 'pgsql') return openPgsql(config);
  }
  throw new InvalidOptionError('database.driver', `expected "sqlite", "mysql", "mariadb" or "pgsql", got ${JSON.stringify(driver)}`);
}
