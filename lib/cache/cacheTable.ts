// The schema of Laravel's cache migration (`cache:table`, 8.x-13.x), for a Node-only setup: the DDL
// itself lives in the SQL layer next to failed_jobs; here it is created on a store's own connection.
import { createCacheTables } from '../sql';
import type { DatabaseCacheStore } from './DatabaseCacheStore';

export { cacheTableSql } from '../sql';

/** Creates the store's cache and lock tables unless they exist. */
export async function createCacheTable(store: DatabaseCacheStore): Promise<void> {
  await createCacheTables(store.sql, { table: store.tableNames.cache, lockTable: store.tableNames.locks });
}
