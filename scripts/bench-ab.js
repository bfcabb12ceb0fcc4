// Two builds of larq side by side, each worker in a fresh process of its own as `npm run bench` starts
// them (scripts/bench.ts' e2e section): `larq work` through dist/cli/main.js, `--quiet`, the createWorker
// script and a BullMQ worker, timed by scripts/bench-clock.js from the first handler start to the last
// handler end. The builds take turns within each round, on the same jobs (restored from one DUMP), so a
// drifting machine drifts under both; each row is the median round. For a change's before and after:
//
//   git worktree add ../before <commit> && (cd ../before && ln -s ../larq/node_modules && npm run build)
//   npm run build && node scripts/bench-ab.js --base ../before --rounds 5 work:50 quiet:50 work:1 bull:1
//
// A contender is NAME:CONCURRENCY (NAME: work, quiet, createworker, bull); `base-` before NAME runs it
// from --base. Node flags for the contender's process go after a second colon: `work:1:max-semi-space-size=64`.
'use strict';
const { spawn } = require('child_process');
const { existsSync, readFileSync, rmSync } = require('fs');
const { tmpdir } = require('os');
const { join, resolve } = require('path');
const { parseArgs } = require('util');
const Redis = require('ioredis');
const { Queue } = require('bullmq');
const larq = require('../dist');
const { appFreeEnv, contenderSettings } = require('./bench-contender-env');

const { values: flags, positionals: contenders } = parseArgs({
  allowPositionals: true,
  options: {
    base: { type: 'string' },
    rounds: { type: 'string', default: '3' },
    jobs: { type: 'string', default: '20000' },
  },
});
const ROOT = join(__dirname, '..');
const BASE = flags.base === undefined ? undefined : resolve(flags.base);
const ROUNDS = Number(flags.rounds);
const N = Number(flags.jobs);
const { setTimeout: sleep } = require('timers/promises');

async function main() {
  if (contenders.length === 0) throw new Error('name at least one contender, e.g. work:50 base-work:50');
  const port = 20000 + Math.floor(Math.random() * 20000);
  const server = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    {
      stdio: 'ignore',
    },
  );
  const redis = new Redis({ port, retryStrategy: (n) => (n < 50 ? 20 : null) });
  redis.on('error', () => undefined); // refused until the server listens; a command still fails after 50 tries
  try {
    await redis.ping();
    const dumps = await larqJobs(port, redis);
    const rows = new Map();
    for (let round = 0; round < ROUNDS; round++) {
      for (const contender of contenders) {
        const row = await run(port, redis, dumps, contender);
        rows.set(contender, [...(rows.get(contender) ?? []), row]);
      }
    }
    for (const [contender, runs] of rows) {
      const rates = runs.map((r) => r.rate);
      const median = [...rates].sort((a, b) => a - b)[Math.floor(rates.length / 2)];
      console.log(
        `${contender.padEnd(36)} ${String(median).padStart(7)} jobs/s   rounds ${rates.join(', ')}   ` +
          `worker CPU µs/job ${runs.map((r) => r.cpu).join(', ')}   Redis CPU µs/job ${runs.map((r) => r.redis).join(', ')}`,
      );
    }
  } finally {
    redis.disconnect();
    server.kill();
  }
}

// N Laravel 13 no-op jobs of scripts/bench.ts' class, pushed once and kept as DUMPs of their keys.
async function larqJobs(port, redis) {
  const Noop = larq.phpClass(
    'App\\Jobs\\BenchNoop',
    { n: 'public' },
    { traits: larq.laravelJobTraits(13), serializesModels: true },
  );
  const queue = new larq.RedisQueue({ connection: { port }, prefix: 'bench_', laravel: '13.26', retryAfter: 90 });
  for (let i = 0; i < N; i += 1000)
    await queue.bulk(Array.from({ length: Math.min(1000, N - i) }, (_, k) => Noop.make({ n: i + k })));
  await queue.close();
  const keys = await redis.keys('*');
  const dumps = await Promise.all(keys.map(async (key) => [key, await redis.dumpBuffer(key)]));
  await redis.flushall();
  return dumps;
}

async function run(port, redis, dumps, contender) {
  const [tagged, concurrency = '50', nodeFlags = ''] = contender.split(':');
  const root = tagged.startsWith('base-') ? BASE : ROOT;
  if (root === undefined) throw new Error(`${contender}: --base is not given`);
  const name = tagged.replace(/^base-/, '');
  await redis.flushall();
  if (name === 'bull') {
    const bull = new Queue('bench', { connection: { port } });
    for (let i = 0; i < N; i += 1000)
      await bull.addBulk(
        Array.from({ length: Math.min(1000, N - i) }, (_, k) => ({
          name: 'noop',
          data: { n: i + k },
          opts: { removeOnComplete: true },
        })),
      );
    await bull.close();
  } else for (const [key, dump] of dumps) await redis.restore(key, 0, dump);
  const scripts = { bull: 'bench-bullmq.js', createworker: 'bench-createworker.js' };
  const args =
    name === 'work' || name === 'quiet'
      ? [
          join(root, 'dist', 'cli', 'main.js'),
          'work',
          `--handlers=${join(root, 'scripts', 'bench-handlers.js')}`,
          ...(concurrency === '1' ? [] : [`--concurrency=${concurrency}`]),
          ...(name === 'quiet' ? ['--quiet'] : []),
        ]
      : scripts[name] !== undefined
        ? [join(root, 'scripts', scripts[name])]
        : undefined;
  if (args === undefined) throw new Error(`${contender}: unknown contender ${name}`);
  const report = join(tmpdir(), `larq-bench-ab-${process.pid}.json`);
  rmSync(report, { force: true });
  const cpuBefore = await redisCpuSeconds(redis);
  const child = spawn(process.execPath, [...(nodeFlags ? nodeFlags.split(',').map((f) => `--${f}`) : []), ...args], {
    cwd: tmpdir(),
    env: {
      ...appFreeEnv(),
      LARQ_BENCH_CONCURRENCY: concurrency,
      ...contenderSettings({
        port,
        jobs: N,
        report,
        downFile: join(tmpdir(), 'larq-bench-ab-not-down'),
        laravel: '13.26',
      }),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let errTail = '';
  child.stdout.resume(); // drained and dropped, as a supervisor's pipe
  child.stderr.on('data', (d) => (errTail = (errTail + d).slice(-2000)));
  let code;
  child.on('exit', (c) => (code = c));
  while (!existsSync(report)) {
    if (code !== undefined) throw new Error(`${contender}: exited ${code} before its report\n${errTail}`);
    await sleep(5);
  }
  const redisMicros = (((await redisCpuSeconds(redis)) - cpuBefore) * 1e6) / N;
  child.kill('SIGTERM');
  while (code === undefined) await sleep(5);
  const { seconds, cpuMicros } = JSON.parse(readFileSync(report, 'utf8'));
  rmSync(report, { force: true });
  return { rate: Math.round(N / seconds), cpu: (cpuMicros / N).toFixed(1), redis: redisMicros.toFixed(1) };
}

async function redisCpuSeconds(redis) {
  const info = await redis.info('cpu');
  return Number(/used_cpu_user:([\d.]+)/.exec(info)[1]) + Number(/used_cpu_sys:([\d.]+)/.exec(info)[1]);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
