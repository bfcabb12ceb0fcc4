// `larq work`: artisan's queue:work. Runs the jobs a handlers module knows on the app's Redis queue, with
// queue:work's flags, records failures in the app's failed-job store, obeys queue:restart through the
// app's cache, drains on SIGTERM/SIGINT and exits with the worker's status.
import { spawnSync } from 'child_process';
import { existsSync, readFileSync } from 'fs';
import { resolve } from 'path';
import { pathToFileURL } from 'url';
import { createWorker } from '../../createWorker';
import { LarqError, RedisUnavailableError } from '../../errors';
import type { CacheStore } from '../../cache';
import { BatchRepository, batchHooks, chainHooks, debouncedJobs, uniqueLocksOnFailure } from '../../features';
import { declarationWarnings } from '../../types/checkTypes';
import { Handlers, type CommandHooks, type MiddlewareOptions, type UnknownJobPolicy } from '../../handlers/Handlers';
import type { RedisJob } from '../../jobs/RedisJob';
import type { PhpObject } from '../../php/values';
import type { RedisQueue } from '../../RedisQueue';
import type { Worker } from '../../Worker';
import { configFor, numberFlag, stringFlag, UsageError, type Command, type Io, type Parsed } from '../args';
import { detailLines, workBannerRows } from '../banner';
import { horizonConfig, redisConnection, type CliConfig } from '../config';
import { laravelEnv } from '../dotenv';
import { MasterSupervisor } from '../../horizon/MasterSupervisor';
import { HorizonRedisQueue } from '../../horizon/RedisQueue';
import { checkStores, maintenanceMode } from '../preflight';
import { describeJobsElsewhere, OtherPrefixes } from '../prefixCheck';
import { printable } from '../printable';
import { RetainedMemory } from '../RetainedMemory';
import { startTelemetry, telemetryRequest } from '../telemetry';
import { isTypeScript, prepareTypeScript } from '../typescript';
import { formatDateTime } from '../../failed/timestamp';
import type { RestartSignal } from '../../worker/CacheSignals';
import { restartKey } from '../../cache/signals';
import { WorkOutput, wantsColors } from '../WorkOutput';
import { openCache, openFailedStore, openQueue, openRedis, requireSqliteFile, Resources } from './shared';

const HELP = `Usage: larq work [connection] --handlers=MODULE [options]

queue:work: run the app's queued jobs in Node, with queue:work's rules for attempts, backoff, timeouts
and failures. It starts by saying where it reads jobs from (Redis, key prefix, Laravel version and where
each came from) and warns when jobs for its queues wait under another prefix (another Laravel
version's, a wrong APP_NAME or REDIS_PREFIX). One line per job: RUNNING, then DONE, FAIL in yellow
(released, will run again) or FAIL in red (failed for good; the reason and uuid go to stderr). Chains
and batches continue as Laravel's worker continues them.

  connection            the Redis queue connection's name (default QUEUE_CONNECTION, else "redis")
  --handlers=MODULE     REQUIRED (or LARQ_HANDLERS): a module whose default export, or export "handlers",
                        is a Handlers instance or a function (may be async) returning one, called with
                        { queue, config, env, cache }; resolved from the current directory. A .ts module
                        runs through the app's tsx (npm install --save-dev tsx), which larq registers;
                        handlers typed by a larq types module are checked against the app's PHP
                        classes at start (a warning names each class changed since)
  --queue=QUEUES        queues in priority order, comma-separated (default REDIS_QUEUE, else "default")
  --tries=N             attempts for jobs that set none; 0 = unlimited (default 1)
  --backoff=S[,S...]    seconds before a failed job is retried, per attempt (default 0)
  --timeout=S           seconds a job may run; 0 = no limit (default 60)
  --sleep=S             seconds to wait when no job is available, may be fractional (default 3)
  --rest=S              seconds to rest after each job (default 0)
  --memory=MB           stop with status 12 once the worker keeps this much more memory than at start
                        (what stays after V8's collections, as PHP's memory_get_usage counts; Node's
                        own and the handlers module's baseline do not count); 0 = no limit (default 128)
  --max-jobs=N          stop after N jobs; 0 = no limit (default 0)
  --max-time=S          stop after S seconds; 0 = no limit (default 0)
  --stop-when-empty     stop when the queues are empty
  --once                run one job (if there is one), then exit
  --force               work even while the app is down for maintenance
  --name=NAME           the worker's name (default "default")
  --horizon             Horizon mode: write what Laravel Horizon's listeners write (job records,
                        failures, metrics, tags) under HORIZON_PREFIX, so Horizon's dashboard shows
                        Node's jobs. Also on with LARQ_HORIZON=true, HORIZON_PREFIX or the app's
                        config/horizon.php; LARQ_HORIZON=false turns it off
  --concurrency=N       jobs in flight at once (default 1: queue:work's one at a time)
  --unknown-jobs=WHAT   a job no handler runs: fail (default: failed into the failed-job store with
                        the reason), or release[:SECONDS] (put back for a PHP worker; each pop counts an
                        attempt, so give such jobs enough tries, or better a queue of their own)
  --ignore-middleware=CLASS[,CLASS...]
                        job middleware classes (->through(), $middleware) Node workers leave out; a job
                        carrying any other middleware larq cannot run is handled as --unknown-jobs says
  -v, --verbose         show each job's id, connection and queue, and memory in use
  --json                one JSON object per job event, as queue:work --json prints them
  -q, --quiet           print nothing but errors
  --metrics=[HOST:]PORT serve Prometheus metrics at http://HOST:PORT/metrics (needs prom-client)
  --otel                start the OpenTelemetry SDK: a span per job and per push, exported as the
                        OTEL_* variables say (needs @opentelemetry/sdk-node; also on when
                        OTEL_TRACES_EXPORTER or OTEL_EXPORTER_OTLP_ENDPOINT is set)

SIGTERM or SIGINT: take no new jobs, let the running ones finish, exit 0 (a second one exits at once
with status 1). SIGUSR2 pauses, SIGCONT resumes. larq restart (or php artisan queue:restart) makes the
worker exit 0 after its jobs, through the app's cache (CACHE_STORE redis or database), saying so on
stderr; a restart signalled before the worker started does not stop it, as in Laravel.`;

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
    verbose: { type: 'boolean', short: 'v' },
    json: { type: 'boolean' },
    'unknown-jobs': { type: 'string' },
    metrics: { type: 'string' },
    otel: { type: 'boolean' },
    horizon: { type: 'boolean' },
    'ignore-middleware': { type: 'string' },
  },
  positionals: { min: 0, max: 1, what: 'one connection name' },
  run,
};

async function run(p: Parsed, io: Io): Promise<number> {
  const handlersPath = stringFlag(p, 'handlers') ?? process.env.LARQ_HANDLERS;
  if (!handlersPath)
    throw new UsageError(
      'larq work: --handlers=MODULE is required: the module that exports your job handlers (see larq work --help)',
    );
  const backoff = stringFlag(p, 'backoff');
  if (backoff !== undefined && !/^\d+(,\d+)*$/.test(backoff))
    throw new UsageError(
      `larq work: --backoff must be seconds, or a comma-separated list of them like 1,5,10, got "${backoff}"`,
    );
  const unknownJobs = unknownJobsFlag(stringFlag(p, 'unknown-jobs'));
  // --json: stdout carries the JSON lines alone, so what the handlers module prints with console goes to stderr
  if (p.values.json === true) console.log = console.info = console.debug = console.error;
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
  if (p.values.horizon === true)
    config.horizon = horizonConfig(
      laravelEnv({ ...config.env }),
      config.appDir,
      config.queue.appName,
      { cluster: config.queue.cluster, laravel: config.release },
      true,
    );
  const connectionName = redisConnection(config, p.positionals[0]);
  const resources = new Resources();
  try {
    const telemetry = startTelemetry(
      telemetryRequest({ otel: p.values.otel === true, metrics: metricsFlag(stringFlag(p, 'metrics')) }, process.env),
      process.env,
    );
    resources.add(() => telemetry.shutdown());
    const queue = await openQueue(config, connectionName, resources, io, true, telemetry.telemetry);
    const failed = openFailedStore(config, resources);
    const cache = await openCache(config, resources, io, true);
    await checkStores(config, failed, cache);
    const handlers = await loadHandlers(handlersPath, { queue, config, env: config.env, cache });
    handlers.useDefaults(defaultFeatures(config, queue, cache, resources));
    if (unknownJobs !== undefined) handlers.onUnknownJobs(unknownJobs);
    handlers.useMiddleware(await middlewareServices(config, cache, resources, io, stringFlag(p, 'ignore-middleware')));
    const maintenance = options.force ? undefined : maintenanceMode(config, cache);
    // --memory counts what the worker keeps (RetainedMemory: what stays after V8's collections, as PHP's
    // memory_get_usage counts it) beyond what it kept at start: Node, a TypeScript loader and the handlers
    // module already hold more than Laravel's 128 MB default would allow a PHP worker in total.
    const retained = new RetainedMemory().start();
    resources.add(async () => retained.stop());
    const baseline = retained.usage();
    const memoryUsage = () => Math.max(0, retained.usage() - baseline);
    const worker = createWorker(queue, handlers, options, {
      failed,
      cache,
      isDownForMaintenance: maintenance?.isDown,
      memoryUsage,
    });
    if (queue instanceof HorizonRedisQueue) queue.listenTo(worker, (e) => io.err(`larq work: Horizon: ${e.message}`));
    const queues = stringFlag(p, 'queue') ?? config.queue.queue;
    const quiet = p.values.quiet === true;
    const json = p.values.json === true;
    const output = new WorkOutput(io, {
      timezone: config.timezone,
      json,
      verbose: p.values.verbose === true,
      colors: !json && wantsColors(),
      width: terminalWidth(),
    });
    reportErrors(worker, io, output.attach(worker, quiet));
    worker.on('WorkerStopping', (e) => {
      if (e.restartSignal !== undefined && !quiet) io.err(`larq work: ${restartStop(e.restartSignal, config)}`);
    });
    const metricsServer = await telemetry.serve();
    if (metricsServer) resources.add(() => metricsServer.close());
    if (!quiet && !json) {
      const rows = workBannerRows(config, {
        queues,
        handlers: handlers.summary(),
        timeout: options.timeout,
        concurrency: options.concurrency,
      });
      rows.push([
        'Memory',
        options.memory > 0
          ? `stops (status 12) ${options.memory} MB above the ${Math.round(baseline / 1024 / 1024)} MB in use at start`
          : 'no limit (--memory=0)',
      ]);
      rows.push([
        'Maintenance',
        maintenance
          ? `paused while the app is down (${maintenance.describe})`
          : 'works while the app is down (--force)',
      ]);
      if (metricsServer)
        rows.push([
          'Metrics',
          `http://${hostForUrl(metricsServer.address.address)}:${metricsServer.address.port}/metrics`,
        ]);
      if (telemetry.telemetry?.tracing) rows.push(['Traces', 'OpenTelemetry SDK started from the OTEL_* variables']);
      for (const line of detailLines(rows, terminalWidth())) io.out(line);
    }
    if (config.cacheNote) io.err(`larq work: note: ${config.cacheNote}`);
    if (startedByNpm()) io.err(`larq work: warning: ${NPM_PARENT}`);
    for (const line of declarationWarnings(handlers.declarations(), config.appDir))
      io.err(`larq work: warning: ${line}`);
    watchOtherPrefixes(config, queues.split(','), io, resources, worker);
    if (p.values.once) {
      await worker.runNextJob(queues);
      return 0;
    }
    if (queue instanceof HorizonRedisQueue) {
      // Horizon lists this process under "Supervisors" and "Current workload" while the daemon runs.
      const supervised = { connection: queue.connectionName, queue: queues, processes: options.concurrency, options };
      const master = new MasterSupervisor(
        queue.connection,
        queue.horizonKeys,
        supervised,
        () => queue.trim(),
        (e) => io.err(`larq work: Horizon: ${e.message}`),
      );
      master.start();
      resources.add(() => master.stop());
    }
    const info = (line: string) => quiet || json || io.out(line);
    info(`\n  ${output.paint(' INFO ', 'blue', true)} Processing jobs from the [${queues}] queue.\n`);
    info(`  ${output.paint(' INFO ', 'blue', true)} ${hungHandlerPolicy(worker.options)}\n`);
    const stopForced = forceOnSecondSignal(io);
    try {
      const result = await worker.daemon(queues);
      info(`  ${output.paint(' INFO ', 'blue', true)} Worker stopped: ${result.reason} (status ${result.status}).`);
      return result.status;
    } finally {
      stopForced();
    }
  } finally {
    await resources.close();
  }
}

// Why the worker stopped for queue:restart, in one line (queue:work says nothing): Worker::queueShouldRestart
// (13.x) compares the restart key with its value when the worker started, so an old key never stops a
// worker; one written (RestartCommand::handle), or removed (a cache flush), since it started does.
function restartStop(signal: RestartSignal, config: CliConfig): string {
  const where = `cache key ${restartKey} in the ${config.cacheStoreName ?? 'app'} store`;
  const then = `${signal.atStart === null ? 'no key' : String(signal.atStart)} when this worker started`;
  const laravel = 'with status 0, for its supervisor to start it again';
  const now = signal.now;
  const seconds =
    typeof now === 'number' ? now : typeof now === 'string' && /^\d+$/.test(now) ? Number(now) : Number.NaN;
  if (signal.now === null)
    return `stopping: the ${where} is gone (${then}; a cache flush removes it), which Laravel's queue:work takes for a queue:restart too: it stops ${laravel}`;
  const at = Number.isFinite(seconds) ? ` at ${formatDateTime(seconds * 1000, 'UTC')} UTC` : '';
  return `stopping: queue:restart signalled${at} (${where}: ${String(signal.now)}, ${then}); Laravel's queue:work stops on it too, ${laravel}`;
}

// --metrics=[HOST:]PORT, checked here so a wrong one is a usage error (status 2) like every other flag.
function metricsFlag(text: string | undefined): string | undefined {
  if (text !== undefined && !/^(?:(?:\[[^\]]+\]|[^:]+):)?\d{1,5}$/.test(text.trim())) {
    throw new UsageError(`larq work: --metrics must be PORT or HOST:PORT (e.g. 9464 or 127.0.0.1:9464), got "${text}"`);
  }
  return text;
}

// An address as a URL's host: IPv6 in brackets.
function hostForUrl(address: string): string {
  return address.includes(':') ? `[${address}]` : address;
}

// Whether npm (npx, npm exec, npm run) started this process: its parent, or the shell npm ran it through,
// is npm's own CLI. npm's npm_command variable is not asked: every process below npm inherits it, a test
// runner's children too. Where there is no /proc (not Linux) nothing is said.
function startedByNpm(): boolean {
  let pid = process.ppid;
  for (let depth = 0; depth < 2 && pid > 1; depth++) {
    let args: string[];
    try {
      args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    } catch {
      return false;
    }
    if (args.some((a) => /(^|[/\\])(npm|npx)(-cli\.js)?$/.test(a) || /^(npm|npx) /.test(a))) return true;
    if (!/(^|\/)(ba|da|z)?sh$/.test(args[0] ?? '')) return false;
    // the shell's own parent: npm runs a package's bin through `sh -c`
    pid = Number(/^\d+ \(.*\) \S (\d+)/.exec(readFileSync(`/proc/${pid}/stat`, 'utf8'))?.[1] ?? 0);
  }
  return false;
}

// npm may not pass a supervisor's SIGTERM on to the program it started.
const NPM_PARENT =
  "started through npm (npx, npm exec or npm run): a supervisor's SIGTERM goes to npm, which may not pass it on, and this worker would go on taking jobs; " +
  'under systemd or Supervisor run node_modules/.bin/larq directly';

// What happens to a handler that ignores its timeout, said once at start-up so an operator knows why the
// worker may exit with status 1.
function hungHandlerPolicy(o: Worker<RedisJob>['options']): string {
  const none = o.timeout === 0 ? 'Jobs without their own timeout have none (--timeout=0). ' : '';
  const then =
    o.onHungHandler === 'continue'
      ? 'keeps its slot and the worker goes on'
      : 'makes the worker finish its other jobs and exit with status 1, for its supervisor to restart it';
  return `${none}A handler still running ${o.timeoutGraceSeconds} s after its job's timeout ${then}.`;
}

// --unknown-jobs=fail|release[:seconds]
function unknownJobsFlag(text: string | undefined): UnknownJobPolicy | undefined {
  if (text === undefined) return undefined;
  if (text === 'fail') return 'fail';
  const m = /^release(?::(\d+))?$/.exec(text);
  if (m) return { release: Number(m[1] ?? 0) };
  throw new UsageError(`larq work: --unknown-jobs must be fail, release or release:SECONDS, got "${text}"`);
}

// The Laravel features larq work wires unless the handlers module wired its own: superseded debounced jobs
// are deleted (13.6+, through the app's cache), chains continue on the app's queue connection, batch
// progress goes to job_batches in the app's database (as the skeleton's queue.batching config has it),
// opened when the first batched job runs. A unique job that fails for good has its lock released, as
// CallQueuedHandler::failed releases it. Unique locks around a run and models need the app's own knowledge
// (which classes are unique, how to load a model), so the handlers factory wires those with the context
// it is given.
function defaultFeatures(
  config: CliConfig,
  queue: RedisQueue,
  cache: CacheStore | undefined,
  resources: Resources,
): CommandHooks[] {
  let batches: CommandHooks | undefined;
  const batchHooksNow = (): CommandHooks => {
    if (batches === undefined) {
      requireSqliteFile(config.database);
      const repository = new BatchRepository(config.database);
      resources.add(() => repository.close());
      batches = batchHooks(repository);
    }
    return batches;
  };
  const batched = (command: PhpObject | null) => {
    const id = command?.get('batchId');
    return typeof id === 'string' && id !== '';
  };
  return [
    ...(cache !== undefined && config.release.has('debounce') ? [debouncedJobs(cache)] : []),
    ...(cache !== undefined
      ? [uniqueLocksOnFailure(cache, { laravel: config.release.version, storeName: config.cacheStoreName })]
      : []),
    chainHooks(queue),
    {
      feature: 'batch',
      afterHandle: (ctx) => (batched(ctx.command) ? batchHooksNow().afterHandle?.(ctx) : undefined),
      onFailed: (job, command, error) =>
        batched(command) ? batchHooksNow().onFailed?.(job, command, error) : undefined,
    },
  ];
}

// Where Laravel's job middleware find what PHP workers share: the app's cache store (overlap locks, the
// cache RateLimiter), the `default` Redis connection under the Redis prefix (the *WithRedis middleware),
// and job_batches (SkipIfBatchCancelled), opened when a job first asks.
async function middlewareServices(
  config: CliConfig,
  cache: CacheStore | undefined,
  resources: Resources,
  io: Io,
  ignore: string | undefined,
): Promise<MiddlewareOptions> {
  const client = await openRedis(config.queue.connection, resources, io, { persistent: true, tls: config.redisTls });
  let repository: BatchRepository | undefined;
  const batches = {
    find: (id: string) => {
      if (repository === undefined) {
        requireSqliteFile(config.database);
        const opened = new BatchRepository(config.database);
        resources.add(() => opened.close());
        repository = opened;
      }
      return repository.find(id);
    },
  };
  const classes = (ignore ?? '')
    .split(',')
    .map((c) => c.trim())
    .filter((c) => c !== '');
  return { cache, redis: { client, prefix: config.queue.prefix }, batches, ignore: classes };
}

// Jobs of the worker's queues waiting under another prefix (the other skeleton's, a wrong APP_NAME or
// REDIS_PREFIX): looked for at start and every second after, each finding said once, until the worker
// has run a job (its prefix is then the one the jobs come to) or stops.
const PREFIX_LOOK_MS = 1000;

function watchOtherPrefixes(
  config: CliConfig,
  queues: string[],
  io: Io,
  resources: Resources,
  worker: Worker<RedisJob>,
): void {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let looking: Promise<void> = Promise.resolve();
  const stop = () => {
    stopped = true;
    clearInterval(timer);
  };
  worker.once('JobProcessing', stop);
  void (async () => {
    try {
      const client = await openRedis(config.queue.connection, resources, io, {
        tls: config.redisTls,
        readTimeout: config.queue.readTimeout,
      });
      // closed before the client (Resources close in reverse): no look is left running on a closed connection
      resources.add(async () => {
        stop();
        await looking;
      });
      const others = new OtherPrefixes(config, queues, client);
      const look = async () => {
        if (stopped) return;
        for (const line of describeJobsElsewhere(await others.look(), config)) io.err(`larq work: warning: ${line}`);
      };
      await (looking = look());
      if (stopped) return;
      timer = setInterval(() => {
        looking = looking.then(look).catch(stop); // a failed look (Redis away) ends the watch quietly
      }, PREFIX_LOOK_MS).unref();
    } catch (e) {
      if (!stopped) io.err(`larq work: could not look for jobs under other prefixes: ${(e as Error).message}`);
    }
  })();
}

function terminalWidth(): number {
  return Math.min(Math.max(process.stdout.columns ?? 100, 60), 160);
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

// Every other error goes to stderr, one line each (a job's exceptions were reported by WorkOutput).
function reportErrors(worker: Worker<RedisJob>, io: Io, reported: WeakSet<Error>): void {
  // During a Redis outage every pass fails the same way: openRedis says once that the connection was lost
  // and once that it is back, so the passes' own errors are not repeated here.
  // ioredis' "Command timed out" is a read that met LARQ_REDIS_READ_TIMEOUT, whose connection says the same.
  const duringOutage = (e: Error) =>
    e instanceof RedisUnavailableError || e.name === 'MaxRetriesPerRequestError' || e.message === 'Command timed out';
  // An error's message may carry a job's name or payload text: its first line, escaped (see printable).
  worker.on(
    'error',
    (e) => reported.has(e) || duringOutage(e) || io.err(`larq work: ${printable(e.message.split('\n')[0])}`),
  );
}

/** What a handlers module's exported function is called with: the app's queue, configuration and environment. */
export interface HandlersFactoryContext {
  /** The app's Redis queue (for dispatching, chains, unique locks...). */
  queue: RedisQueue;
  /** larq's reading of the app's configuration. */
  config: CliConfig;
  /** The app's environment: its .env under the process environment, as Laravel's env() sees it. */
  env: Readonly<Record<string, string>>;
  /** The app's cache store, when it has one larq can use (unique locks, maxExceptions). */
  cache: CacheStore | undefined;
}

/**
 * Load the handlers module at `path` (relative to the current directory) and return its Handlers; a
 * function export is called with `context`.
 */
export async function loadHandlers(path: string, context?: HandlersFactoryContext): Promise<Handlers> {
  const file = resolve(process.cwd(), path);
  if (isTypeScript(file)) {
    if (!existsSync(file)) throw new UsageError(`larq work: --handlers=${path}: no such module (${file})`);
    await prepareTypeScript(file, path);
  }
  let mod: Record<string, unknown>;
  try {
    try {
      mod = require(file) as Record<string, unknown>;
    } catch (e) {
      if ((e as { code?: string }).code !== 'ERR_REQUIRE_ESM') throw e;
      // An ES module: import() it; written through Function so the CommonJS build keeps a real import().
      const importModule = new Function('url', 'return import(url)') as (
        url: string,
      ) => Promise<Record<string, unknown>>;
      mod = await importModule(pathToFileURL(file).href);
    }
  } catch (e) {
    // A missing file is a usage mistake; anything else is the module's own problem: say what and where.
    if (!existsSync(file)) throw new UsageError(`larq work: --handlers=${path}: no such module (${file})`);
    throw new LarqError(`loading --handlers=${path} failed: ${moduleFailure(e, file)}`, { cause: e });
  }
  let exported: unknown = mod.default ?? mod.handlers ?? mod;
  if (typeof exported === 'function' && !isHandlers(exported))
    exported = await (exported as (context?: HandlersFactoryContext) => unknown)(context);
  if (isHandlers(exported)) return exported;
  throw new UsageError(
    `larq work: --handlers=${path} must export a Handlers instance (default export or "handlers"), or a function returning one`,
  );
}

// The first line of a module's load error, led by the file:line a syntax error points at. Node puts that
// location on the first line of a CommonJS module's stack; for an ES module it gives none, so the module is
// checked again with \`node --check\`, which prints it (this runs only on the way out of a failed start).
// A first line that announces a list (ts-node's "Unable to compile TypeScript:", tsx's "Transform failed
// with 1 error:") is followed on the same line by that list: the compiler's diagnostics, each with its
// file:line.
function moduleFailure(thrown: unknown, file: string): string {
  const error = thrown instanceof Error ? thrown : new Error(String(thrown));
  const [heading, ...rest] = error.message.split('\n');
  const first = `${error.name}: ${heading}`;
  const diagnostics = rest.filter((line) => line.trim() !== '').slice(0, MAX_DIAGNOSTIC_LINES);
  if (heading.trimEnd().endsWith(':') && diagnostics.length > 0)
    return `${first} ${diagnostics.map((line) => line.trim()).join('; ')}`;
  if (!(error instanceof SyntaxError)) return first;
  const location = LOCATION.exec(error.stack ?? '') ?? LOCATION.exec(syntaxCheck(file));
  return location ? `${location[1]}: ${first}` : first;
}

const MAX_DIAGNOSTIC_LINES = 10;

const LOCATION = /^(?:file:\/\/)?(\S+:\d+)\r?\n/;

function syntaxCheck(file: string): string {
  const check = spawnSync(process.execPath, ['--check', file], { encoding: 'utf8', timeout: 10000 });
  return check.stderr ?? '';
}

// instanceof fails when the module got its Handlers from another copy of larq; the shape is what counts.
function isHandlers(value: unknown): value is Handlers {
  if (value instanceof Handlers) return true;
  const v = value as Partial<Handlers> | null;
  return (
    typeof v === 'object' &&
    v !== null &&
    typeof v.run === 'function' &&
    typeof v.failed === 'function' &&
    typeof v.bindFailer === 'function'
  );
}
