// What `larq work` checks before it takes a job: that the failed-job store and the cache store it was
// configured with can be read. A worker that starts anyway fails every job's bookkeeping, or repeats the
// same database error every few seconds while no job runs, so it stops at once with one line naming the
// setting and the fix, as `php artisan queue:work` does when its stores are broken.
import { existsSync } from 'fs';
import { join } from 'path';
import type { CacheStore } from '../cache';
import { LarqError } from '../errors';
import type { FailedJobProvider } from '../failed';
import { describeDatabase } from './banner';
import type { CliConfig } from './config';

/** A store the worker needs is unusable; the message names the setting and the fix. */
export class BrokenSetupError extends LarqError {}

const MISSING_TABLE = /no such table|doesn't exist|does not exist|undefined table/i;

/** Read once from each store; throw BrokenSetupError naming the setting and the fix when one fails. */
export async function checkStores(
  config: CliConfig,
  failed: FailedJobProvider,
  cache: CacheStore | undefined,
): Promise<void> {
  await checkFailedStore(config, failed);
  if (cache !== undefined) await checkCache(config, cache);
}

async function checkFailedStore(config: CliConfig, failed: FailedJobProvider): Promise<void> {
  const f = config.failed;
  if (f.driver === 'null') return;
  try {
    await failed.find(f.driver === 'database' ? 0 : '00000000-0000-0000-0000-000000000000');
  } catch (e) {
    const message = firstLine(e);
    if (f.driver === 'file')
      throw new BrokenSetupError(`QUEUE_FAILED_DRIVER=file: cannot read ${f.path}: ${message}`, { cause: e });
    const where = describeDatabase(f.database);
    const table = f.table ?? 'failed_jobs';
    if (MISSING_TABLE.test(message)) {
      throw new BrokenSetupError(
        `QUEUE_FAILED_DRIVER=${f.driver}: the failed-jobs table "${table}" does not exist in ${where}; create it with \`php artisan make:queue-failed-table && php artisan migrate\` ` +
          '(Laravel 11+ apps have it after `php artisan migrate`), or set QUEUE_FAILED_DRIVER=null to record no failures',
        { cause: e },
      );
    }
    throw new BrokenSetupError(
      `QUEUE_FAILED_DRIVER=${f.driver}: cannot use the database ${where}: ${message} (check DB_CONNECTION, DB_HOST, DB_PORT, DB_DATABASE, DB_USERNAME, DB_PASSWORD)`,
      { cause: e },
    );
  }
}

async function checkCache(config: CliConfig, cache: CacheStore): Promise<void> {
  const c = config.cache!;
  const setting = `${config.laravel >= 11 ? 'CACHE_STORE' : 'CACHE_DRIVER'}=${c.driver}`;
  try {
    await cache.get('illuminate:queue:restart');
  } catch (e) {
    const message = firstLine(e);
    if (c.driver === 'database' && MISSING_TABLE.test(message)) {
      throw new BrokenSetupError(
        `${setting}: the cache table "${c.table ?? 'cache'}" does not exist in ${describeDatabase(c.connection)}; create it with \`php artisan make:cache-table && php artisan migrate\` ` +
          '(Laravel 11+ apps have it after `php artisan migrate`), or point CACHE_STORE at a store that exists (redis)',
        { cause: e },
      );
    }
    const where = c.driver === 'database' ? ` ${describeDatabase(c.connection)}` : '';
    throw new BrokenSetupError(`${setting}: cannot read the cache store${where}: ${message}`, { cause: e });
  }
}

function firstLine(e: unknown): string {
  return (e instanceof Error ? e.message : String(e)).split('\n')[0];
}

/**
 * Laravel's isDownForMaintenance as the app configures it: the `storage/framework/down` file (the file
 * driver, `php artisan down`'s default), or the `illuminate:foundation:down` key of the cache store named by
 * APP_MAINTENANCE_STORE when APP_MAINTENANCE_DRIVER=cache; larq reads that key only from the app's default
 * cache store, and refuses another store rather than miss a `php artisan down`.
 */
export function maintenanceMode(
  config: CliConfig,
  cache: CacheStore | undefined,
): { describe: string; isDown: () => boolean | Promise<boolean> } {
  const { driver, store } = config.maintenance;
  if (driver === 'file') {
    const file = join(config.appDir, 'storage', 'framework', 'down');
    return { describe: `the file ${file}`, isDown: () => existsSync(file) };
  }
  if (driver === 'cache') {
    if (cache === undefined || config.cache?.driver !== store) {
      throw new BrokenSetupError(
        `APP_MAINTENANCE_DRIVER=cache: larq reads the down flag from the default cache store only, and APP_MAINTENANCE_STORE is "${store}"; set APP_MAINTENANCE_STORE to CACHE_STORE's store, or pass --force`,
      );
    }
    return {
      describe: `the key illuminate:foundation:down of the ${store} cache store`,
      isDown: async () => (await cache.get('illuminate:foundation:down')) !== null,
    };
  }
  return { describe: `never (APP_MAINTENANCE_DRIVER=${driver})`, isDown: () => false };
}
