// `larq work`: artisan's queue:work. Runs the jobs a handlers module knows on the app's Redis queue, with
// queue:work's flags, records failures in the app's failed-job store, obeys queue:restart through the
// app's cache, drains on SIGTERM/SIGINT and exits with the worker's status.
import { resolve } from 'path';
import { pathToFileURL } from 'url';
import { createWorker } from '../../createWorker';
import { LarqError, RedisUnavailableError } from '../../errors';
import { formatDateTime } from '../../failed/timestamp';
import { Handlers } from '../../handlers/Handlers';
import type { RedisJob } from '../../jobs/RedisJob';
import type { Worker } from '../../Worker';
import { configFor, numberFlag, stringFlag, UsageError, type Command, type Io, type Parsed } from '../args';
import { redisConnection } from '../config';
import { openCache, openFailedStore, openQueue, Resources } from './shared';

const HELP = `Usage: larq work [connection] --handlers=MODULE [options]

queue:work: run the app's queued jobs in Node, with queue:work's rules for attempts, backoff, timeouts
and failures. One line per job: RUNNING, then DONE or FAIL with its duration.

  connection            the Redis queue connection's name (default QUEUE_CONNECTION, else "redis")
  --handlers=MODULE     REQUIRED (or LARQ_HANDLERS): a module whose default export, or export "handlers",
                        is a Handlers instance or a function (may be async) returning one; resolved from the
                        current directory. A .ts module needs ts-node: NODE_OPTIONS="-r ts-node/register"
  --queue=QUEUES        queues in priority order, comma-separated (default REDIS_QUEUE, else "default")
  --tries=N             attempts for jobs that set none; 0 = unlimited (default 1)
  --backoff=S[,S...]    seconds before a failed job is retried, per attempt (default 0)
  --timeout=S           seconds a job may run; 0 = no limit (default 60)
  --sleep=S             seconds to wait when no job is available, may be fractional (default 3)
  --rest=S              seconds to rest after each job (default 0)
  --memory=MB           stop with status 12 once this much memory is in use (default 128)
  --max-jobs=N          stop after N jobs; 0 = no limit (default 0)
  --max-time=S          stop after S seconds; 0 = no limit (default 0)
  --stop-when-empty     stop when the queues are empty
  --once                run one job (if there is one), then exit
  --force               work even while the app is down for maintenance
  --name=NAME           the worker's name (default "default")
  --concurrency=N       jobs in flight at once (default 1: queue:work's one at a time)
  -q, --quiet           print nothing but errors

SIGTERM or SIGINT: take no new jobs, let the running ones finish, exit 0 (a second one exits at once
with status 1). SIGUSR2 pauses, SIGCONT resumes. larq restart (or php artisan queue:restart) makes the
worker exit 0 after its jobs, through the app's cache (CACHE_STORE redis or database).`;

/** `larq work`. */
export const work: Command = {
  name: 'work',
  summary: 'queue:work: run jobs with your Node handlers (--handlers=MODULE)',
  help: HELP,
  options: {
    handlers: { type: 'string' },
    queue: { type: 'string' },
    tries: { type: 'string' },
    backoff: { type: 'string' },
    timeout: { type: 'string' },
    sleep: { type: 'string' },
    rest: { type: 'string' },
    memory: { type: 'string' },
    'max-jobs': { type: 'string' },
    'max-time': { type: 'string' },
    'stop-when-empty': { type: 'boolean' },
    once: { type: 'boolean' },
    force: { type: 'boolean' },
    name: { type: 'string' },
    concurrency: { type: 'string' },
    quiet: { type: 'boolean', short: 'q' },
  },
  positionals: { min: 0, max: 1, what: 'one connection name' },
  run,
};

async function run(p: Parsed, io: Io): Promise<number> {
  const handlersPath = stringFlag(p, 'handlers') ?? process.env.LARQ_HANDLERS;
  if (!handlersPath) throw new UsageError('larq work: --handlers=MODULE is required: the module that exports your job handlers (see larq work --help)');
  const backoff = stringFlag(p, 'backoff');
  if (backoff !== undefined && !/^\d+(,\d+)*$/.test(backoff)) throw new UsageError(`larq work: --backoff must be seconds, or a comma-separated list of them like 1,5,10, got "${backoff}"`);
  const options = {
    maxTries: numberFlag(p, 'tries', 1),
    backoff: backoff ?? 0,
    timeout: numberFlag(p, 'timeout', 60),
    sleep: numberFlag(p, 'sleep', 3, { fractional: true }),
    rest: numberFlag(p, 'rest', 0, { fractional: true }),
    memory: numberFlag(p, 'memory', 128),
    maxJobs: numberFlag(p, 'max-jobs', 0),
    maxTime: numberFlag(p, 'max-time', 0, { fractional: true }),
    stopWhenEmpty: p.values['stop-when-empty'] === true,
    force: p.values.force === true,
    name: stringFlag(p, 'name') ?? 'default',
    concurrency: numberFlag(p, 'concurrency', 1, { min: 1 }),
    handleSignals: true,
  };
  const config = configFor(p);
  const connectionName = redisConnection(config, p.positionals[0]);
  const handlers = await loadHandlers(handlersPath);
  const resources = new Resources();
  try {
    const queue = await openQueue(config, connectionName, resources, io, true);
    const failed = openFailedStore(config, resources);
    const cache = await openCache(config, resources, io, true);
    if (config.cacheNote) io.err(`larq work: note: ${config.cacheNote}`);
    const worker = createWorker(queue, handlers, options, { failed, cache });
    const queues = stringFlag(p, 'queue') ?? config.queue.queue;
    if (!p.values.quiet) report(worker, io, config.timezone);
    reportErrors(worker, io);
    if (p.values.once) {
      await worker.runNextJob(queues);
      return 0;
    }
    const info = (line: string) => p.values.quiet || io.out(line);
    info(`\n  INFO  Processing jobs from the [${queues}] queue.\n`);
    info(`  INFO  ${hungHandlerPolicy(worker.options)}\n`);
    const stopForced = forceOnSecondSignal(io);
    try {
      const result = await worker.daemon(queues);
      info(`  INFO  Worker stopped: ${result.reason} (status ${result.status}).`);
      return result.status;
    } finally {
      stopForced();
    }
  } finally {
    await resources.close();
  }
}

// What happens to a handler that ignores its timeout, said once at start-up so an operator knows why the
// worker may exit with status 1.
function hungHandlerPolicy(o: Worker<RedisJob>['options']): string {
  const none = o.timeout === 0 ? 'Jobs without their own timeout have none (--timeout=0). ' : '';
  const then = o.onHungHandler === 'continue' ? 'keeps its slot and the worker goes on' : 'makes the worker finish its other jobs and exit with status 1, for its supervisor to restart it';
  return `${none}A handler still running ${o.timeoutGraceSeconds} s after its job's timeout ${then}.`;
}

// The first SIGTERM/SIGINT drains (the worker's own handler); a second one means "now", as an operator
// pressing Ctrl-C twice expects, without waiting for a long job.
function forceOnSecondSignal(io: Io): () => void {
  let seen = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    if (++seen === 1) io.err(`larq work: ${signal}: finishing the running jobs, then exiting (again to exit now)`);
    else process.exit(1);
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  return () => {
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
  };
}

// queue:work's console lines: "  <time> <job name> .... RUNNING", then ".... 12.34ms DONE" or FAIL.
// Each is a whole line, so jobs running side by side (--concurrency) do not garble each other.
function report(worker: Worker<RedisJob>, io: Io, timezone: string): void {
  const started = new WeakMap<RedisJob, number>();
  const width = Math.min(Math.max(process.stdout.columns ?? 100, 60), 160);
  const line = (job: RedisJob, status: string) => {
    const name = job.resolveName();
    let tail = status;
    const at = started.get(job);
    if (status !== 'RUNNING' && at !== undefined) {
      const ms = performance.now() - at;
      tail = `${ms >= 1000 ? `${(ms / 1000).toFixed(2)}s` : `${ms.toFixed(2)}ms`} ${status}`;
      started.delete(job);
    }
    const head = `  ${formatDateTime(Date.now(), timezone)} ${name} `;
    io.out(`${head}${'.'.repeat(Math.max(3, width - head.length - tail.length - 1))} ${tail}`);
  };
  worker.on('JobProcessing', (e) => {
    started.set(e.job, performance.now());
    line(e.job, 'RUNNING');
  });
  // A job that failed or released itself still fires JobProcessed; its FAIL line was already written.
  worker.on('JobProcessed', (e) => started.has(e.job) && !e.job.hasFailed() && line(e.job, 'DONE'));
  worker.on('JobReleasedAfterException', (e) => line(e.job, 'FAIL'));
  worker.on('JobFailed', (e) => line(e.job, 'FAIL'));
}

// Every exception goes to stderr, one line each; a job's names the job, as Laravel's log entry would.
function reportErrors(worker: Worker<RedisJob>, io: Io): void {
  const named = new WeakSet<Error>();
  worker.on('JobExceptionOccurred', (e) => {
    named.add(e.exception);
    io.err(`larq work: ${e.job.resolveName()} (attempt ${e.job.attempts()}): ${e.exception.message.split('\n')[0]}`);
  });
  // During a Redis outage every pass fails the same way: openRedis says once that the connection was lost
  // and once that it is back, so the passes' own errors are not repeated here.
  const duringOutage = (e: Error) => e instanceof RedisUnavailableError || e.name === 'MaxRetriesPerRequestError';
  worker.on('error', (e) => named.has(e) || duringOutage(e) || io.err(`larq work: ${e.message.split('\n')[0]}`));
}

/** Load the handlers module at `path` (relative to the current directory) and return its Handlers. */
export async function loadHandlers(path: string): Promise<Handlers> {
  const file = resolve(process.cwd(), path);
  if (/\.[cm]?ts$/.test(file) && !require.extensions['.ts']) {
    throw new UsageError(`larq work: --handlers=${path} is TypeScript: run larq with NODE_OPTIONS="-r ts-node/register", or compile it to JavaScript`);
  }
  let mod: Record<string, unknown>;
  try {
    try {
      mod = require(file) as Record<string, unknown>;
    } catch (e) {
      if ((e as { code?: string }).code !== 'ERR_REQUIRE_ESM') throw e;
      // An ES module: import() it; written through Function so the CommonJS build keeps a real import().
      const importModule = new Function('url', 'return import(url)') as (url: string) => Promise<Record<string, unknown>>;
      mod = await importModule(pathToFileURL(file).href);
    }
  } catch (e) {
    const error = e as Error & { code?: string };
    const first = error.message.split('\n')[0];
    // A missing file is a usage mistake; an error thrown by the module itself is the module's problem.
    if ((error.code === 'MODULE_NOT_FOUND' || error.code === 'ERR_MODULE_NOT_FOUND') && first.includes(file)) {
      throw new UsageError(`larq work: --handlers=${path}: no such module (${file})`);
    }
    throw new LarqError(`loading --handlers=${path} failed: ${first}`, { cause: e });
  }
  let exported: unknown = mod.default ?? mod.handlers ?? mod;
  if (typeof exported === 'function' && !isHandlers(exported)) exported = await (exported as () => unknown)();
  if (isHandlers(exported)) return exported;
  throw new UsageError(`larq work: --handlers=${path} must export a Handlers instance (default export or "handlers"), or a function returning one`);
}

// instanceof fails when the module got its Handlers from another copy of larq; the shape is what counts.
function isHandlers(value: unknown): value is Handlers {
  if (value instanceof Handlers) return true;
  const v = value as Partial<Handlers> | null;
  return typeof v === 'object' && v !== null && typeof v.run === 'function' && typeof v.failed === 'function' && typeof v.bindFailer === 'function';
}
