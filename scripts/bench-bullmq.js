// `npm run bench`'s BullMQ contender (scripts/bench.ts): a BullMQ worker on its defaults (lock renewal on,
// autorun) in a process of its own, at the concurrency LARQ_BENCH_CONCURRENCY gives, on the queue "bench"
// that the bench fills with removeOnComplete jobs; its no-op processor is timed by scripts/bench-clock.js.
// Runs until SIGTERM, then closes the worker (letting the jobs in flight finish) and exits.
'use strict';
const { Worker } = require('bullmq');
const { job } = require('./bench-clock');

const worker = new Worker('bench', async () => job(), {
  connection: { port: Number(process.env.REDIS_PORT) },
  concurrency: Number(process.env.LARQ_BENCH_CONCURRENCY),
});
worker.on('error', (e) => console.error(`bench-bullmq: ${e.message}`));
process.once('SIGTERM', () => {
  worker.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
});
