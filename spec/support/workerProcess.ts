// A larq worker as its own process, for crash and shutdown specs: runs App\Jobs\ChainStep jobs, each
// appending a "start" and an "end" line to LARQ_RECORD, taking LARQ_JOB_MS milliseconds in between.
// Env: LARQ_REDIS_PORT, LARQ_PREFIX, LARQ_RECORD, LARQ_CONCURRENCY (1), LARQ_JOB_MS (0), LARQ_RETRY_AFTER (90),
// LARQ_STOP_WHEN_EMPTY ("1" to stop when a pass finds nothing). Exits with the worker's status.
import { appendFileSync } from 'fs';
import { createWorker } from '../../lib/createWorker';
import { Handlers } from '../../lib/handlers/Handlers';
import { RedisQueue } from '../../lib/RedisQueue';

const env = (name: string, fallback: string): string => process.env[name] ?? fallback;
const record = (line: object) =>
  appendFileSync(env('LARQ_RECORD', '/dev/null'), `${JSON.stringify({ pid: process.pid, t: Date.now(), ...line })}\n`);
const jobMs = Number(env('LARQ_JOB_MS', '0'));

const queue = new RedisQueue({
  connection: { port: Number(env('LARQ_REDIS_PORT', '6379')), host: '127.0.0.1' },
  prefix: env('LARQ_PREFIX', ''),
  laravel: 8,
  retryAfter: Number(env('LARQ_RETRY_AFTER', '90')),
});

const handlers = new Handlers().object('App\\Jobs\\ChainStep', async (command, ctx) => {
  record({ event: 'start', step: command.step, id: ctx.id, attempts: ctx.attempts });
  await new Promise((r) => setTimeout(r, jobMs));
  record({ event: 'end', step: command.step, id: ctx.id, attempts: ctx.attempts });
});

const worker = createWorker(queue, handlers, {
  concurrency: Number(env('LARQ_CONCURRENCY', '1')),
  stopWhenEmpty: env('LARQ_STOP_WHEN_EMPTY', '') === '1',
  handleSignals: true,
  sleep: 0.05,
  timeout: 0,
});
worker.on('error', (e) => record({ event: 'error', message: String(e) }));

worker
  .daemon('default')
  .then(async (result) => {
    record({ event: 'exit', ...result });
    await queue.close();
    process.exit(result.status);
  })
  .catch((e) => {
    record({ event: 'crash', message: String(e) });
    process.exit(70);
  });
record({ event: 'ready' });
