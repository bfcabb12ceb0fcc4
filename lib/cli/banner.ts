// The lines `larq work` starts with: where it reads jobs from and why, before the first job. A worker
// that watches the wrong prefix, or records failures somewhere unexpected, is otherwise silent about it.
import type { HandlersSummary } from '../handlers/Handlers';
import type { SqlClient, SqlConnectionConfig } from '../sql';
import type { CliConfig } from './config';
import { describeRedis } from './redisConnection';

/** What the worker was asked to do, besides the configuration. */
export interface WorkSettings {
  queues: string;
  handlers: HandlersSummary;
  /** --timeout, seconds (0: none). */
  timeout: number;
  concurrency: number;
}

/** artisan's two-column detail lines: `  Name ....... value`. */
export function detailLines(rows: [string, string][], width = 100): string[] {
  return rows.map(
    ([name, value]) =>
      `  ${name} ${'.'.repeat(Math.max(3, Math.min(width, 100) - name.length - value.length - 6))} ${value}`,
  );
}

/** The start-up banner's rows: Redis, prefix, Laravel version, queues, handlers, stores and timeouts. */
export function workBannerRows(config: CliConfig, settings: WorkSettings): [string, string][] {
  const h = settings.handlers;
  const handled = [...h.objects, ...h.listeners.map((l) => `${l} (listener)`), ...h.strings];
  return [
    ['Redis', describeRedis(config.queue.connection)],
    ['Key prefix', `"${config.queue.prefix}" (${config.prefixSource})`],
    ['Laravel', `${config.release.major}.${config.release.minor} (${config.laravelSource})`],
    ['Queues', settings.queues],
    ['Handles', handled.length > 0 ? handled.join(', ') : 'no job classes'],
    [
      'Other jobs',
      h.unknownJobs === 'fail'
        ? 'failed into the failed-job store (--unknown-jobs=release to leave them to PHP)'
        : `released for another worker after ${h.unknownJobs.release}s`,
    ],
    ['Failed jobs', describeFailedStore(config)],
    ['Cache', config.cache === undefined ? `none: ${config.cacheNote ?? ''}` : describeCache(config)],
    [
      'Timeout',
      settings.timeout > 0 ? `${settings.timeout}s per job unless the job sets its own` : 'none (--timeout=0)',
    ],
    ['Concurrency', String(settings.concurrency)],
    ...(config.horizon
      ? [['Horizon', `"${config.horizon.prefix}" (${config.horizon.source})`] as [string, string]]
      : []),
  ];
}

function describeFailedStore(config: CliConfig): string {
  const f = config.failed;
  if (f.driver === 'null') return 'not recorded (QUEUE_FAILED_DRIVER=null)';
  if (f.driver === 'file') return `file ${f.path}`;
  return `${f.driver}: ${describeDatabase(f.database)}, table ${f.table ?? 'failed_jobs'}`;
}

function describeCache(config: CliConfig): string {
  const c = config.cache!;
  if (c.driver === 'redis') return `redis ${describeRedis(String(c.connection))}`;
  if (c.driver === 'database') return `database: ${describeDatabase(c.connection)}, table ${c.table ?? 'cache'}`;
  return 'array (this process only)';
}

/** A database without its password, for messages: `sqlite /app/database.sqlite`, `mysql root@host:3306/db`. */
export function describeDatabase(db: SqlConnectionConfig | SqlClient): string {
  if (!('driver' in db)) return `${db.dialect} (a client of yours)`;
  if ('client' in db) return `${db.driver} (a client of yours)`;
  if (db.driver === 'sqlite') return `sqlite ${db.database}`;
  const s = db as { user?: string; host?: string; port?: number; socketPath?: string; database?: string };
  const where = s.socketPath ?? `${s.host ?? '127.0.0.1'}${s.port ? `:${s.port}` : ''}`;
  return `${db.driver} ${s.user ? `${s.user}@` : ''}${where}/${s.database ?? ''}`;
}
