// The memory section's worker process (see scripts/bench.ts): larq as a user runs it, from the build in
// dist/ with no TypeScript compiler loaded, so its resident size is the worker's own. It runs with the
// options `larq work` passes to createWorker (timeout 60, tries 1, sleep 3, memory 128 MB above the
// start, ...) at concurrency 50, the Redis cache for the restart and pause signals, and a maintenance-file
// check, as bench.ts's end-to-end rows do; it waits for jobs (blockFor 1) instead of stopping when the
// queue is empty. It blocks on the queue between the parent's waves and answers two messages: 'rss'
// (resident size after a full GC, and the jobs run so far) and 'stop' (drain, close, answer, exit).
'use strict';
const { existsSync } = require('fs');
const { getHeapStatistics } = require('v8');
const Redis = require('ioredis');
const { createCacheStore, createWorker, DEFAULT_WORKER_OPTIONS, Handlers, RedisQueue } = require('../dist');

const port = Number(process.argv[2]);
const downFile = process.argv[3];
const queue = new RedisQueue({ connection: { port }, prefix: 'bench_', laravel: '13.26', retryAfter: 90, blockFor: 1 });
const cacheConnection = new Redis({ port });
const cache = createCacheStore({ driver: 'redis', connection: cacheConnection, prefix: 'bench_', laravel: 13 });
let handled = 0;
const handlers = new Handlers().object('App\\Jobs\\BenchNoop', () => void handled++);
// larq work's --memory baseline: the heap in use now (lib/worker/defaults' heapMemoryUsage).
const heap = () => {
  const { total_heap_size: total, external_memory: external } = getHeapStatistics();
  return total + external;
};
const baseline = heap();
const worker = createWorker(
  queue,
  handlers,
  // What `larq work` passes when every flag is at its default: Laravel's queue:work defaults.
  { ...DEFAULT_WORKER_OPTIONS, concurrency: 50, handleSignals: true },
  { cache, isDownForMaintenance: () => existsSync(downFile), memoryUsage: () => Math.max(0, heap() - baseline) },
);
const running = worker.daemon('default');

process.on('message', (what) => {
  if (what === 'rss') {
    global.gc();
    process.send({ rss: process.memoryUsage().rss, handled });
    return;
  }
  worker.stop();
  running
    .then(() => queue.close())
    .then(() => cache.close())
    .then(() => cacheConnection.disconnect())
    .then(() => process.send({ rss: process.memoryUsage().rss, handled }, () => process.exit(0)));
});
process.send('ready');
