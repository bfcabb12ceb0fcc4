// `npm run bench`: larq against Laravel's own worker (PHP: 8.83 from Debian's packages and 13.26 from its
// release tarball, through compat-fixtures/php) and BullMQ, side by side in one run on one redis-server of
// its own, with no-op jobs, every contender on the settings its users get by default. Prints a table, the
// ratios the issues ask for, and writes bench-results.json. docs/benchmarks.md says how each is measured.
//   npm run bench                       20,000 jobs per end-to-end run, 1,000,000 for the memory run
//   npm run bench -- --jobs 5000 --memory-jobs 200000 --out results.json
//   npm run bench -- --only e2e         sections: push, dispatch, e2e, inprocess, ceiling, latency, memory
//   npm run bench -- --rounds 1         push, dispatch, e2e and inprocess run 3 times by default (medians)
//   npm run bench -- --laravel 13.26    the Laravel lines of the PHP rows (default 8.83,13.26; "none" skips them)
//   npm run bench -- --ceiling-jobs 20000   jobs per configuration in the ceiling search
// End to end (e2e): every worker a fresh process from compiled code (dist/, built first when lib/ is
// newer): `larq work` as a user starts it (its defaults, --quiet, --horizon, --metrics, jobs carrying
// WithoutOverlapping), createWorker and a BullMQ worker each in a script of their own, Laravel's worker
// through bench.php; each times itself from its first handler start to its last handler end.
// In-process (inprocess): the library's worker built in this process, as the end-to-end rows were before
// issue 35: what `larq work --stop-when-empty` passes to createWorker (timeout 60, tries 1, sleep 3, memory
// 128 above the start, signals handled, the Redis cache for queue:restart and queue:pause, a
// maintenance-file check, the default chain/batch/debounce hooks); one more row runs timeout 0 and says so.
// BullMQ's rows use BullMQ's worker defaults (lock renewal on); its jobs are added with removeOnComplete,
// so a finished job leaves Redis as Laravel's and larq's do. Laravel's rows run Illuminate\Queue\Worker
// with queue:work's defaults (bench.php). In-process workers are built and connected before their clock
// starts, and a full GC runs before each contender (the script runs with --expose-gc).
import { fork, spawn, spawnSync, type ChildProcess } from 'child_process';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'fs';
import { createServer } from 'net';
import { cpus, tmpdir, totalmem } from 'os';
import { delimiter, dirname, join } from 'path';
import { performance } from 'perf_hooks';
import { parseArgs } from 'util';
import { Queue as BullQueue, Worker as BullWorker } from 'bullmq';
import Redis from 'ioredis';
import { createWorker } from '../lib/createWorker';
import { Handlers } from '../lib/handlers/Handlers';
import { laravelJobTraits, phpClass } from '../lib/php/builder';
import { RedisQueue } from '../lib/RedisQueue';
import type { RedisQueueOptions } from '../lib/RedisQueueOptions';
import { JobMetrics } from '../lib/telemetry/JobMetrics';
import { heapMemoryUsage } from '../lib/worker/defaults';
import { createCacheStore } from '../lib/cache';
import { chainHooks, debouncedJobs } from '../lib/features';
import type { LaravelLine } from '../lib/LaravelLine';
import type { PhpObject } from '../lib/php/values';
import type { WorkerOptions } from '../lib/WorkerOptions';
import { appFreeEnv, contenderSettings } from './bench-contender-env';
import { describeCeiling, drainAtCeiling, searchCeiling, type CeilingConfig, type CeilingKeys } from './bench-ceiling';

const { values: flags } = parseArgs({
  options: {
    jobs: { type: 'string', default: '20000' },
    'push-jobs': { type: 'string' },
    'memory-jobs': { type: 'string', default: '1000000' },
    only: { type: 'string', default: 'push,dispatch,e2e,inprocess,ceiling,latency,memory' },
    laravel: { type: 'string', default: '8.83,13.26' },
    'ceiling-jobs': { type: 'string' },
    rounds: { type: 'string', default: '3' },
    out: { type: 'string', default: 'bench-results.json' },
  },
});
const N = Number(flags.jobs);
const PUSH_N = Number(flags['push-jobs'] ?? Math.min(N, 20000));
const MEMORY_N = Number(flags['memory-jobs']);
const SECTIONS = new Set(flags.only!.split(','));
const SECTION_NAMES = ['push', 'dispatch', 'e2e', 'inprocess', 'ceiling', 'latency', 'memory'];
for (const section of SECTIONS) {
  if (!SECTION_NAMES.includes(section))
    throw new Error(`--only: unknown section "${section}" (${SECTION_NAMES.join(', ')})`);
}
const CEILING_SEARCH_N = Number(flags['ceiling-jobs'] ?? Math.min(N, 20000));
// The Laravel lines of the PHP rows, each run through compat-fixtures/php with LARQ_LARAVEL.
type PhpLine = '8.83' | '12.67' | '13.26';
const LINES: PhpLine[] = flags.laravel === 'none' ? [] : (flags.laravel!.split(',') as PhpLine[]);
for (const line of LINES)
  if (!['8.83', '12.67', '13.26'].includes(line))
    throw new Error(`--laravel: unknown line "${line}" (8.83, 12.67, 13.26, none)`);
// The line of the larq rows and the ceiling: the newest (what most users run).
const LARQ_LINE = '13.26';
// Concurrent callers in the dispatch section's rows.
const CALLERS = 100;
// The push and end-to-end sections run this many times, contenders taking turns in each round; a row
// reports its median. A machine whose speed drifts (shared cores) then drifts under every contender.
const ROUNDS = Number(flags.rounds);
const PHP_DIR = join(__dirname, '..', 'compat-fixtures', 'php');

// The job PHP runs in the Laravel rows (compat-fixtures/php/bench.php), declared for larq as each line's
// traits have it.
const BENCH_NOOP = {
  8: phpClass('App\\Jobs\\BenchNoop', { n: 'public' }, { traits: laravelJobTraits(8), serializesModels: true }),
  12: phpClass('App\\Jobs\\BenchNoop', { n: 'public' }, { traits: laravelJobTraits(12), serializesModels: true }),
  13: phpClass('App\\Jobs\\BenchNoop', { n: 'public' }, { traits: laravelJobTraits(13), serializesModels: true }),
};
const BenchNoop = BENCH_NOOP[13];
const major = (line: PhpLine): LaravelLine => Number(line.split('.')[0]) as LaravelLine;

// What `larq work --stop-when-empty` passes to createWorker (lib/cli/commands/work.ts), every flag at its
// default; concurrency is the row's.
const LARQ_WORK_DEFAULTS: Partial<WorkerOptions> = {
  maxTries: 1,
  backoff: 0,
  timeout: 60,
  sleep: 3,
  rest: 0,
  memory: 128,
  maxJobs: 0,
  maxTime: 0,
  stopWhenEmpty: true,
  force: false,
  name: 'default',
  handleSignals: true,
};
// The file whose presence means "down for maintenance", checked by larq and Laravel alike (never created).
const DOWN_FILE = join(tmpdir(), `larq-bench-down-${process.pid}`);

interface Row {
  section: string;
  name: string;
  jobs: number;
  /** The median run's seconds and rate. */
  seconds: number;
  perSecond: number;
  /** Every round's rate, in order. */
  runs: number[];
  /** End to end: the median round's Redis CPU time (user + system, from INFO) per job, in microseconds. */
  redisMicrosPerJob?: number;
  redisRuns?: number[];
  /** A worker process: its CPU time (user + system) per job over the clock's span, in microseconds. */
  workerMicrosPerJob?: number;
  workerRuns?: number[];
  /** A worker process: the bytes it wrote to stdout (the median round's). */
  outputBytes?: number;
}
const rows: Row[] = [];
// True during warmUp(): runs then are not recorded.
let warming = false;
const extra: Record<string, number> & { ceilingSearch?: unknown } = {};

async function main(): Promise<void> {
  const { port, stop } = await startRedis();
  const redis = new Redis({ port });
  const lines = LINES.filter((line) => phpAvailable(line));
  const missing = LINES.filter((line) => !lines.includes(line));
  if (typeof global.gc !== 'function')
    console.log('note: run with node --expose-gc (npm run bench does) for a full GC between contenders');
  console.log(
    `larq bench: ${cpus().length} cores (${cpus()[0]?.model ?? '?'}), ${Math.round(totalmem() / 2 ** 30)} GiB, node ${process.version}, ${redisVersion(port)}`,
  );
  console.log(
    `end-to-end ${N} jobs, push ${PUSH_N} jobs, ceiling search ${CEILING_SEARCH_N} jobs a configuration, memory ${MEMORY_N} jobs; ` +
      `PHP: ${lines.length > 0 ? `Laravel ${lines.join(', ')}` : 'none'}${missing.length > 0 ? ` (cannot boot ${missing.join(', ')}: rows skipped)` : ''}\n`,
  );
  try {
    if (SECTIONS.has('e2e') || SECTIONS.has('memory')) ensureBuilt();
    if (SECTIONS.has('push') || SECTIONS.has('dispatch') || SECTIONS.has('inprocess')) await warmUp(port, redis);
    if (SECTIONS.has('ceiling') || SECTIONS.has('inprocess')) await ceilingSearch(port, redis);
    for (let round = 1; round <= ROUNDS; round++) {
      if (ROUNDS > 1) console.log(`round ${round} of ${ROUNDS}`);
      if (SECTIONS.has('push')) await pushSection(port, redis, lines, round);
      if (SECTIONS.has('dispatch')) await dispatchSection(port, redis, lines, round);
      if (SECTIONS.has('e2e')) await e2eSection(port, redis, lines, round);
      if (SECTIONS.has('inprocess')) await inprocessSection(port, redis, round);
      else if (SECTIONS.has('ceiling')) await ceiling(port, redis);
    }
    if (SECTIONS.has('latency')) await latencySection(port, redis);
    if (SECTIONS.has('memory')) await memorySection(port, redis);
  } finally {
    redis.disconnect();
    stop();
  }
  report();
}

// ---- warm-up ----------------------------------------------------------------------------------------

// Untimed runs of the Node contenders (larq and BullMQ) before the first round, so that neither is timed
// while V8 is still compiling its code: a larq worker's first 100,000 jobs in a fresh process ran slower
// than the same worker's later runs. PHP has no JIT to warm (opcache is off on the CLI), and each of its
// rows is a fresh process anyway.
async function warmUp(port: number, redis: Redis): Promise<void> {
  warming = true;
  try {
    const jobs = Math.min(N, 20000);
    const few = Math.min(PUSH_N, 2000);
    if (SECTIONS.has('push')) {
      await larqPushOneByOne(port, redis, few);
      await bullAddOneByOne(port, redis, few);
      await larqBulk(port, redis, jobs);
      await bullAddBulk(port, redis, jobs);
    }
    if (SECTIONS.has('dispatch')) {
      await larqPushConcurrently(port, redis, few);
      await bullAddConcurrently(port, redis, few);
    }
    if (SECTIONS.has('inprocess')) {
      await larqWorker(port, redis, 50, 60, jobs);
      await larqWorker(port, redis, 50, 0, jobs);
      await bullWorker(port, redis, 50, jobs);
      await larqWorker(port, redis, 1, 60, few);
      await bullWorker(port, redis, 1, few);
    }
  } finally {
    warming = false;
  }
  console.log('warm-up done (not timed)');
}

// ---- push -------------------------------------------------------------------------------------------

async function pushSection(port: number, redis: Redis, lines: PhpLine[], round: number): Promise<void> {
  // Each ratio's two rows run back to back, the first of them taking turns by round: the host's speed
  // drifts over minutes (a peer's row once ran 25% faster than in the next round), and rows run minutes
  // apart would carry that drift into the ratio.
  await inTurn(
    round,
    () => larqPushOneByOne(port, redis),
    () => laravelPushes(port, redis, lines),
  );
  await inTurn(
    round,
    () => larqBulk(port, redis),
    () => bullAddBulk(port, redis),
  );
  await bullAddOneByOne(port, redis);
}

async function laravelPushes(port: number, redis: Redis, lines: PhpLine[]): Promise<void> {
  for (const line of lines) await laravelPushOneByOne(port, redis, line);
}

async function larqPushOneByOne(port: number, redis: Redis, jobs = PUSH_N): Promise<void> {
  await fresh(redis);
  const q = await larqQueue(port);
  await timed('push', 'larq push, one by one', jobs, async () => {
    for (let i = 0; i < jobs; i++) await q.push(BenchNoop.make({ n: i }));
  });
  await q.close();
}

async function larqBulk(port: number, redis: Redis, jobs = N): Promise<void> {
  await fresh(redis);
  const q = await larqQueue(port);
  await timed('push', 'larq bulk (1,000 a call)', jobs, async () => {
    await bulkLarq(q, jobs);
  });
  await q.close();
}

const laravelPushRow = (line: PhpLine) => `Laravel ${line} Queue::push, one by one (PHP, one process)`;

async function laravelPushOneByOne(port: number, redis: Redis, line: PhpLine): Promise<void> {
  await fresh(redis);
  const out = runPhp(['push', String(PUSH_N)], port, line);
  record('push', laravelPushRow(line), PUSH_N, JSON.parse(out).seconds);
}

async function bullAddOneByOne(port: number, redis: Redis, jobs = PUSH_N): Promise<void> {
  await fresh(redis);
  const bull = await bullQueue(port);
  await timed('push', 'BullMQ add, one by one', jobs, async () => {
    for (let i = 0; i < jobs; i++) await bull.add('noop', { n: i }, { removeOnComplete: true });
  });
  await bull.close();
}

async function bullAddBulk(port: number, redis: Redis, jobs = N): Promise<void> {
  await fresh(redis);
  const bull = await bullQueue(port);
  await timed('push', 'BullMQ addBulk (1,000 a call)', jobs, async () => {
    await bulkBull(bull, jobs);
  });
  await bull.close();
}

// The two rows of one ratio, back to back: larq first in odd rounds, its peer first in even ones.
async function inTurn(round: number, larq: () => Promise<void>, peer: () => Promise<void>): Promise<void> {
  for (const run of round % 2 === 1 ? [larq, peer] : [peer, larq]) await run();
}

// ---- concurrent dispatch ----------------------------------------------------------------------------

// What a Node web app does: many requests at once, each dispatching one job and awaiting it. CALLERS
// callers share one queue object (one connection, as an app shares one client), each pushing one job at
// a time until PUSH_N jobs are in. PHP serves one request per process, so Laravel's row is the push
// section's: one process pushing one by one.
async function dispatchSection(port: number, redis: Redis, lines: PhpLine[], round: number): Promise<void> {
  await inTurn(
    round,
    () => larqPushConcurrently(port, redis),
    () => bullAddConcurrently(port, redis),
  );
  if (!SECTIONS.has('push'))
    await laravelPushes(
      port,
      redis,
      lines.filter((line) => line === '13.26'),
    );
}

const LARQ_CONCURRENT = `larq push, ${CALLERS} concurrent callers`;
const BULL_CONCURRENT = `BullMQ add, ${CALLERS} concurrent callers`;

async function larqPushConcurrently(port: number, redis: Redis, jobs = PUSH_N): Promise<void> {
  await fresh(redis);
  const q = await larqQueue(port);
  await timed('dispatch', LARQ_CONCURRENT, jobs, () => concurrently(jobs, (i) => q.push(BenchNoop.make({ n: i }))));
  await q.close();
  const waiting = await redis.llen('bench_queues:default');
  if (waiting !== jobs) throw new Error(`larq's concurrent pushes left ${waiting} jobs, not ${jobs}`);
}

async function bullAddConcurrently(port: number, redis: Redis, jobs = PUSH_N): Promise<void> {
  await fresh(redis);
  const bull = await bullQueue(port);
  await timed('dispatch', BULL_CONCURRENT, jobs, () =>
    concurrently(jobs, (i) => bull.add('noop', { n: i }, { removeOnComplete: true })),
  );
  await bull.close();
}

// CALLERS loops, each awaiting one call at a time, together making `jobs` calls.
async function concurrently(jobs: number, call: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  const caller = async (): Promise<void> => {
    while (next < jobs) await call(next++);
  };
  await Promise.all(range(0, Math.min(CALLERS, jobs)).map(() => caller()));
}

// ---- end to end -------------------------------------------------------------------------------------

const larqRow = (concurrency: number, timeout: number, metrics = false) =>
  `larq worker, concurrency ${concurrency}${timeout === 60 ? '' : `, TIMEOUT ${timeout} (not the default)`}${metrics ? ', with metrics (larq work --metrics)' : ''} (in-process)`;
const laravelRow = (line: PhpLine, processes: number) =>
  `Laravel ${line} worker, ${processes} process${processes > 1 ? 'es' : ''}`;
const BULL_INPROCESS = (concurrency: number) => `BullMQ worker, concurrency ${concurrency} (in-process)`;

// The library's worker built in this process, as the end-to-end rows were measured before issue 35 (kept
// so that a commit can be compared with an older one's "e2e" rows): what one worker loop costs when no
// process start, no output and no CLI are around it. Not what a user runs: see the end-to-end section.
async function inprocessSection(port: number, redis: Redis, round: number): Promise<void> {
  // As in the push section, each ratio's rows run back to back, taking turns at going first.
  await inTurn(
    round,
    () => larqWorker(port, redis, 50, 60),
    () => bullWorker(port, redis, 50),
  );
  await inTurn(
    round,
    () => larqWorker(port, redis, 50, 60),
    () => larqWorker(port, redis, 50, 0),
  );
  await inTurn(
    round,
    () => larqWorker(port, redis, 50, 60),
    () => larqWorker(port, redis, 50, 60, N, true),
  );
  await inTurn(
    round,
    () => larqWorker(port, redis, 50, 60),
    () => ceiling(port, redis),
  );
  await inTurn(
    round,
    () => larqWorker(port, redis, 1, 60),
    () => bullWorker(port, redis, 1),
  );
}

// ---- end to end: every worker a process of its own ---------------------------------------------------

// Each contender is a fresh process started from compiled code, on the settings its users get, its output
// on a pipe this process drains, working N jobs this process pushed before starting it. The clock is the
// contender's own (scripts/bench-clock.js for Node, bench.php's BenchClock for PHP): from the first
// handler start to the last handler end, with the process's CPU time over the same span; Redis' CPU time
// (INFO) runs from just before the process starts to the moment its report is written (a Laravel process:
// to its exit), so it includes each contender's start-up commands, a few against N jobs.
const HANDLERS_MODULE = join(__dirname, 'bench-handlers.js');
const CLI_MAIN = join(__dirname, '..', 'dist', 'cli', 'main.js');

/** A process contender: how it is started and how its queue is filled. */
interface Contender {
  name: string;
  /** The program: a script run by this node, or (larq work) the installed bin itself, run through its
   * `#!/usr/bin/env node` line as a supervisor runs node_modules/.bin/larq, with whatever that line says. */
  program: 'node' | 'bin';
  /** Its arguments (for node: the script first). */
  args: (concurrency: number) => string[];
  env?: (concurrency: number) => NodeJS.ProcessEnv;
  /** Fill the queue with `jobs` jobs. */
  fill: (port: number, jobs: number) => Promise<void>;
  /** How many jobs are left (waiting or reserved) once it is done. */
  left: (redis: Redis) => Promise<number>;
}

const larqLeft = async (redis: Redis) =>
  (await redis.llen('bench_queues:default')) + (await redis.zcard('bench_queues:default:reserved'));
const larqWork = (name: string, flags: string[], fill = prefillLarq): Contender => ({
  name,
  program: 'bin',
  args: (c) => ['work', `--handlers=${HANDLERS_MODULE}`, ...(c === 1 ? [] : [`--concurrency=${c}`]), ...flags],
  fill,
  left: larqLeft,
});
let metricsPort = 0;
const CONTENDERS = {
  work: larqWork('larq work', []),
  quiet: larqWork('larq work --quiet', ['--quiet']),
  horizon: larqWork('larq work --horizon', ['--horizon']),
  metrics: {
    ...larqWork('larq work --metrics', []),
    args: (c: number): string[] => [...larqWork('', []).args(c), `--metrics=127.0.0.1:${metricsPort}`],
  },
  // ->through([new WithoutOverlapping($this->n)]) on each job: a lock per job (the key is the job's number n,
  // one key per job), taken and released on the cache store's lock connection around every job
  overlap: larqWork('larq work, jobs ->through([new WithoutOverlapping(n)])', [], (port, jobs) =>
    prefillLarq(port, jobs, LARQ_LINE, (n) => BenchNoop.make({ n, middleware: [withoutOverlapping(n)] })),
  ),
  createWorker: {
    name: 'createWorker (larq work defaults), own script',
    program: 'node',
    args: () => [join(__dirname, 'bench-createworker.js')],
    env: (c: number) => ({ LARQ_BENCH_CONCURRENCY: String(c) }),
    fill: prefillLarq,
    left: larqLeft,
  },
  bull: {
    name: 'BullMQ worker (defaults), own script',
    program: 'node',
    args: () => [join(__dirname, 'bench-bullmq.js')],
    env: (c: number) => ({ LARQ_BENCH_CONCURRENCY: String(c) }),
    fill: async (port: number, jobs: number) => {
      const bull = await bullQueue(port);
      await bulkBull(bull, jobs);
      await bull.close();
    },
    left: async (redis: Redis) => (await redis.llen('bull:bench:wait')) + (await redis.llen('bull:bench:active')),
  },
} satisfies Record<string, Contender>;

const processRow = (name: string, concurrency: number) => `${name}, concurrency ${concurrency}`;

// The Laravel 13 payload of WithoutOverlapping($n) as `->through()` serializes it into the job.
const OVERLAP = phpClass('Illuminate\\Queue\\Middleware\\WithoutOverlapping', {
  key: 'public',
  releaseAfter: 'public',
  expiresAfter: 'public',
  prefix: 'public',
  shareKey: 'public',
});
function withoutOverlapping(key: number): PhpObject {
  return OVERLAP.make({ key, releaseAfter: 0, expiresAfter: 0, prefix: 'laravel-queue-overlap:', shareKey: false });
}

async function e2eSection(port: number, redis: Redis, lines: PhpLine[], round: number): Promise<void> {
  // Contenders take turns: each round starts one further down the list, so that no one always runs
  // first (or right after the same neighbour) while the machine's speed drifts.
  const c50 = [
    CONTENDERS.work,
    CONTENDERS.bull,
    CONTENDERS.quiet,
    CONTENDERS.createWorker,
    CONTENDERS.horizon,
    CONTENDERS.metrics,
    CONTENDERS.overlap,
  ];
  for (const contender of rotate(c50, round)) await processContender(port, redis, contender, 50);
  const c1: (() => Promise<void>)[] = [CONTENDERS.work, CONTENDERS.bull, CONTENDERS.quiet, CONTENDERS.createWorker].map(
    (contender) => () => processContender(port, redis, contender, 1),
  );
  for (const line of lines) c1.push(() => laravelWorker(port, redis, line, 1));
  for (const run of rotate(c1, round)) await run();
}

function rotate<T>(list: T[], round: number): T[] {
  const k = (round - 1) % list.length;
  return [...list.slice(k), ...list.slice(0, k)];
}

let reports = 0;

async function processContender(port: number, redis: Redis, contender: Contender, concurrency: number): Promise<void> {
  await fresh(redis);
  await contender.fill(port, N);
  if (contender === CONTENDERS.metrics) metricsPort = await freePort();
  const report = join(tmpdir(), `larq-bench-${process.pid}-${++reports}.json`);
  rmSync(report, { force: true });
  const name = processRow(contender.name, concurrency);
  const cpuBefore = await redisCpuSeconds(redis);
  const [command, args] =
    contender.program === 'bin'
      ? [CLI_MAIN, contender.args(concurrency)]
      : [process.execPath, contender.args(concurrency)];
  const child = spawn(command, args, {
    cwd: tmpdir(),
    env: {
      ...appFreeEnv(),
      // the bin's `#!/usr/bin/env node` finds this node first
      PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}`,
      ...contender.env?.(concurrency),
      ...contenderSettings({ port, jobs: N, report, downFile: DOWN_FILE, laravel: LARQ_LINE }),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // Drained as a supervisor's pipe is: read and dropped (stderr's tail kept for a failure's message).
  let outBytes = 0;
  let errTail = '';
  child.stdout.on('data', (d: Buffer) => (outBytes += d.length));
  child.stderr.on('data', (d: Buffer) => (errTail = (errTail + d.toString()).slice(-2000)));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  let exitCode: number | null | undefined;
  void exited.then((code) => (exitCode = code));
  const deadline = Date.now() + 600000;
  while (!existsSync(report)) {
    if (exitCode !== undefined || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(
        `${name}: ${exitCode !== undefined ? `exited ${exitCode}` : 'timed out'} before its report\n${errTail}`,
      );
    }
    await sleep(5);
  }
  const redisMicros = (((await redisCpuSeconds(redis)) - cpuBefore) * 1e6) / N;
  child.kill('SIGTERM');
  // A worker drains its jobs in flight and exits; one that does not within a minute is killed (and fails the run).
  const kill = setTimeout(() => child.kill('SIGKILL'), 60000);
  const code = await exited;
  clearTimeout(kill);
  const { jobs, seconds, cpuMicros } = JSON.parse(readFileSync(report, 'utf8')) as {
    jobs: number;
    seconds: number;
    cpuMicros: number;
  };
  rmSync(report, { force: true });
  if (code !== 0) throw new Error(`${name}: exited ${code} on SIGTERM\n${errTail}`);
  if (jobs !== N) throw new Error(`${name}: ran ${jobs} jobs, not ${N}`);
  const left = await contender.left(redis);
  if (left !== 0) throw new Error(`${name}: left ${left} jobs`);
  record('e2e', name, N, seconds, redisMicros, cpuMicros / N, outBytes);
}

async function larqWorker(
  port: number,
  redis: Redis,
  concurrency: number,
  timeout: number,
  jobs = N,
  metrics = false,
): Promise<void> {
  await fresh(redis);
  await prefillLarq(port, jobs);
  // With metrics: what `larq work --metrics` records, in a prom-client Registry (nobody scrapes it here).
  const q = await larqQueue(port, LARQ_LINE, metrics ? { telemetry: { metrics: new JobMetrics() } } : {});
  // As `larq work` wires it: the default cache store (Redis here, on its own connection) for the
  // restart and pause signals, the maintenance check, memory counted from a baseline taken now.
  const cacheConnection = new Redis({ port });
  await cacheConnection.ping();
  const cache = createCacheStore({ driver: 'redis', connection: cacheConnection, prefix: 'bench_', laravel: 13 });
  const handlers = new Handlers().object('App\\Jobs\\BenchNoop', () => undefined);
  handlers.useDefaults([
    debouncedJobs(cache),
    chainHooks(q),
    {
      feature: 'batch',
      afterHandle: (ctx) => {
        if (ctx.command?.get('batchId')) throw new Error('the bench pushes no batched jobs');
      },
    },
  ]);
  const baseline = heapMemoryUsage();
  const worker = createWorker(
    q,
    handlers,
    { ...LARQ_WORK_DEFAULTS, concurrency, timeout },
    {
      cache,
      isDownForMaintenance: () => existsSync(DOWN_FILE),
      memoryUsage: () => Math.max(0, heapMemoryUsage() - baseline),
    },
  );
  // The clock stops at the last job's JobProcessed (its delete done), as BullMQ's at its last 'completed':
  // with --stop-when-empty a worker that finds the queue empty sleeps `sleep` seconds (3) before it stops,
  // as Laravel's does, and that wait is no contender's throughput.
  let processed = 0;
  let lastDone: () => void = () => undefined;
  const allDone = new Promise<void>((resolve) => (lastDone = resolve));
  worker.on('JobProcessed', () => {
    if (++processed === jobs) lastDone();
  });
  let running: Promise<unknown> | undefined;
  await timed(
    'inprocess',
    larqRow(concurrency, timeout, metrics),
    jobs,
    () => {
      running = worker.daemon('default');
      return Promise.race([allDone, running]);
    },
    redis,
  );
  await running;
  if (processed !== jobs) throw new Error(`larq processed ${processed} jobs, not ${jobs}`);
  await q.close();
  await cache.close();
  cacheConnection.disconnect();
  // A run that stopped early would report a false rate: every job must be gone.
  const left = (await redis.llen('bench_queues:default')) + (await redis.zcard('bench_queues:default:reserved'));
  if (left !== 0) throw new Error(`larq left ${left} jobs`);
}

const CEILING = 'Redis alone: the true ceiling (best of the search), no worker';
const CEILING_SCRIPTED = 'Redis alone: best atomic script (Laravel-exact bytes), no worker';
const CEILING_KEYS: CeilingKeys = {
  waiting: 'bench_queues:default',
  reserved: 'bench_queues:default:reserved',
  notify: 'bench_queues:default:notify',
};
let ceilingConfig: CeilingConfig | undefined;
let scriptedCeilingConfig: CeilingConfig | undefined;

// Before the rounds: every ceiling configuration (scripts/bench-ceiling.ts) on CEILING_SEARCH_N jobs, the
// same larq-pushed payloads refilled before each run; the winner is the ceiling row in every round.
async function ceilingSearch(port: number, redis: Redis): Promise<void> {
  await fresh(redis);
  await prefillLarq(port, CEILING_SEARCH_N);
  const payloads = await redis.lrange(CEILING_KEYS.waiting, 0, -1);
  const refill = async (): Promise<void> => {
    await fresh(redis);
    for (let i = 0; i < payloads.length; i += 1000) {
      const chunk = payloads.slice(i, i + 1000);
      await redis
        .pipeline()
        .rpush(CEILING_KEYS.waiting, ...chunk)
        .rpush(CEILING_KEYS.notify, ...chunk.map(() => '1'))
        .exec();
    }
  };
  const { best, bestScripted, trials } = await searchCeiling(
    port,
    CEILING_KEYS,
    payloads.length,
    refill,
    collectGarbage,
  );
  ceilingConfig = best.config;
  scriptedCeilingConfig = bestScripted.config;
  const top = [...trials].sort((a, b) => b.perSecond - a.perSecond);
  console.log(`ceiling search, ${trials.length} configurations on ${payloads.length} jobs each; the best five:`);
  for (const t of top.slice(0, 5))
    console.log(`  ${String(Math.round(t.perSecond)).padStart(8)} jobs/s  ${describeCeiling(t.config)}`);
  console.log(
    `  winner (best median of 3 runs among the top 3): ${describeCeiling(best.config)}, ${Math.round(best.perSecond)} jobs/s`,
  );
  console.log(
    `  best atomic script (best median of 3 among the top 3 scripted): ${describeCeiling(bestScripted.config)}, ${Math.round(bestScripted.perSecond)} jobs/s`,
  );
  extra.ceilingSearch = {
    jobs: payloads.length,
    winner: { ...best, described: describeCeiling(best.config) },
    scriptedWinner: { ...bestScripted, described: describeCeiling(bestScripted.config) },
    trials,
  };
}

// The search's winner on N jobs, and the best atomic script beside it when the winner is not one.
async function ceiling(port: number, redis: Redis): Promise<void> {
  if (ceilingConfig === undefined || scriptedCeilingConfig === undefined)
    throw new Error('the ceiling search has not run');
  const rowsToRun: [string, CeilingConfig][] = [[CEILING, ceilingConfig]];
  if (scriptedCeilingConfig !== ceilingConfig) rowsToRun.push([CEILING_SCRIPTED, scriptedCeilingConfig]);
  for (const [name, config] of rowsToRun) {
    await fresh(redis);
    await prefillLarq(port, N);
    let taken = 0;
    await timed('inprocess', name, N, async () => (taken = await drainAtCeiling(port, CEILING_KEYS, config)), redis);
    if (taken !== N) throw new Error(`the ceiling run (${describeCeiling(config)}) took ${taken} jobs, not ${N}`);
  }
}

async function laravelWorker(port: number, redis: Redis, line: PhpLine, processes: number): Promise<void> {
  await fresh(redis);
  await prefillLarq(port, N, line);
  collectGarbage();
  const cpuBefore = await redisCpuSeconds(redis);
  // Each process reports its daemon's start and end (after booting and connecting); the row's time runs
  // from the first start to the last end.
  const spans = await Promise.all(range(0, processes).map(() => phpProcess(['work'], port, line)));
  const seconds = Math.max(...spans.map((s) => s.end)) - Math.min(...spans.map((s) => s.start));
  const cpu = spans.reduce((sum, s) => sum + s.cpuMicros, 0);
  const ran = spans.reduce((sum, s) => sum + s.jobs, 0);
  if (ran !== N) throw new Error(`Laravel ${line} ran ${ran} jobs, not ${N}`);
  record(
    'e2e',
    laravelRow(line, processes),
    N,
    seconds,
    (((await redisCpuSeconds(redis)) - cpuBefore) * 1e6) / N,
    cpu / N,
  );
  const left = (await redis.llen('bench_queues:default')) + (await redis.zcard('bench_queues:default:reserved'));
  if (left !== 0) throw new Error(`Laravel ${line} left ${left} jobs`);
}

async function bullWorker(port: number, redis: Redis, concurrency: number, jobs = N): Promise<void> {
  await fresh(redis);
  const bull = await bullQueue(port);
  await bulkBull(bull, jobs);
  let done = 0;
  let finish: () => void = () => undefined;
  const all = new Promise<void>((r) => (finish = r));
  // BullMQ's defaults but for autorun: built and connected before the clock starts, run inside it.
  const worker = new BullWorker('bench', async () => undefined, { connection: { port }, concurrency, autorun: false });
  worker.on('completed', () => {
    if (++done === jobs) finish();
  });
  await worker.waitUntilReady();
  let running: Promise<void> | undefined;
  await timed(
    'inprocess',
    BULL_INPROCESS(concurrency),
    jobs,
    () => {
      running = worker.run();
      return all;
    },
    redis,
  );
  await worker.close();
  await running;
  await bull.close();
}

// ---- pickup latency ---------------------------------------------------------------------------------

// Beside the pickups, in the same loop and so under the same conditions, a plain PING every 10 ms: one
// round trip to an idle Redis from an idle process, the floor of any pickup (a pickup needs at least
// one). And the host's steal time over the section (/proc/stat): on a shared host, the share of time
// these vCPUs wanted to run and did not. Both say how much of the p99 is the machine's.
async function latencySection(port: number, redis: Redis): Promise<void> {
  await fresh(redis);
  const samples: number[] = [];
  const pings: number[] = [];
  const count = 500;
  const q = await larqQueue(port, LARQ_LINE, { blockFor: 5 });
  const producer = await larqQueue(port);
  const pinger = new Redis({ port });
  await pinger.ping();
  let finish: () => void = () => undefined;
  const all = new Promise<void>((r) => (finish = r));
  const handlers = new Handlers().object('App\\Jobs\\BenchNoop', (command) => {
    samples.push(performance.timeOrigin + performance.now() - Number(command.n) / 1000);
    if (samples.length === count) finish();
  });
  // larq work's defaults, as in the end-to-end rows, but waiting for jobs (blockFor 5) until it has run them all.
  const worker = createWorker(q, handlers, {
    ...LARQ_WORK_DEFAULTS,
    stopWhenEmpty: false,
    concurrency: 1,
    maxJobs: count,
  });
  const running = worker.daemon('default');
  await sleep(200); // let the worker reach its blocking pop
  const stealBefore = stealTicks();
  for (let i = 0; i < count; i++) {
    // dispatch time in microseconds since the epoch rides in the job; 100 jobs/s
    await producer.push(BenchNoop.make({ n: Math.round((performance.timeOrigin + performance.now()) * 1000) }));
    await sleep(5);
    const sent = performance.now();
    await pinger.ping();
    pings.push(performance.now() - sent);
    await sleep(5);
  }
  const stealAfter = stealTicks();
  await all;
  await running;
  await q.close();
  await producer.close();
  pinger.disconnect();
  const quantile = (values: number[], f: number) =>
    round([...values].sort((a, b) => a - b)[Math.floor(values.length * f)], 3);
  extra.latencyP50Ms = quantile(samples, 0.5);
  extra.latencyP99Ms = quantile(samples, 0.99);
  extra.idlePingP50Ms = quantile(pings, 0.5);
  extra.idlePingP99Ms = quantile(pings, 0.99);
  console.log(
    `pickup latency, ${count} jobs at 100/s, blockFor 5: p50 ${extra.latencyP50Ms} ms, p99 ${extra.latencyP99Ms} ms`,
  );
  console.log(
    `  the machine's floor, a PING between pickups: p50 ${extra.idlePingP50Ms} ms, p99 ${extra.idlePingP99Ms} ms`,
  );
  if (stealBefore !== undefined && stealAfter !== undefined) {
    const ticks = stealAfter.total - stealBefore.total;
    extra.latencyStealPercent = ticks > 0 ? round((100 * (stealAfter.steal - stealBefore.steal)) / ticks, 1) : 0;
    console.log(`  host steal time during the section: ${extra.latencyStealPercent}% of these vCPUs' time`);
  }
}

// Steal and total ticks of all CPUs, from /proc/stat (Linux); undefined elsewhere.
function stealTicks(): { steal: number; total: number } | undefined {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    return { steal: fields[7] ?? 0, total: fields.reduce((a, b) => a + b, 0) };
  } catch {
    return undefined;
  }
}

// ---- memory -----------------------------------------------------------------------------------------

// The worker runs in a process of its own (scripts/bench-worker.js, on the build in dist/, which this
// section makes first), so what is measured is a worker's resident size and nothing of the producer's
// or of a TypeScript compiler: the parent fills the queue in waves and reads the child's RSS, after a
// full GC, when it is idle at the start, after a 10,000-job warm-up, and after all the jobs. The ratio the issue asks for is start -> end; warm-up -> end is printed beside it, as the
// growth that is not V8 settling in (JIT code, heap sized to the load).
async function memorySection(port: number, redis: Redis): Promise<void> {
  await fresh(redis);
  const child = fork(join(__dirname, 'bench-worker.js'), [String(port), DOWN_FILE], { execArgv: ['--expose-gc'] });
  const replies: ((m: ChildReply) => void)[] = [];
  child.on('message', (m: ChildReply) => replies.shift()?.(m));
  const ask = (what: 'rss' | 'stop'): Promise<ChildReply> =>
    new Promise((resolve) => {
      replies.push(resolve);
      child.send(what);
    });
  await new Promise<void>((resolve) => child.once('message', () => resolve())); // ready
  const start = (await ask('rss')).rss;
  const warmUp = Math.min(10000, MEMORY_N);
  await fillAndDrain(port, redis, warmUp);
  const warm = (await ask('rss')).rss;
  const wave = 100000;
  for (let done = warmUp; done < MEMORY_N; done += wave)
    await fillAndDrain(port, redis, Math.min(wave, MEMORY_N - done));
  const end = (await ask('rss')).rss;
  const { handled } = await ask('stop');
  await new Promise((resolve) => child.once('exit', resolve));
  if (handled !== MEMORY_N) throw new Error(`the memory worker ran ${handled} jobs, not ${MEMORY_N}`);
  const mb = (n: number) => round(n / 2 ** 20, 1);
  extra.rssStartMb = mb(start);
  extra.rssAfterWarmUpMb = mb(warm);
  extra.rssEndMb = mb(end);
  extra.rssGrowthMb = mb(end - start);
  extra.rssGrowthAfterWarmUpMb = mb(end - warm);
  console.log(
    `memory, worker process at concurrency 50 over ${MEMORY_N} jobs: RSS ${extra.rssStartMb} MB idle -> ${extra.rssAfterWarmUpMb} MB after ${warmUp} -> ` +
      `${extra.rssEndMb} MB (+${extra.rssGrowthMb} MB; +${extra.rssGrowthAfterWarmUpMb} MB after the warm-up)`,
  );
}

interface ChildReply {
  rss: number;
  handled: number;
}

// Push n jobs, then wait until the worker has taken and finished every one of them.
async function fillAndDrain(port: number, redis: Redis, n: number): Promise<void> {
  await prefillLarq(port, n);
  while ((await redis.llen('bench_queues:default')) + (await redis.zcard('bench_queues:default:reserved')) > 0)
    await sleep(20);
}

// ---- report -----------------------------------------------------------------------------------------

function report(): void {
  console.log(
    '\n| section | contender | jobs | seconds | jobs/s (median) | every round | Redis CPU µs/job | worker CPU µs/job |\n| --- | --- | ---: | ---: | ---: | --- | ---: | ---: |',
  );
  for (const r of rows) {
    const cpu = r.redisMicrosPerJob === undefined ? '' : r.redisMicrosPerJob.toFixed(1);
    const worker = r.workerMicrosPerJob === undefined ? '' : r.workerMicrosPerJob.toFixed(1);
    console.log(
      `| ${r.section} | ${r.name} | ${r.jobs} | ${round(r.seconds, 2)} | ${Math.round(r.perSecond)} | ${r.runs.map(Math.round).join(', ')} | ${cpu} | ${worker} |`,
    );
  }
  const rate = (name: string) => rows.find((r) => r.name === name)?.perSecond;
  const work = (c: number) => processRow(CONTENDERS.work.name, c);
  const quiet = (c: number) => processRow(CONTENDERS.quiet.name, c);
  const library = (c: number) => processRow(CONTENDERS.createWorker.name, c);
  const bull = (c: number) => processRow(CONTENDERS.bull.name, c);
  const laravel13 = laravelRow('13.26', 1);
  const laravel8 = laravelRow('8.83', 1);
  // [numerator, denominator, label, target or undefined when the ratio has none]
  const ratios: [string, string, string, number | undefined][] = [
    [work(50), bull(50), 'end-to-end: larq work c50 / BullMQ worker c50 (own processes, defaults)', 2],
    [work(1), bull(1), 'end-to-end: larq work c1 / BullMQ worker c1', 1],
    [library(50), bull(50), 'end-to-end: createWorker c50 / BullMQ worker c50', undefined],
    [library(1), bull(1), 'end-to-end: createWorker c1 / BullMQ worker c1', undefined],
    [work(50), laravel13, 'end-to-end: larq work c50 / Laravel 13.26 single worker', 10],
    [work(50), laravel8, 'end-to-end: larq work c50 / Laravel 8.83 single worker', undefined],
    [work(1), laravel13, 'end-to-end: larq work c1 / Laravel 13.26 single worker', 1.5],
    [work(1), laravel8, 'end-to-end: larq work c1 / Laravel 8.83 single worker', undefined],
    [larqRow(50, 60), BULL_INPROCESS(50), 'in-process: larq c50 / BullMQ c50', undefined],
    [larqRow(1, 60), BULL_INPROCESS(1), 'in-process: larq c1 / BullMQ c1', undefined],
    [larqRow(50, 60), CEILING, 'in-process: larq c50 / true Redis ceiling', undefined],
    [larqRow(50, 0), CEILING, 'in-process: larq c50 timeout 0 / true Redis ceiling', undefined],
    [larqRow(50, 60), CEILING_SCRIPTED, 'in-process: larq c50 / best atomic script (Laravel-exact bytes)', undefined],
    [LARQ_CONCURRENT, BULL_CONCURRENT, `dispatch: larq push / BullMQ add, ${CALLERS} concurrent callers each`, 2],
    [
      LARQ_CONCURRENT,
      laravelPushRow('13.26'),
      `dispatch: larq push, ${CALLERS} callers / Laravel 13.26 push (one process, sequential)`,
      5,
    ],
    ['larq bulk (1,000 a call)', 'BullMQ addBulk (1,000 a call)', 'push: larq bulk / BullMQ addBulk', 5],
    ['larq push, one by one', laravelPushRow('13.26'), 'push: larq one by one / Laravel 13.26 push', 1],
  ];
  const results: Record<string, number> = {};
  console.log('\n| ratio | value | target |\n| --- | ---: | ---: |');
  for (const [a, b, label, target] of ratios) {
    const ra = rate(a);
    const rb = rate(b);
    if (ra === undefined || rb === undefined) continue;
    results[label] = round(ra / rb, 2);
    console.log(
      `| ${label} | ${results[label]}x | ${target === undefined ? '(no target)' : `>= ${target}x ${ra / rb >= target ? 'ok' : 'MISSED'}`} |`,
    );
  }
  // What one thing costs: the throughput lost against the same worker without it, same run.
  // [with it, without it, label, the most it may cost in % or undefined]
  const costs: [string, string, string, number | undefined][] = [
    [work(50), quiet(50), 'larq work c50: its output (defaults against --quiet)', 5],
    [work(1), quiet(1), 'larq work c1: its output (defaults against --quiet)', 5],
    [work(50), library(50), 'larq work c50: the CLI (against createWorker in its own process)', 10],
    [work(1), library(1), 'larq work c1: the CLI (against createWorker in its own process)', 10],
    [quiet(50), library(50), 'larq work --quiet c50: the CLI without its output', undefined],
    [quiet(1), library(1), 'larq work --quiet c1: the CLI without its output', undefined],
    [processRow(CONTENDERS.horizon.name, 50), work(50), 'larq work c50: --horizon (issue 31)', 15],
    [processRow(CONTENDERS.metrics.name, 50), work(50), 'larq work c50: --metrics (issue 33)', 5],
    [
      processRow(CONTENDERS.overlap.name, 50),
      work(50),
      'larq work c50: a WithoutOverlapping lock per job (issue 32)',
      undefined,
    ],
    [larqRow(50, 60), larqRow(50, 0), 'in-process c50: timeout 60 against timeout 0', 5],
    [larqRow(50, 60, true), larqRow(50, 60), 'in-process c50: metrics recorded', 5],
  ];
  console.log('\n| cost | value | target |\n| --- | ---: | ---: |');
  for (const [withIt, without, label, most] of costs) {
    const a = rate(withIt);
    const b = rate(without);
    if (a === undefined || b === undefined) continue;
    const cost = round((100 * (b - a)) / b, 1);
    results[`cost: ${label} (%)`] = cost;
    console.log(
      `| ${label} | ${cost}% | ${most === undefined ? '(no target)' : `<= ${most}% ${cost <= most ? 'ok' : 'MISSED'}`} |`,
    );
  }
  if (ceilingConfig !== undefined)
    console.log(`| the ceiling's configuration (searched) | ${describeCeiling(ceilingConfig)} | |`);
  if (scriptedCeilingConfig !== undefined && scriptedCeilingConfig !== ceilingConfig)
    console.log(`| the best atomic script's configuration | ${describeCeiling(scriptedCeilingConfig)} | |`);
  if (extra.latencyP99Ms !== undefined)
    console.log(
      `| pickup latency p99 | ${extra.latencyP99Ms} ms | < 5 ms ${extra.latencyP99Ms < 5 ? 'ok' : 'MISSED'} |`,
    );
  if (extra.idlePingP99Ms !== undefined)
    console.log(`| idle PING p99 (the machine's floor) | ${extra.idlePingP99Ms} ms | (no target) |`);
  if (extra.rssGrowthMb !== undefined)
    console.log(
      `| RSS growth over ${MEMORY_N} jobs | ${extra.rssGrowthMb} MB | < 50 MB ${extra.rssGrowthMb < 50 ? 'ok' : 'MISSED'} |`,
    );
  const machine = {
    cores: cpus().length,
    cpu: cpus()[0]?.model,
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    node: process.version,
  };
  writeFileSync(
    flags.out!,
    JSON.stringify(
      {
        date: new Date().toISOString(),
        machine,
        rounds: ROUNDS,
        jobs: N,
        pushJobs: PUSH_N,
        memoryJobs: MEMORY_N,
        rows,
        ratios: results,
        ...extra,
      },
      null,
      2,
    ) + '\n',
  );
  console.log(`\nwrote ${flags.out}`);
}

// ---- helpers ----------------------------------------------------------------------------------------

// A larq queue on the bench's prefix, speaking the line's protocol, connected before it is returned.
async function larqQueue(
  port: number,
  line: PhpLine = LARQ_LINE,
  extraOptions: Pick<RedisQueueOptions, 'blockFor' | 'telemetry'> = {},
): Promise<RedisQueue> {
  const q = new RedisQueue({
    connection: { port },
    prefix: 'bench_',
    laravel: line as '8.83' | '13.26',
    retryAfter: 90,
    ...extraOptions,
  });
  await q.size('default');
  return q;
}

// A BullMQ queue, connected before it is returned.
async function bullQueue(port: number): Promise<BullQueue> {
  const bull = new BullQueue('bench', { connection: { port } });
  await bull.waitUntilReady();
  return bull;
}

async function prefillLarq(
  port: number,
  n: number,
  line: PhpLine = LARQ_LINE,
  make: (n: number) => PhpObject = (k) => BENCH_NOOP[major(line)].make({ n: k }),
): Promise<void> {
  const q = await larqQueue(port, line);
  await bulkLarq(q, n, make);
  await q.close();
}

// n no-op jobs, 1,000 a call: the larq bulk row, and how every larq and Laravel row is filled.
async function bulkLarq(q: RedisQueue, n: number, make = (k: number) => BenchNoop.make({ n: k })): Promise<void> {
  for (let i = 0; i < n; i += 1000) await q.bulk(range(i, Math.min(n, i + 1000)).map(make));
}

// n no-op jobs, 1,000 a call: the BullMQ addBulk row, and how the BullMQ worker rows are filled.
async function bulkBull(bull: BullQueue, n: number): Promise<void> {
  for (let i = 0; i < n; i += 1000)
    await bull.addBulk(
      range(i, Math.min(n, i + 1000)).map((k) => ({ name: 'noop', data: { n: k }, opts: { removeOnComplete: true } })),
    );
}

// With `redis`, also the CPU time the redis-server spent during the run, per job: what each contender's
// protocol costs Redis, which bounds how fast any client of that protocol can go.
async function timed(
  section: string,
  name: string,
  jobs: number,
  fn: () => Promise<unknown>,
  redis?: Redis,
): Promise<void> {
  collectGarbage();
  const cpuBefore = redis ? await redisCpuSeconds(redis) : 0;
  const start = performance.now();
  await fn();
  const seconds = (performance.now() - start) / 1000;
  const redisMicros = redis ? (((await redisCpuSeconds(redis)) - cpuBefore) * 1e6) / jobs : undefined;
  record(section, name, jobs, seconds, redisMicros);
}

async function redisCpuSeconds(redis: Redis): Promise<number> {
  const info = await redis.info('cpu');
  return Number(/used_cpu_user:([\d.]+)/.exec(info)?.[1]) + Number(/used_cpu_sys:([\d.]+)/.exec(info)?.[1]);
}

function record(
  section: string,
  name: string,
  jobs: number,
  seconds: number,
  redisMicros?: number,
  workerMicros?: number,
  outputBytes?: number,
): void {
  if (warming) return;
  let row = rows.find((r) => r.name === name);
  if (row === undefined) {
    row = { section, name, jobs, seconds, perSecond: jobs / seconds, runs: [] };
    rows.push(row);
  }
  row.runs.push(jobs / seconds);
  row.perSecond = median(row.runs);
  row.seconds = jobs / row.perSecond;
  if (redisMicros !== undefined) {
    row.redisRuns = [...(row.redisRuns ?? []), redisMicros];
    row.redisMicrosPerJob = median(row.redisRuns);
  }
  if (workerMicros !== undefined) {
    row.workerRuns = [...(row.workerRuns ?? []), workerMicros];
    row.workerMicrosPerJob = median(row.workerRuns);
  }
  if (outputBytes !== undefined) row.outputBytes = outputBytes;
  const redisNote = redisMicros === undefined ? '' : `   Redis CPU ${redisMicros.toFixed(1)} µs/job`;
  const workerNote = workerMicros === undefined ? '' : `   worker CPU ${workerMicros.toFixed(1)} µs/job`;
  console.log(`${name.padEnd(60)} ${String(Math.round(jobs / seconds)).padStart(8)} jobs/s${redisNote}${workerNote}`);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)];
}

async function fresh(redis: Redis): Promise<void> {
  await redis.flushall();
  collectGarbage();
}

// A full GC between contenders, so that no one's run pays for the garbage of the one before.
function collectGarbage(): void {
  global.gc?.();
}

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from }, (_, i) => from + i);
}

function round(n: number, digits: number): number {
  return Math.round(n * 10 ** digits) / 10 ** digits;
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

function phpEnv(port: number, line: PhpLine): NodeJS.ProcessEnv {
  return {
    ...process.env,
    LARQ_LARAVEL: line,
    LARQ_REDIS_PORT: String(port),
    LARQ_PREFIX: 'bench_',
    LARQ_BENCH_DOWN_FILE: DOWN_FILE,
    LARQ_BENCH_JOBS: String(N),
  };
}

function runPhp(args: string[], port: number, line: PhpLine): string {
  const res = spawnSync('php', [join(PHP_DIR, 'bench.php'), ...args], {
    env: phpEnv(port, line),
    encoding: 'utf8',
    maxBuffer: 1 << 26,
  });
  if (res.status !== 0) throw new Error(`LARQ_LARAVEL=${line} php bench.php ${args.join(' ')} failed: ${res.stderr}`);
  return res.stdout;
}

// One bench.php process; resolves to the span it reported (Unix seconds).
function phpProcess(
  args: string[],
  port: number,
  line: PhpLine,
): Promise<{ start: number; end: number; cpuMicros: number; jobs: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn('php', [join(PHP_DIR, 'bench.php'), ...args], {
      env: phpEnv(port, line),
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`LARQ_LARAVEL=${line} php bench.php ${args.join(' ')} exited ${code}`));
      try {
        const { start, end, cpuMicros, jobs } = JSON.parse(out.trim().split('\n').pop() ?? '');
        resolve({ start, end, cpuMicros, jobs });
      } catch {
        reject(new Error(`php bench.php ${args.join(' ')} printed no span: ${out}`));
      }
    });
  });
}

// Whether the line boots (12.67 and 13.26 are unpacked first if they are not yet).
function phpAvailable(line: PhpLine): boolean {
  if (spawnSync('php', ['-r', 'exit(extension_loaded("redis") ? 0 : 1);']).status !== 0) return false;
  if (line !== '8.83' && !existsSync(join(__dirname, '..', '.cache', 'laravel', line))) {
    spawnSync('bash', [join(__dirname, 'unpack-laravel'), line], { stdio: 'inherit' });
  }
  return spawnSync('php', [join(PHP_DIR, 'version.php')], { env: { ...process.env, LARQ_LARAVEL: line } }).status === 0;
}

function redisVersion(port: number): string {
  const out = spawnSync('redis-cli', ['-p', String(port), 'INFO', 'server'], { encoding: 'utf8' }).stdout ?? '';
  return `redis ${/redis_version:(\S+)/.exec(out)?.[1] ?? '?'}`;
}

function freePort(): Promise<number> {
  return new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolve(p));
    });
  });
}

// dist/ as `npm run build` makes it from lib/ now: built unless it is newer than every file of lib/.
function ensureBuilt(): void {
  const newest = (dir: string): number =>
    readdirSync(dir, { withFileTypes: true }).reduce((latest, e) => {
      const path = join(dir, e.name);
      return Math.max(latest, e.isDirectory() ? newest(path) : statSync(path).mtimeMs);
    }, 0);
  const built = join(__dirname, '..', 'dist', 'cli', 'main.js');
  const root = join(__dirname, '..');
  if (
    existsSync(built) &&
    statSync(built).mtimeMs > Math.max(newest(join(root, 'lib')), statSync(join(root, 'package.json')).mtimeMs)
  )
    return;
  console.log('building dist/ (npm run build)...');
  const build = spawnSync('npm', ['run', 'build', '--silent'], { cwd: root, encoding: 'utf8' });
  if (build.status !== 0) throw new Error(`npm run build failed: ${build.stderr}`);
}

async function startRedis(): Promise<{ port: number; stop: () => void }> {
  const port = await freePort();
  const proc: ChildProcess = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
  for (let i = 0; i < 100; i++) {
    const probe = new Redis({ port, lazyConnect: true, retryStrategy: () => null });
    probe.on('error', () => undefined);
    const ok = await probe.connect().then(
      () => probe.ping(),
      () => null,
    );
    probe.disconnect();
    if (ok) break;
    await sleep(50);
  }
  return { port, stop: () => proc.kill() };
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
