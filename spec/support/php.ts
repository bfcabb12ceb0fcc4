// Drives the PHP side of the interop specs: real Laravel, through the scripts in compat-fixtures/php
// (its README has the contract), on one of the lines in LARAVEL_LINES: 8.83 from Debian's packages,
// 12.67 and 13.26 from their release tarballs (unpacked into .cache/laravel by scripts/setup, or here on
// first use). Locally a spec is skipped when PHP or its Laravel line cannot boot; in CI that is a failure.
import { spawn, execFileSync, spawnSync, ChildProcess } from 'child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { isAbsolute, join } from 'path';
import { inCI } from './redis';

const ROOT = join(__dirname, '..', '..');

/** The folder of the PHP scripts. */
export const PHP_DIR = join(ROOT, 'compat-fixtures', 'php');

/** The Laravel lines the interop specs run against, oldest first; a spec loops over them. */
export const LARAVEL_LINES = ['8.83', '12.67', '13.26'] as const;
/** One Laravel line of the PHP harness (compat-fixtures/php/laravel.php's LARQ_LARAVEL). */
export type PhpLaravelLine = (typeof LARAVEL_LINES)[number];
/** The line a PhpConnection without `laravel` runs. */
export const DEFAULT_LARAVEL_LINE: PhpLaravelLine = '8.83';

/** The major version of a line: 8, 12 or 13 (larq's `LaravelLine` for its options). */
export function laravelMajor(line: PhpLaravelLine): 8 | 12 | 13 {
  return Number(line.split('.')[0]) as 8 | 12 | 13;
}

/**
 * The Redis key prefix of the line's application skeleton with APP_NAME "Laravel" (13.x's skeleton slugs
 * with '-'). The specs pass their own prefixes; this is for specs about the default itself.
 */
export function skeletonPrefix(line: PhpLaravelLine): string {
  return laravelMajor(line) >= 13 ? 'laravel-database-' : 'laravel_database_';
}

/** The environment that selects a line for a script run through runPhp. */
export function laravelEnv(line: PhpLaravelLine = DEFAULT_LARAVEL_LINE): Record<string, string> {
  return { LARQ_LARAVEL: line };
}

/** describe.php's description of a PHP value: the fixtures' format plus `model` and `b64`. */
export type PhpDescribed =
  | { t: 'object'; class: string; props: PhpProp[] }
  | { t: 'string'; v: string; b64?: string }
  | { t: 'int'; v: number | string }
  | { t: 'bool'; v: boolean }
  | { t: 'float'; v: string }
  | { t: 'null' }
  | { t: 'array'; entries: { k: number | string; v: PhpDescribed }[] }
  | { t: 'enum'; class: string; case: string }
  | {
      t: 'model';
      class: string;
      connection: string | null;
      exists: boolean;
      key: PhpDescribed;
      attributes: PhpDescribed;
    };

/** One property of a described object; declaringClass only for private ones. */
export interface PhpProp {
  name: string;
  visibility: 'public' | 'protected' | 'private';
  declaringClass?: string;
  value: PhpDescribed;
}

/** What a PHP script printed and how it ended. */
export interface PhpResult {
  stdout: string;
  stderr: string;
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** How the PHP side reaches Redis and configures Laravel (bootstrap.php's environment). */
export interface PhpConnection {
  /** The Laravel line the PHP side runs (LARQ_LARAVEL); default DEFAULT_LARAVEL_LINE (8.83). */
  laravel?: PhpLaravelLine;
  /** The Redis server's port on 127.0.0.1 (LARQ_REDIS_PORT); required unless `cluster` is given. */
  port?: number;
  /**
   * Ports of Redis Cluster nodes on 127.0.0.1 (LARQ_REDIS_CLUSTER): Laravel's Redis connection `default`
   * is then a phpredis cluster connection (database.redis.clusters.default), and `port` is not given.
   */
  cluster?: readonly number[];
  /** The Redis connection's key prefix (LARQ_PREFIX). */
  prefix: string;
  /** APP_KEY (LARQ_APP_KEY); default base64 of 32 "k" bytes, the fixtures' key. */
  appKey?: string;
  /** The queue connection's retry_after in seconds (LARQ_RETRY_AFTER, default 90). */
  retryAfter?: number;
  /** The queue connection's block_for in seconds (LARQ_BLOCK_FOR, default null). */
  blockFor?: number;
  /** The queue connection's default queue (LARQ_QUEUE, default "default"). */
  defaultQueue?: string;
  /**
   * The cache store's prefix (LARQ_CACHE_PREFIX; default the line's skeleton: laravel_cache on 8.83, whose
   * Redis store adds ':', laravel_cache_ on 12.67, laravel-cache- on 13.26).
   */
  cachePrefix?: string;
  /** Freeze Laravel's clock at this Unix time in seconds (LARQ_NOW). */
  now?: number;
  /** More environment for the PHP process. */
  env?: Record<string, string>;
}

/** dispatch.php's output. */
export interface PhpDispatchResult {
  scenario: string;
  /** Laravel's clock (Unix seconds) just before the dispatch: no time Laravel read during it is earlier. */
  before: number;
  /** Laravel's clock (Unix seconds) just after the dispatch: no time Laravel read during it is later. */
  after: number;
  /** Every pushed payload's id, in push order. */
  ids: string[];
  /** Every job object handed to Laravel (or a string job's data), described after dispatch. */
  described: PhpDescribed[];
  /**
   * For each of `described`, the properties its serialized form leaves out: SerializesModels on 9.x+
   * skips properties still at their declared default (PHP restores them from the class). [] on 8.x.
   */
  omitted: string[][];
}

/**
 * The i-th dispatched value as its payload carries it: `described` without the properties Laravel left
 * out of the serialized command (all of them on 8.x). This is what a reader of the payload can decode.
 */
export function describedOnTheWire(sent: PhpDispatchResult, i = 0): PhpDescribed {
  const described = sent.described[i];
  const omitted = new Set(sent.omitted[i] ?? []);
  if (described.t !== 'object' || omitted.size === 0) return described;
  return { ...described, props: described.props.filter((p) => !omitted.has(p.name)) };
}

/** One line a job handler wrote (jobs.php). */
export interface WorkerRecord {
  hook: 'handle' | 'fire' | 'failed';
  class: string;
  /** microtime(true) when the handler ran. */
  time: number;
  attempts: number | null;
  queue: string | null;
  connection: string | null;
  jobId: string | null;
  uuid: string | null;
  name: string | null;
  pid: number;
  /** The command ($this) as the handler got it, or a string job's data. */
  description: PhpDescribed;
  /** The payload's W3C trace context, when it carries one. */
  traceparent?: string;
  tracestate?: string;
  /** Only for hook "failed". */
  exception?: { class: string; message: string };
}

/** One failed job as the worker's failer logged it. */
export interface FailedRecord {
  connection: string;
  queue: string;
  payload: string;
  exception: string;
  exceptionClass: string;
  message: string;
  failed_at: number;
}

/** One worker event line (JobProcessing, JobProcessed, JobFailed, JobExceptionOccurred, WorkerStopping). */
export interface WorkerEvent {
  event: string;
  time: number;
  connection?: string;
  jobId?: string | null;
  uuid?: string | null;
  name?: string | null;
  attempts?: number | null;
  queue?: string | null;
  exception?: { class: string; message: string };
  status?: number;
}

/** worker.php's options; the run's record files are temporary unless named. */
export interface LaravelWorkerOptions extends PhpConnection {
  /** --queue: comma-separated queues in priority order. */
  queue?: string;
  /** --stop-when-empty; runLaravelWorker defaults it to true, startLaravelWorker to false. */
  stopWhenEmpty?: boolean;
  once?: boolean;
  maxJobs?: number;
  /** --max-time in seconds; worker.php assumes 60 when nothing else bounds the run. */
  maxTime?: number;
  tries?: number;
  /** --sleep in seconds when no job was found; default here 0.1 (Laravel's is 3). */
  sleep?: number;
  /** --timeout in seconds (Laravel's default 60; 0 = none). */
  timeout?: number;
  backoff?: number | string;
  memory?: number;
  rest?: number;
  force?: boolean;
  /** Kill the PHP process after this long (ms); default (maxTime, else 60) + 30 seconds. */
  processTimeoutMs?: number;
  recordFile?: string;
  failedFile?: string;
  eventsFile?: string;
}

/** Everything one worker run left behind. */
export interface LaravelWorkerRun extends PhpResult {
  records: WorkerRecord[];
  failed: FailedRecord[];
  events: WorkerEvent[];
}

/** A worker running in the background. */
export interface LaravelWorkerHandle {
  pid: number | undefined;
  /** Records written so far. */
  records(): WorkerRecord[];
  /** Resolves once at least n records exist; rejects after timeoutMs or when the worker exits first. */
  waitForRecords(n: number, timeoutMs?: number): Promise<WorkerRecord[]>;
  /** SIGTERM (Laravel finishes the current job and exits 0), then everything it left. */
  stop(): Promise<LaravelWorkerRun>;
  /** Settles when the worker exits by itself. */
  done: Promise<LaravelWorkerRun>;
}

/** What version.php printed for a line that booted. */
export interface LaravelBoot {
  line: PhpLaravelLine;
  /** The framework's own Application::VERSION, e.g. "12.67.0". */
  version: string;
  php: string;
  /** The folder the Illuminate classes were loaded from. */
  illuminate: string;
}

const boots = new Map<PhpLaravelLine, LaravelBoot | Error>();

/**
 * Boots the line once per process (unpacking 12.67/13.26 into .cache/laravel first when missing) and
 * returns what it reported, or why it could not boot.
 */
export function bootLaravel(line: PhpLaravelLine = DEFAULT_LARAVEL_LINE): LaravelBoot | Error {
  let boot = boots.get(line);
  if (boot === undefined) {
    boot = tryBoot(line);
    boots.set(line, boot);
  }
  return boot;
}

function tryBoot(line: PhpLaravelLine): LaravelBoot | Error {
  const check =
    'exit(extension_loaded("redis") && extension_loaded("pdo_sqlite") && extension_loaded("mbstring")' +
    ' && is_file("/usr/share/php/Illuminate/autoload.php") ? 0 : 1);';
  try {
    execFileSync('php', ['-r', check], { stdio: 'ignore' });
  } catch {
    return new Error(
      'php8.2-cli with php-redis, php-sqlite3, php-mbstring and php-laravel-framework is required (scripts/setup installs them)',
    );
  }
  if (line !== '8.83') {
    const unpack = spawnSync('bash', [join(ROOT, 'scripts', 'unpack-laravel'), line], { encoding: 'utf8' });
    if (unpack.status !== 0)
      return new Error(`Laravel ${line} could not be unpacked: ${unpack.stderr.trim() || unpack.error?.message}`);
  }
  const run = spawnSync('php', [join(PHP_DIR, 'version.php')], {
    encoding: 'utf8',
    env: { ...process.env, ...laravelEnv(line) },
    timeout: 60000,
  });
  if (run.status !== 0)
    return new Error(
      `Laravel ${line} does not boot (version.php exited ${run.status ?? run.signal}): ${run.stderr.trim()}`,
    );
  return JSON.parse(run.stdout) as LaravelBoot;
}

/** php with phpredis, pdo_sqlite and mbstring is installed, and the Laravel line boots. */
export function hasLaravelPhp(line: PhpLaravelLine = DEFAULT_LARAVEL_LINE): boolean {
  return !(bootLaravel(line) instanceof Error);
}

/** Call from a `before` hook: skips the suite locally when the line cannot boot, fails in CI. */
export function requirePhp(ctx: Mocha.Context, line: PhpLaravelLine = DEFAULT_LARAVEL_LINE): LaravelBoot {
  const boot = bootLaravel(line);
  if (!(boot instanceof Error)) return boot;
  if (inCI) throw new Error(`${boot.message} (in CI every Laravel line must boot: .ci/run)`);
  ctx.skip();
}

/** Runs a PHP script (a name in compat-fixtures/php, or a path); kills it after timeoutMs. */
export function runPhp(
  script: string,
  args: string[] = [],
  env: Record<string, string> = {},
  timeoutMs = 60000,
): Promise<PhpResult> {
  return spawnPhp(script, args, env, timeoutMs).result;
}

/** Dispatches a dispatch.php scenario through real Laravel; rejects when the script fails. */
export async function phpDispatch(
  scenario: string,
  opts: PhpConnection & { args?: (string | number)[] },
): Promise<PhpDispatchResult> {
  const args = [scenario, ...(opts.args ?? []).map(String)];
  const res = await runPhp('dispatch.php', args, phpEnv(opts));
  if (res.code !== 0)
    throw new Error(`dispatch.php ${args.join(' ')} exited ${res.code ?? res.signal}:\n${res.stderr}`);
  return JSON.parse(res.stdout) as PhpDispatchResult;
}

/** Runs Laravel's worker until it stops by itself (stop-when-empty by default); its records, in order. */
export async function runLaravelWorker(opts: LaravelWorkerOptions): Promise<WorkerRecord[]> {
  const run = await runLaravelWorkerDetailed(opts);
  if (run.code !== 0) throw new Error(`worker.php exited ${run.code ?? run.signal}:\n${run.stderr}`);
  return run.records;
}

/** Like runLaravelWorker, without judging the exit: records, failed jobs, events and output. */
export function runLaravelWorkerDetailed(opts: LaravelWorkerOptions): Promise<LaravelWorkerRun> {
  return startWorker({ stopWhenEmpty: true, ...opts }).done;
}

/** Starts Laravel's worker in the background (no stop-when-empty unless asked). */
export function startLaravelWorker(opts: LaravelWorkerOptions): LaravelWorkerHandle {
  return startWorker(opts);
}

function startWorker(opts: LaravelWorkerOptions): LaravelWorkerHandle {
  const dir = mkdtempSync(join(tmpdir(), 'larq-php-'));
  const files = {
    record: opts.recordFile ?? join(dir, 'records.jsonl'),
    failed: opts.failedFile ?? join(dir, 'failed.jsonl'),
    events: opts.eventsFile ?? join(dir, 'events.jsonl'),
  };
  const env = { ...phpEnv(opts), LARQ_RECORD: files.record, LARQ_FAILED: files.failed, LARQ_EVENTS: files.events };
  // The worker ends itself (worker.php assumes --max-time=60 when unbounded); this is the backstop.
  const backstopMs = opts.processTimeoutMs ?? ((opts.maxTime ?? 60) + 30) * 1000;
  const { proc, result } = spawnPhp('worker.php', workerArgs(opts), env, backstopMs);
  let exited = false;
  const done = result
    .then((res): LaravelWorkerRun => ({
      ...res,
      records: readJsonLines<WorkerRecord>(files.record),
      failed: readJsonLines<FailedRecord>(files.failed),
      events: readJsonLines<WorkerEvent>(files.events),
    }))
    .finally(() => {
      exited = true;
      rmSync(dir, { recursive: true, force: true });
    });
  // A background worker nobody awaits must not turn a kill into an unhandled rejection.
  done.catch(() => undefined);
  const records = (): WorkerRecord[] => (exited ? [] : readJsonLines<WorkerRecord>(files.record));
  return {
    pid: proc.pid,
    records,
    done,
    async waitForRecords(n: number, timeoutMs = 20000): Promise<WorkerRecord[]> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        if (exited) {
          const run = await done;
          if (run.records.length >= n) return run.records;
          throw new Error(
            `worker exited (${run.code ?? run.signal}) after ${run.records.length} of ${n} records:\n${run.stderr}`,
          );
        }
        const now = records();
        if (now.length >= n) return now;
        if (Date.now() > deadline) throw new Error(`only ${now.length} of ${n} records after ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    stop(): Promise<LaravelWorkerRun> {
      if (!exited) proc.kill('SIGTERM');
      return done;
    },
  };
}

/** The environment that points a harness script at the connection's Redis: one server or a cluster. */
export function redisEnv(opts: Pick<PhpConnection, 'port' | 'cluster'>): Record<string, string> {
  if (opts.cluster !== undefined && opts.port !== undefined)
    throw new Error('a PhpConnection takes port or cluster, not both');
  if (opts.cluster !== undefined) {
    if (opts.cluster.length === 0) throw new Error("a PhpConnection's cluster names no node");
    return { LARQ_REDIS_CLUSTER: opts.cluster.join(',') };
  }
  if (opts.port === undefined) throw new Error('a PhpConnection needs port or cluster');
  return { LARQ_REDIS_PORT: String(opts.port) };
}

function phpEnv(opts: PhpConnection): Record<string, string> {
  const env: Record<string, string> = { ...laravelEnv(opts.laravel), ...redisEnv(opts), LARQ_PREFIX: opts.prefix };
  if (opts.appKey !== undefined) env.LARQ_APP_KEY = opts.appKey;
  if (opts.retryAfter !== undefined) env.LARQ_RETRY_AFTER = String(opts.retryAfter);
  if (opts.blockFor !== undefined) env.LARQ_BLOCK_FOR = String(opts.blockFor);
  if (opts.defaultQueue !== undefined) env.LARQ_QUEUE = opts.defaultQueue;
  if (opts.cachePrefix !== undefined) env.LARQ_CACHE_PREFIX = opts.cachePrefix;
  if (opts.now !== undefined) env.LARQ_NOW = String(opts.now);
  return { ...env, ...opts.env };
}

function workerArgs(opts: LaravelWorkerOptions): string[] {
  const args: string[] = [];
  const flag = (name: string, on: boolean | undefined): void => {
    if (on) args.push(`--${name}`);
  };
  const value = (name: string, v: number | string | undefined): void => {
    if (v !== undefined) args.push(`--${name}=${v}`);
  };
  value('queue', opts.queue);
  flag('once', opts.once);
  flag('stop-when-empty', opts.stopWhenEmpty);
  value('max-jobs', opts.maxJobs);
  value('max-time', opts.maxTime);
  value('tries', opts.tries);
  value('sleep', opts.sleep ?? 0.1);
  value('timeout', opts.timeout);
  value('backoff', opts.backoff);
  value('memory', opts.memory);
  value('rest', opts.rest);
  flag('force', opts.force);
  return args;
}

function spawnPhp(
  script: string,
  args: string[],
  env: Record<string, string>,
  timeoutMs: number,
): { proc: ChildProcess; result: Promise<PhpResult> } {
  const path = isAbsolute(script) ? script : join(PHP_DIR, script);
  // The line is always named, so a LARQ_LARAVEL in the spec runner's own environment changes nothing.
  const proc = spawn('php', [path, ...args], {
    env: { ...process.env, ...laravelEnv(), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const result = new Promise<PhpResult>((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    proc.stdout?.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    proc.stderr?.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => {
      timedOut = true;
      proc.kill('SIGKILL');
    }, timeoutMs);
    proc.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    proc.on('close', (code, signal) => {
      clearTimeout(timer);
      if (timedOut) reject(new Error(`php ${script} ${args.join(' ')} killed after ${timeoutMs} ms:\n${stderr}`));
      else resolve({ stdout, stderr, code, signal });
    });
  });
  return { proc, result };
}

/** Complete lines only: a line still being written (no newline yet) is left for the next read. */
function readJsonLines<T>(file: string): T[] {
  if (!existsSync(file)) return [];
  const lines = readFileSync(file, 'utf8').split('\n');
  lines.pop();
  return lines.filter((line) => line.trim() !== '').map((line) => JSON.parse(line) as T);
}

/** The harness's entry points bound to one Laravel line (each call's own `laravel` still wins). */
export interface LaravelHarness {
  line: PhpLaravelLine;
  /** The line's major version, larq's LaravelLine (`laravel:` of RedisQueue and the worker). */
  major: 8 | 12 | 13;
  phpDispatch(scenario: string, opts: PhpConnection & { args?: (string | number)[] }): Promise<PhpDispatchResult>;
  runLaravelWorker(opts: LaravelWorkerOptions): Promise<WorkerRecord[]>;
  runLaravelWorkerDetailed(opts: LaravelWorkerOptions): Promise<LaravelWorkerRun>;
  startLaravelWorker(opts: LaravelWorkerOptions): LaravelWorkerHandle;
  runPhp(script: string, args?: string[], env?: Record<string, string>, timeoutMs?: number): Promise<PhpResult>;
}

/** phpDispatch, the Laravel worker and runPhp on one line: `const php = laravelHarness('13.26')`. */
export function laravelHarness(line: PhpLaravelLine): LaravelHarness {
  return {
    line,
    major: laravelMajor(line),
    phpDispatch: (scenario, opts) => phpDispatch(scenario, { laravel: line, ...opts }),
    runLaravelWorker: (opts) => runLaravelWorker({ laravel: line, ...opts }),
    runLaravelWorkerDetailed: (opts) => runLaravelWorkerDetailed({ laravel: line, ...opts }),
    startLaravelWorker: (opts) => startLaravelWorker({ laravel: line, ...opts }),
    runPhp: (script, args = [], env = {}, timeoutMs) =>
      runPhp(script, args, { ...laravelEnv(line), ...env }, timeoutMs),
  };
}

// ---- Horizon ----------------------------------------------------------------------------------------
// Laravel Horizon 5.29.1 on 12.67 and 13.26 (compat-fixtures/php/horizon.php boots it: its RedisQueue,
// Redis repositories and EventMap listeners, registered by hand; unpacked into .cache/laravel/horizon-5.29
// by scripts/unpack-laravel). What had to be supplied for it, without Composer or a Laravel app: an
// autoloader for Laravel\Horizon\, Debian's phpdotenv for config/horizon.php's env() calls, the PHP 8.4
// functions laravel.php already defines, and the service provider's bindings, listeners and queue
// connector. Horizon itself runs unpatched.

/** The Laravel lines Horizon 5.29.1 is booted on. */
export const HORIZON_LINES = ['12.67', '13.26'] as const;

/** How a Horizon script reaches Redis: the queue's connection plus Horizon's own prefix. */
export interface HorizonConnection extends PhpConnection {
  /** HORIZON_PREFIX. */
  horizonPrefix: string;
}

/** One job record as Horizon's RedisJobRepository returns it (false for a field the hash lacks). */
export interface HorizonRecord {
  id: string;
  connection: string;
  queue: string;
  name: string;
  status: string;
  payload: string;
  exception: string | false;
  context: string | false;
  failed_at: string | false;
  completed_at: string | false;
  retried_by: string | false;
  reserved_at: string | false;
  index: number;
}

/** horizon-cli.php read: what Horizon's repositories answer. */
export interface HorizonRead {
  recent: HorizonRecord[];
  pending: HorizonRecord[];
  completed: HorizonRecord[];
  silenced: HorizonRecord[];
  failed: HorizonRecord[];
  counts: Record<'recent' | 'pending' | 'completed' | 'silenced' | 'failed' | 'recentlyFailed', number>;
  metrics: {
    jobs: Record<string, { throughput: number; runtime: number }>;
    queues: Record<string, { throughput: number; runtime: number }>;
  };
  afterSnapshot: {
    measuredJobs: string[];
    measuredQueues: string[];
    jobs: Record<string, { throughput: number | string; runtime: number | string; time: number }[]>;
    queues: Record<string, { throughput: number | string; runtime: number | string; wait: number; time: number }[]>;
  };
  tags: { monitoring: string[]; jobs: Record<string, string[]>; count: Record<string, number> };
}

const horizonBoots = new Map<PhpLaravelLine, Error | null>();

/** Call from a `before` hook: Horizon must boot on the line (skipped locally when it cannot, failed in CI). */
export function requireHorizon(ctx: Mocha.Context, line: PhpLaravelLine): void {
  requirePhp(ctx, line);
  let boot = horizonBoots.get(line);
  if (boot === undefined) {
    const unpack = spawnSync('bash', [join(ROOT, 'scripts', 'unpack-laravel'), 'horizon-5.29'], { encoding: 'utf8' });
    const run =
      unpack.status === 0
        ? spawnSync('php', [join(PHP_DIR, 'horizon-cli.php'), 'boot'], {
            encoding: 'utf8',
            env: { ...process.env, ...laravelEnv(line) },
            timeout: 60000,
          })
        : unpack;
    boot = run.status === 0 ? null : new Error(`Horizon 5.29.1 does not boot on Laravel ${line}: ${run.stderr.trim()}`);
    horizonBoots.set(line, boot);
  }
  if (boot === null) return;
  if (inCI) throw new Error(`${boot.message} (in CI Horizon must boot: scripts/setup)`);
  ctx.skip();
}

/** The environment of a PHP process that runs under Horizon. */
export function horizonEnv(opts: HorizonConnection): Record<string, string> {
  return { LARQ_HORIZON: '1', HORIZON_PREFIX: opts.horizonPrefix };
}

/** Runs compat-fixtures/php/horizon-cli.php and parses its JSON; rejects when it fails. */
export async function horizonCli<T = unknown>(command: string, args: string[], opts: HorizonConnection): Promise<T> {
  const res = await runPhp(
    'horizon-cli.php',
    [command, ...args],
    phpEnv({ ...opts, env: { ...opts.env, ...horizonEnv(opts) } }),
  );
  if (res.code !== 0) throw new Error(`horizon-cli.php ${command} exited ${res.code ?? res.signal}:\n${res.stderr}`);
  return JSON.parse(res.stdout) as T;
}

/** Laravel's worker with Horizon's RedisQueue and listeners (worker.php under LARQ_HORIZON). */
export function runHorizonWorker(opts: LaravelWorkerOptions & HorizonConnection): Promise<LaravelWorkerRun> {
  return runLaravelWorkerDetailed({ ...opts, env: { ...opts.env, ...horizonEnv(opts) } });
}
