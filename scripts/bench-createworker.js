// `npm run bench`'s createWorker contender (scripts/bench.ts): larq's library in a process of its own, from
// the build in dist/, wired with what `larq work` passes to createWorker when every flag is at its default
// (lib/cli/commands/work.ts: timeout 60, tries 1, sleep 3, memory 128 above the start, signals handled,
// the Redis cache store on a connection of its own for queue:restart and queue:pause, a maintenance-file
// check, the debounce, chain and batch hooks) and the concurrency LARQ_BENCH_CONCURRENCY gives. What the
// CLI adds beyond that (its output, its Horizon, prefix and telemetry wiring) is what the bench's
// "larq work" rows cost over this one. Runs until SIGTERM, like `larq work`.
'use strict';
const { existsSync } = require('fs');
const { getHeapStatistics } = require('v8');
const Redis = require('ioredis');
const {
  chainHooks,
  createCacheStore,
  createWorker,
  debouncedJobs,
  DEFAULT_WORKER_OPTIONS,
  Handlers,
  RedisQueue,
} = require('../dist');
const { job } = require('./bench-clock');

const port = Number(process.env.REDIS_PORT);
const prefix = process.env.REDIS_PREFIX;
const concurrency = Number(process.env.LARQ_BENCH_CONCURRENCY);
const downFile = process.env.LARQ_BENCH_DOWN_FILE;

// lib/worker/defaults' heapMemoryUsage, which `larq work` counts --memory with (not exported)
const heap = () => {
  const { total_heap_size: total, external_memory: external } = getHeapStatistics();
  return total + external;
};

async function main() {
  const queue = new RedisQueue({ connection: { port }, prefix, laravel: '13.26', retryAfter: 90 });
  await queue.size('default');
  const cacheConnection = new Redis({ port, db: 1 });
  await cacheConnection.ping();
  const cache = createCacheStore({ driver: 'redis', connection: cacheConnection, prefix, laravel: 13 });
  const handlers = new Handlers().object('App\\Jobs\\BenchNoop', () => job());
  handlers.useDefaults([
    debouncedJobs(cache),
    chainHooks(queue),
    {
      feature: 'batch',
      afterHandle: (ctx) => {
        if (ctx.command && ctx.command.get('batchId')) throw new Error('the bench pushes no batched jobs');
      },
    },
  ]);
  const baseline = heap();
  const worker = createWorker(
    queue,
    handlers,
    // What `larq work` passes when every flag is at its default: Laravel's queue:work defaults.
    { ...DEFAULT_WORKER_OPTIONS, concurrency, handleSignals: true },
    { cache, isDownForMaintenance: () => existsSync(downFile), memoryUsage: () => Math.max(0, heap() - baseline) },
  );
  worker.on('error', (e) => console.error(`bench-createworker: ${e.message}`));
  const result = await worker.daemon('default');
  await queue.close();
  await cache.close();
  cacheConnection.disconnect();
  process.exit(result.status);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
