// The memory section's worker process (see scripts/bench.ts): larq as a user runs it, from the build in
// dist/ with no TypeScript compiler loaded, so its resident size is the worker's own. It blocks on the
// queue between the parent's waves and answers two messages: 'rss' (resident size after a full GC, and
// the jobs run so far) and 'stop' (drain, close, answer, exit).
'use strict';
const { createWorker, Handlers, RedisQueue } = require('../dist');

const port = Number(process.argv[2]);
const queue = new RedisQueue({ connection: { port }, prefix: 'bench_', laravel: 8, retryAfter: 90, blockFor: 1 });
let handled = 0;
const handlers = new Handlers().object('App\\Jobs\\BenchNoop', () => void handled++);
const worker = createWorker(queue, handlers, { concurrency: 50, sleep: 0, timeout: 0, memory: 4096, handleSignals: false });
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
    .then(() => process.send({ rss: process.memoryUsage().rss, handled }, () => process.exit(0)));
});
process.send('ready');
