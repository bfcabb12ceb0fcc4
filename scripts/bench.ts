// `npm run bench`: larq against Laravel 8.83's worker (PHP, Debian's packages) and BullMQ, side by side in
// one run on one redis-server of its own, with no-op jobs. Prints a table, the ratios the issue asks
// for, and writes bench-results.json.
//   npm run bench                       100,000 jobs per end-to-end run, 1,000,000 for the memory run
//   npm run bench -- --jobs 20000 --memory-jobs 200000 --out results.json
//   npm run bench -- --only push,e2e    sections: push, e2e, latency, memory
//   npm run bench -- --rounds 1         push and end-to-end run 3 times by default (median reported)
import { fork, spawn, spawnSync, type ChildProcess } from 'child_process';
import { readFileSync, writeFileSync } from 'fs';
import { createServer } from 'net';
import { cpus, totalmem } from 'os';
import { join } from 'path';
import { performance } from 'perf_hooks';
import { parseArgs } from 'util';
import { Queue as BullQueue, Worker as BullWorker } from 'bullmq';
import Redis from 'ioredis';
import { createWorker } from '../lib/createWorker';
import { Handlers } from '../lib/handlers/Handlers';
import { laravelJobTraits, phpClass } from '../lib/php/builder';
import { RedisQueue } from '../lib/RedisQueue';
import { KeySpace } from '../lib/redis/keys';
import { defineScripts, popReplies, scripts } from '../lib/redis/scripts';

const { values: flags } = parseArgs({
  options: {
    jobs: { type: 'string', default: '100000' },
    'push-jobs': { type: 'string' },
    'memory-jobs': { type: 'string', default: '1000000' },
    only: { type: 'string', default: 'push,e2e,latency,memory' },
    rounds: { type: 'string', default: '3' },
    out: { type: 'string', default: 'bench-results.json' },
  },
});
const N = Number(flags.jobs);
const PUSH_N = Number(flags['push-jobs'] ?? Math.min(N, 20000));
const MEMORY_N = Number(flags['memory-jobs']);
const SECTIONS = new Set(flags.only!.split(','));
// The push and end-to-end sections run this many times, contenders taking turns in each round; a row
// reports its median. A machine whose speed drifts (shared cores) then drifts under every contender.
const ROUNDS = Number(flags.rounds);
const PHP_DIR = join(__dirname, '..', 'compat-fixtures', 'php');

// The job PHP runs in the Laravel rows (compat-fixtures/php/bench.php), declared for larq.
const BenchNoop = phpClass('App\\Jobs\\BenchNoop', { n: 'public' }, { traits: laravelJobTraits(8), serializesModels: true });

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
}
const rows: Row[] = [];
// True during warmUp(): runs then are not recorded.
let warming = false;
const extra: Record<string, number> = {};

async function main(): Promise<void> {
  const { port, stop } = await startRedis();
  const redis = new Redis({ port });
  const php = phpAvailable();
  console.log(`larq bench: ${cpus().length} cores (${cpus()[0]?.model ?? '?'}), ${Math.round(totalmem() / 2 ** 30)} GiB, node ${process.version}, ${redisVersion(port)}`);
  console.log(`end-to-end ${N} jobs, push ${PUSH_N} jobs, memory ${MEMORY_N} jobs; PHP: ${php ? 'Laravel 8.83' : 'not installed (Laravel rows skipped)'}\n`);
  try {
    if (SECTIONS.has('push') || SECTIONS.has('e2e')) await warmUp(port, redis);
    for (let round = 1; round <= ROUNDS; round++) {
      if (ROUNDS > 1) console.log(`round ${round} of ${ROUNDS}`);
      if (SECTIONS.has('push')) await pushSection(port, redis, php, round);
      if (SECTIONS.has('e2e')) await e2eSection(port, redis, php, round);
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
    if (SECTIONS.has('e2e')) {
      await larqWorker(port, redis, 50, jobs);
      await bullWorker(port, redis, 50, jobs);
      await larqWorker(port, redis, 1, few);
      await bullWorker(port, redis, 1, few);
    }
  } finally {
    warming = false;
  }
  console.log('warm-up done (not timed)');
}

// ---- push -------------------------------------------------------------------------------------------

async function pushSection(port: number, redis: Redis, php: boolean, round: number): Promise<void> {
  // Each ratio's two rows run back to back, the first of them taking turns by round: the host's speed
  // drifts over minutes (a peer's row once ran 25% faster than in the next round), and rows run minutes
  // apart would carry that drift into the ratio.
  await inTurn(round, () => larqPushOneByOne(port, redis), () => (php ? laravelPushOneByOne(port, redis) : Promise.resolve()));
  await inTurn(round, () => larqBulk(port, redis), () => bullAddBulk(port, redis));
  await bullAddOneByOne(port, redis);
}

async function larqPushOneByOne(port: number, redis: Redis, jobs = PUSH_N): Promise<void> {
  await fresh(redis);
  const q = larqQueue(port);
  await timed('push', 'larq push, one by one', jobs, async () => {
    for (let i = 0; i < jobs; i++) await q.push(BenchNoop.make({ n: i }));
  });
  await q.close();
}

async function larqBulk(port: number, redis: Redis, jobs = N): Promise<void> {
  await fresh(redis);
  const q = larqQueue(port);
  await timed('push', 'larq bulk (1,000 a call)', jobs, async () => {
    await bulkLarq(q, jobs);
  });
  await q.close();
}

async function laravelPushOneByOne(port: number, redis: Redis): Promise<void> {
  await fresh(redis);
  const out = runPhp(['push', String(PUSH_N)], port);
  record('push', "Laravel Queue::push, one by one (PHP)", PUSH_N, JSON.parse(out).seconds);
}

async function bullAddOneByOne(port: number, redis: Redis, jobs = PUSH_N): Promise<void> {
  await fresh(redis);
  const bull = new BullQueue('bench', { connection: { port } });
  await timed('push', 'BullMQ add, one by one', jobs, async () => {
    for (let i = 0; i < jobs; i++) await bull.add('noop', { n: i }, { removeOnComplete: true });
  });
  await bull.close();
}

async function bullAddBulk(port: number, redis: Redis, jobs = N): Promise<void> {
  await fresh(redis);
  const bull = new BullQueue('bench', { connection: { port } });
  await timed('push', 'BullMQ addBulk (1,000 a call)', jobs, async () => {
    await bulkBull(bull, jobs);
  });
  await bull.close();
}

// The two rows of one ratio, back to back: larq first in odd rounds, its peer first in even ones.
async function inTurn(round: number, larq: () => Promise<void>, peer: () => Promise<void>): Promise<void> {
  for (const run of round % 2 === 1 ? [larq, peer] : [peer, larq]) await run();
}

// ---- end to end -------------------------------------------------------------------------------------

async function e2eSection(port: number, redis: Redis, php: boolean, round: number): Promise<void> {
  // As in the push section, each ratio's rows run back to back, taking turns at going first.
  await inTurn(round, () => larqWorker(port, redis, 50), () => bullWorker(port, redis, 50));
  await inTurn(round, () => larqWorker(port, redis, 1), () => (php ? laravelWorker(port, redis, 1) : Promise.resolve()));
  await ceiling(port, redis);
  if (php) await laravelWorker(port, redis, 2);
  await bullWorker(port, redis, 1);
}

async function larqWorker(port: number, redis: Redis, concurrency: number, jobs = N): Promise<void> {
  await fresh(redis);
  await prefillLarq(port, jobs);
  const q = larqQueue(port);
  const worker = createWorker(q, new Handlers().object('App\\Jobs\\BenchNoop', () => undefined), { concurrency, sleep: 0, stopWhenEmpty: true, timeout: 0, memory: 4096 });
  await timed('e2e', `larq worker, concurrency ${concurrency}`, jobs, () => worker.daemon('default'), redis);
  await q.close();
  // A run that stopped early would report a false rate: every job must be gone.
  const left = await redis.llen('bench_queues:default') + (await redis.zcard('bench_queues:default:reserved'));
  if (left !== 0) throw new Error(`larq left ${left} jobs`);
}

async function ceiling(port: number, redis: Redis): Promise<void> {
  // What Redis itself can do with these jobs under Laravel's protocol, with no worker in the way: the
  // worker's batch pop script (50 jobs a call, ten calls a write, two writes in flight so Redis never
  // waits for the client) and the ZREM that acknowledges each job. No Laravel-compatible worker, in any
  // language, can go faster than this on this Redis.
  await fresh(redis);
  await prefillLarq(port, N);
  await timed('e2e', CEILING, N, () => popAndAckEverything(port, N), redis);
}

async function laravelWorker(port: number, redis: Redis, processes: number): Promise<void> {
  await fresh(redis);
  await prefillLarq(port, N);
  await timed(
    'e2e',
    `Laravel worker, ${processes} process${processes > 1 ? 'es' : ''}`,
    N,
    () => Promise.all(range(0, processes).map(() => phpProcess(['work'], port))).then(() => undefined),
    redis,
  );
  const left = await redis.llen('bench_queues:default');
  if (left !== 0) throw new Error(`Laravel left ${left} jobs`);
}

async function bullWorker(port: number, redis: Redis, concurrency: number, jobs = N): Promise<void> {
  await fresh(redis);
  const bull = new BullQueue('bench', { connection: { port } });
  await bulkBull(bull, jobs);
  let done = 0;
  let finish: () => void = () => undefined;
  const all = new Promise<void>((r) => (finish = r));
  let worker: BullWorker | undefined;
  await timed(
    'e2e',
    `BullMQ worker, concurrency ${concurrency}`,
    jobs,
    () => {
      worker = new BullWorker('bench', async () => undefined, { connection: { port }, concurrency, autorun: true });
      worker.on('completed', () => {
        if (++done === jobs) finish();
      });
      return all;
    },
    redis,
  );
  await worker?.close();
  await bull.close();
}

const CEILING = 'Redis alone: Laravel pop + ack, no worker (ceiling)';

async function popAndAckEverything(port: number, n: number): Promise<void> {
  const client = new Redis({ port });
  defineScripts(client);
  const keys = new KeySpace('bench_', 8, false).forQueue('default');
  let taken = 0;
  let empty = false;
  const lane = async (): Promise<void> => {
    let acks: (string | Buffer)[] = [];
    while (!empty || acks.length > 0) {
      const pipeline = client.pipeline();
      if (acks.length > 0) pipeline.zrem(keys.reserved, ...acks);
      acks = [];
      if (!empty) for (let i = 0; i < 10; i++) scripts.popInto(pipeline, client, keys, Math.floor(Date.now() / 1000) + 90, 50);
      for (const [error, raw] of (await pipeline.exec()) ?? []) {
        if (error) throw error;
        if (!Array.isArray(raw)) continue; // the ZREM's count
        const replies = popReplies(raw);
        if (replies.length < 50) empty = true;
        for (const reply of replies) if (reply.kind === 'reserved') acks.push(reply.reserved);
        taken += replies.length;
      }
    }
  };
  try {
    await Promise.all([lane(), lane()]);
  } finally {
    client.disconnect();
  }
  if (taken !== n) throw new Error(`the ceiling run took ${taken} jobs, not ${n}`);
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
  const q = larqQueue(port, { blockFor: 5 });
  const producer = larqQueue(port);
  const pinger = new Redis({ port });
  await pinger.ping();
  let finish: () => void = () => undefined;
  const all = new Promise<void>((r) => (finish = r));
  const handlers = new Handlers().object('App\\Jobs\\BenchNoop', (command) => {
    samples.push(performance.timeOrigin + performance.now() - Number(command.n) / 1000);
    if (samples.length === count) finish();
  });
  const worker = createWorker(q, handlers, { concurrency: 1, sleep: 0, timeout: 0, maxJobs: count, memory: 4096 });
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
  const quantile = (values: number[], f: number) => round([...values].sort((a, b) => a - b)[Math.floor(values.length * f)], 3);
  extra.latencyP50Ms = quantile(samples, 0.5);
  extra.latencyP99Ms = quantile(samples, 0.99);
  extra.idlePingP50Ms = quantile(pings, 0.5);
  extra.idlePingP99Ms = quantile(pings, 0.99);
  console.log(`pickup latency, ${count} jobs at 100/s, blockFor 5: p50 ${extra.latencyP50Ms} ms, p99 ${extra.latencyP99Ms} ms`);
  console.log(`  the machine's floor, a PING between pickups: p50 ${extra.idlePingP50Ms} ms, p99 ${extra.idlePingP99Ms} ms`);
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
  const build = spawnSync('npm', ['run', 'build', '--silent'], { cwd: join(__dirname, '..'), encoding: 'utf8' });
  if (build.status !== 0) throw new Error(`npm run build failed: ${build.stderr}`);
  const child = fork(join(__dirname, 'bench-worker.js'), [String(port)], { execArgv: ['--expose-gc'] });
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
  for (let done = warmUp; done < MEMORY_N; done += wave) await fillAndDrain(port, redis, Math.min(wave, MEMORY_N - done));
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
  while ((await redis.llen('bench_queues:default')) + (await redis.zcard('bench_queues:default:reserved')) > 0) await sleep(20);
}

// ---- report -----------------------------------------------------------------------------------------

function report(): void {
  console.log('\n| section | contender | jobs | seconds | jobs/s (median) | every round | Redis CPU µs/job |\n| --- | --- | ---: | ---: | ---: | --- | ---: |');
  for (const r of rows) {
    const cpu = r.redisMicrosPerJob === undefined ? '' : r.redisMicrosPerJob.toFixed(1);
    console.log(`| ${r.section} | ${r.name} | ${r.jobs} | ${round(r.seconds, 2)} | ${Math.round(r.perSecond)} | ${r.runs.map(Math.round).join(', ')} | ${cpu} |`);
  }
  const rate = (name: string) => rows.find((r) => r.name === name)?.perSecond;
  const ratios: [string, string, string, number][] = [
    ['larq worker, concurrency 50', 'BullMQ worker, concurrency 50', 'end-to-end: larq c50 / BullMQ c50', 3],
    ['larq worker, concurrency 50', 'Laravel worker, 1 process', 'end-to-end: larq c50 / Laravel 1 worker', 8],
    ['larq worker, concurrency 1', 'Laravel worker, 1 process', 'end-to-end: larq c1 / Laravel 1 worker', 1],
    ['larq bulk (1,000 a call)', 'BullMQ addBulk (1,000 a call)', 'push: larq bulk / BullMQ addBulk', 5],
    ['larq push, one by one', 'Laravel Queue::push, one by one (PHP)', 'push: larq one by one / Laravel push', 1],
  ];
  const results: Record<string, number> = {};
  console.log('\n| ratio | value | target |\n| --- | ---: | ---: |');
  for (const [a, b, label, target] of ratios) {
    const ra = rate(a);
    const rb = rate(b);
    if (ra === undefined || rb === undefined) continue;
    results[label] = round(ra / rb, 2);
    console.log(`| ${label} | ${results[label]}x | ${target}x ${ra / rb >= target ? 'ok' : 'MISSED'} |`);
  }
  // The 3x line against what Redis can do at all with Laravel's protocol, from the same run.
  const ceiling = rate(CEILING);
  const bull50 = rate('BullMQ worker, concurrency 50');
  const larq50 = rate('larq worker, concurrency 50');
  if (ceiling !== undefined && larq50 !== undefined) {
    results['end-to-end: larq c50 / Redis ceiling'] = round(larq50 / ceiling, 2);
    console.log(`| end-to-end: larq c50 / Redis ceiling | ${results['end-to-end: larq c50 / Redis ceiling']}x | (no target) |`);
  }
  if (ceiling !== undefined && bull50 !== undefined) {
    results['end-to-end: 3 x BullMQ c50 / Redis ceiling'] = round((3 * bull50) / ceiling, 2);
    const over = 3 * bull50 > ceiling ? 'above the ceiling: the 3x line cannot be met on this machine' : 'below the ceiling';
    console.log(`| end-to-end: 3 x BullMQ c50 / Redis ceiling | ${results['end-to-end: 3 x BullMQ c50 / Redis ceiling']}x | ${over} |`);
  }
  if (extra.latencyP99Ms !== undefined) console.log(`| pickup latency p99 | ${extra.latencyP99Ms} ms | < 5 ms ${extra.latencyP99Ms < 5 ? 'ok' : 'MISSED'} |`);
  if (extra.idlePingP99Ms !== undefined) console.log(`| idle PING p99 (the machine's floor) | ${extra.idlePingP99Ms} ms | (no target) |`);
  if (extra.rssGrowthMb !== undefined) console.log(`| RSS growth over ${MEMORY_N} jobs | ${extra.rssGrowthMb} MB | < 50 MB ${extra.rssGrowthMb < 50 ? 'ok' : 'MISSED'} |`);
  const machine = { cores: cpus().length, cpu: cpus()[0]?.model, memoryGiB: Math.round(totalmem() / 2 ** 30), node: process.version };
  writeFileSync(flags.out!, JSON.stringify({ date: new Date().toISOString(), machine, rounds: ROUNDS, jobs: N, pushJobs: PUSH_N, memoryJobs: MEMORY_N, rows, ratios: results, ...extra }, null, 2) + '\n');
  console.log(`\nwrote ${flags.out}`);
}

// ---- helpers ----------------------------------------------------------------------------------------

function larqQueue(port: number, extraOptions: { blockFor?: number } = {}): RedisQueue {
  return new RedisQueue({ connection: { port }, prefix: 'bench_', laravel: 8, retryAfter: 90, ...extraOptions });
}

async function prefillLarq(port: number, n: number): Promise<void> {
  const q = larqQueue(port);
  await bulkLarq(q, n);
  await q.close();
}

// n no-op jobs, 1,000 a call: the larq bulk row, and how every larq and Laravel row is filled.
async function bulkLarq(q: RedisQueue, n: number): Promise<void> {
  for (let i = 0; i < n; i += 1000) await q.bulk(range(i, Math.min(n, i + 1000)).map((k) => BenchNoop.make({ n: k })));
}

// n no-op jobs, 1,000 a call: the BullMQ addBulk row, and how the BullMQ worker rows are filled.
async function bulkBull(bull: BullQueue, n: number): Promise<void> {
  for (let i = 0; i < n; i += 1000) await bull.addBulk(range(i, Math.min(n, i + 1000)).map((k) => ({ name: 'noop', data: { n: k }, opts: { removeOnComplete: true } })));
}

// With `redis`, also the CPU time the redis-server spent during the run, per job: what each contender's
// protocol costs Redis, which bounds how fast any client of that protocol can go.
async function timed(section: string, name: string, jobs: number, fn: () => Promise<unknown>, redis?: Redis): Promise<void> {
  const cpuBefore = redis ? await redisCpuSeconds(redis) : 0;
  const start = performance.now();
  await fn();
  const seconds = (performance.now() - start) / 1000;
  const redisMicros = redis ? ((await redisCpuSeconds(redis)) - cpuBefore) * 1e6 / jobs : undefined;
  record(section, name, jobs, seconds, redisMicros);
}

async function redisCpuSeconds(redis: Redis): Promise<number> {
  const info = await redis.info('cpu');
  return Number(/used_cpu_user:([\d.]+)/.exec(info)?.[1]) + Number(/used_cpu_sys:([\d.]+)/.exec(info)?.[1]);
}

function record(section: string, name: string, jobs: number, seconds: number, redisMicros?: number): void {
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
  const redisNote = redisMicros === undefined ? '' : `   Redis CPU ${redisMicros.toFixed(1)} µs/job`;
  console.log(`${name.padEnd(52)} ${String(Math.round(jobs / seconds)).padStart(8)} jobs/s${redisNote}`);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)];
}

async function fresh(redis: Redis): Promise<void> {
  await redis.flushall();
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

function phpEnv(port: number): NodeJS.ProcessEnv {
  return { ...process.env, LARQ_REDIS_PORT: String(port), LARQ_PREFIX: 'bench_' };
}

function runPhp(args: string[], port: number): string {
  const res = spawnSync('php', [join(PHP_DIR, 'bench.php'), ...args], { env: phpEnv(port), encoding: 'utf8', maxBuffer: 1 << 26 });
  if (res.status !== 0) throw new Error(`php bench.php ${args.join(' ')} failed: ${res.stderr}`);
  return res.stdout;
}

function phpProcess(args: string[], port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('php', [join(PHP_DIR, 'bench.php'), ...args], { env: phpEnv(port), stdio: ['ignore', 'ignore', 'inherit'] });
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`php bench.php ${args.join(' ')} exited ${code}`))));
  });
}

function phpAvailable(): boolean {
  return spawnSync('php', ['-r', 'exit(is_file("/usr/share/php/Illuminate/autoload.php") && extension_loaded("redis") ? 0 : 1);']).status === 0;
}

function redisVersion(port: number): string {
  const out = spawnSync('redis-cli', ['-p', String(port), 'INFO', 'server'], { encoding: 'utf8' }).stdout ?? '';
  return `redis ${/redis_version:(\S+)/.exec(out)?.[1] ?? '?'}`;
}

async function startRedis(): Promise<{ port: number; stop: () => void }> {
  const port = await new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolve(p));
    });
  });
  const proc: ChildProcess = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  for (let i = 0; i < 100; i++) {
    const probe = new Redis({ port, lazyConnect: true, retryStrategy: () => null });
    probe.on('error', () => undefined);
    const ok = await probe.connect().then(() => probe.ping(), () => null);
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
