// Building a failed-job store from a config shaped like Laravel's `queue.failed` (driver, database,
// table, path, limit), plus the public names of this folder.
import type { Clock } from '../clock';
import { InvalidOptionError } from '../errors';
import { DatabaseFailedJobProvider } from './DatabaseFailedJobProvider';
import type { FailedJobProvider } from './FailedJobProvider';
import { FileFailedJobProvider } from './FileFailedJobProvider';
import { NullFailedJobProvider } from './NullFailedJobProvider';
import type { SqlClient, SqlConnectionConfig } from '../sql';

export type { FailedJobProvider, FailedJobRecord } from './FailedJobProvider';
export { formatException, type FormatExceptionOptions } from './formatException';
export { DatabaseFailedJobProvider, type DatabaseFailedJobProviderOptions } from './DatabaseFailedJobProvider';
export { FileFailedJobProvider, type FileFailedJobProviderOptions } from './FileFailedJobProvider';
export { NullFailedJobProvider } from './NullFailedJobProvider';
// The SQL layer is shared with the database cache store; its names are exported here too, as before.
export { connectSql, createFailedJobsTable, failedJobsTableSql, type CreateFailedJobsTableOptions } from '../sql';
export type {
  SqlClient,
  SqlConnectionConfig,
  SqlDialect,
  SqlValue,
  SqlRow,
  SqlRunner,
  SqliteDatabaseLike,
  SqliteStatementLike,
  MysqlClientLike,
  PgClientLike,
  PgTypeParsers,
} from '../sql';

/** Settings every store shares. */
interface CommonConfig {
  /** The app timezone (`app.timezone`) failed_at is written in; default "UTC". */
  timezone?: string;
  /** Source of "now"; default the system clock. */
  clock?: Clock;
}

/** `queue.failed` for larq: which store, and where it keeps its records. */
export type FailedJobProviderConfig =
  | (CommonConfig & {
      driver: 'database-uuids' | 'database';
      /** The database: connection settings, a driver client of yours, or a SqlClient. */
      database: SqlConnectionConfig | SqlClient;
      /** Default "failed_jobs". */
      table?: string;
    })
  | (CommonConfig & {
      driver: 'file';
      /** The JSON file (Laravel's default: storage/framework/cache/failed-jobs.json). */
      path: string;
      /** Records kept; default 100. */
      limit?: number;
      /** Where Laravel's `file` cache store keeps the file's lock; default `data` beside the file (see FileFailedJobProviderOptions). */
      lockDirectory?: string;
    })
  | { driver: 'null' };

/** The failed-job store `config` describes. */
export function createFailedJobProvider(config: FailedJobProviderConfig): FailedJobProvider {
  switch (config?.driver) {
    case 'database-uuids':
    case 'database':
      if (!config.database)
        throw new InvalidOptionError('database', `the ${config.driver} driver needs a database connection`);
      return new DatabaseFailedJobProvider(config.database, {
        driver: config.driver,
        table: config.table,
        timezone: config.timezone,
        clock: config.clock,
      });
    case 'file':
      return new FileFailedJobProvider(config.path, {
        limit: config.limit,
        timezone: config.timezone,
        clock: config.clock,
        lockDirectory: config.lockDirectory,
      });
    case 'null':
      return new NullFailedJobProvider();
    default: {
      const driver: unknown = (config as { driver?: unknown } | undefined)?.driver;
      // dynamodb is a Laravel driver larq does not implement; say so rather than "unknown".
      const hint = driver === 'dynamodb' ? ' (dynamodb is not supported by larq)' : '';
      throw new InvalidOptionError(
        'driver',
        `expected "database-uuids", "database", "file" or "null", got ${JSON.stringify(driver)}${hint}`,
      );
    }
  }
}
