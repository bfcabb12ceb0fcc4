// larq's SQL layer: one connection config and one client over better-sqlite3, mysql2 and pg (optional
// peer dependencies, loaded when a connection is opened), shared by every database store.
export { connectSql, type ConnectSqlContext } from './connect';
export { deleteChunkSql, indexName, isUniqueViolation, placeholder, quoteIdentifier } from './dialect';
export { loadDriver } from './loadDriver';
export {
  cacheTableSql,
  createCacheTables,
  createFailedJobsTable,
  failedJobsTableSql,
  type CreateCacheTablesOptions,
  type CreateFailedJobsTableOptions,
} from './schema';
export {
  isSqlClient,
  type MysqlClientLike,
  type MysqlSettings,
  type PgClientLike,
  type PgsqlSettings,
  type PgTypeParsers,
  type SqlClient,
  type SqlConnectionConfig,
  type SqlDialect,
  type SqliteDatabaseLike,
  type SqliteStatementLike,
  type SqlRow,
  type SqlRunner,
  type SqlValue,
} from './SqlClient';
