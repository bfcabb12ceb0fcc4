// The schema of Laravel's cache migration (`cache:table`, 8.x-13.x): `cache` (key primary, value
// mediumText, expiration integer) and `cache_locks` (key primary, owner string, expiration integer),
// written out per dialect so a Node-only setup can create what PHP's migration would.
import type { DatabaseCacheStore } from './DatabaseCacheStore';
import { quoteIdent, type SqlDialect } from './sql';

/** The CREATE TABLE statements (IF NOT EXISTS) for the cache and lock tables. */
export function cacheTableSql(dialect: SqlDialect, table = 'cache', lockTable = 'cache_locks'): string[] {
  const q = (name: string) => quoteIdent(dialect, name);
  // Laravel's `string` is varchar(255) on MySQL and PostgreSQL, plain varchar on SQLite.
  const str = dialect === 'sqlite' ? 'varchar' : 'varchar(255)';
  const text = dialect === 'mysql' ? 'mediumtext' : 'text';
  const int = dialect === 'mysql' ? 'int' : 'integer';
  const tail = dialect === 'mysql' ? " default character set utf8mb4 collate 'utf8mb4_unicode_ci'" : '';
  return [
    `create table if not exists ${q(table)} (${q('key')} ${str} not null, ${q('value')} ${text} not null, ${q('expiration')} ${int} not null, primary key (${q('key')}))${tail}`,
    `create table if not exists ${q(lockTable)} (${q('key')} ${str} not null, ${q('owner')} ${str} not null, ${q('expiration')} ${int} not null, primary key (${q('key')}))${tail}`,
  ];
}

/** Creates the store's cache and lock tables unless they exist. */
export async function createCacheTable(store: DatabaseCacheStore): Promise<void> {
  for (const sql of cacheTableSql(store.sql.dialect, store.tableNames.cache, store.tableNames.locks)) await store.sql.run(sql);
}
