// `larq work`: artisan's queue:work, running the jobs a handlers module knows, on the app's Redis queue,
// recording failures in the app's failed-job store and watching its cache for queue:restart.
import { resolve } from 'path';
import { createCacheStore } from '../../cache';
import { createWorker } from '../../createWorker';
import { createFailedJobProvider } from '../../failed';
import { Handlers } from '../../handlers/Handlers';
import { RedisQueue } from '../../RedisQueue';
import { configFor, numberFlag, parse, UsageError } from '../args';

/** What `larq work --help` prints. */
export const WORK_HELP = `Usage: larq work [connection] --handlers=MODULE [options]

Run Laravel queue jobs in Node, with queue:work's rules for retries, timeouts and failures.

  --handlers=MODULE     JS module exporting a Handlers instance (default export or "handlers"), or a
                        function returning one; a .ts module needs node -r ts-node/register
  --queue=QUEUES        queues in priority order, comma-separated (default REDIS_QUEUE or "default")
  --tries=N             attempts for jobs that do not set their own; 0 = unlimited (default 1)
  --backoff=S[,S...]    seconds before retrying a failed job, per attempt (default 0)
  --timeout=S           seconds a job may run; 0 = no limit (default 60)
  --sleep=S             seconds to wait when no job is available (default 3)
  --memory=MB           stop with status 12 at this much heap (default 128)
  --max-jobs=N          stop after N jobs (default 0 = no limit)
  --max-time=S          stop after S seconds (default 0 = no limit)
  --rest=S              seconds to rest after each job (default 0)
  --stop-when-empty     stop when the queues are empty
  --once                run a single job, then exit
  --force               run even in maintenance mode
  --concurrency=N       jobs in flight at once (default 1: exactly queue:work's one at a time)

SIGTERM or SIGINT: stop taking jobs, let the running ones finish, exit 0. SIGUSR2 pauses, SIGCONT resumes.`;

const OPTIONS = {
  handlers: { type: 'string' },
  queue: { type: 'string' },
  tries: { type: 'string' },
  backoff: { type: 'string' },
  timeout: { type: 'string' },
  sleep: { type: 'string' },
  memory: { type: 'string' },
  'max-jobs': { type: 'string' },
  'max-time': { type: 'string' },
  rest: { type: 'string' },
  'stop-when-empty': { type: 'boolean' },
  once: { type: 'boolean' },
  force: { type: 'boolean' },
  concurrency: { type: 'string' },
} as const;

/** Run `larq work`; resolves to the exit status. */
export async function work(argv: string[], out: (line: string) => void): Promise<number> {
  const p = parse('work', argv, OPTIONS);
  if (p.values.help) return out(WORK_HELP), 0;
  if (typeof p.values.handlers !== 'string') throw new UsageError('larq work: --handlers=MODULE is required: the module that registers your job handlers (see larq work --help)');
  const backoff = p.values.backoff as string | undefined;
  if (backoff !== undefined && !/^\d+(,\d+)*$/.test(backoff)) throw new UsageError(`larq work: --backoff must be seconds, or a comma-separated list of them, got "${backoff}"`);
  const concurrency = numberFlag('work', p, 'concurrency', 1);
  if (concurrency < 1) throw new UsageError('larq work: --concurrency must be at least 1');
  const options = {
    maxTries: numberFlag('work', p, 'tries', 1),
    backoff: backoff ?? 0,
    timeout: numberFlag('work', p, 'timeout', 60),
    sleep: numberFlag('work', p, 'sleep', 3, false),
    memory: numberFlag('work', p, 'memory', 128),
    maxJobs: numberFlag('work', p, 'max-jobs', 0),
    maxTime: numberFlag('work', p, 'max-time', 0),
    rest: numberFlag('work', p, 'rest', 0, false),
    stopWhenEmpty: p.values['stop-when-empty'] === true,
    force: p.values.force === true,
    concurrency,
    handleSignals: true,
  };
  const config = configFor(p);
  const handlers = await loadHandlers(p.values.handlers);
  const queue = new RedisQueue(config.queue);
  const failed = createFailedJobProvider(config.failed);
  const cache = config.cache ? createCacheStore(config.cache) : undefined;
  if (config.cacheNote) out(`note: ${config.cacheNote}`);
  const worker = createWorker(queue, handlers, options, { failed, cache });
  report(worker, out);
  try {
    const queues = (p.values.queue as string | undefined) ?? config.queue.queue;
    if (p.values.once) {
      await worker.runNextJob(queues);
      return 0;
    }
    const result = await worker.daemon(queues);
    return result.status;
  } finally {
    await Promise.allSettled([queue.close(), failed.close(), cache?.close()]);
  }
}

// One line per job, as artisan's queue:work prints them.
function report(worker: ReturnType<typeof createWorker>, out: (line: string) => void): void {
  const started = new Map<unknown, number>();
  const line = (name: string, status: string, ms?: number) => {
    const time = new Date().toISOString().replace('T', ' ').slice(0, 19);
    const tail = ms === undefined ? status : `${ms}ms ${status}`;
    out(`  ${time} ${name} ${'.'.repeat(Math.max(3, 70 - name.length - tail.length))} ${tail}`);
  };
  worker.on('JobProcessing', (e) => {
    started.set(e.job, Date.now());
    line(e.job.resolveName(), 'RUNNING');
  });
  worker.on('JobProcessed', (e) => {
    if (e.job.hasFailed()) return;
    line(e.job.resolveName(), 'DONE', Date.now() - (started.get(e.job) ?? Date.now()));
    started.delete(e.job);
  });
  worker.on('JobFailed', (e) => {
    line(e.job.resolveName(), 'FAIL', Date.now() - (started.get(e.job) ?? Date.now()));
    started.delete(e.job);
  });
  worker.on('error', (e) => out(`error: ${e instanceof Error ? e.message : String(e)}`));
}

async function loadHandlers(path: string): Promise<Handlers> {
  let mod: Record<string, unknown>;
  try {
    mod = require(resolve(process.cwd(), path)) as Record<string, unknown>;
  } catch (e) {
    throw new UsageError(`larq work: cannot load --handlers=${path}: ${(e as Error).message.split('\n')[0]}`);
  }
  let exported = mod.default ?? mod.handlers;
  if (typeof exported === 'function' && !(exported instanceof Handlers)) exported = await (exported as () => unknown)();
  // instanceof fails across two copies of larq; a duck-typed registry works as well.
  if (exported instanceof Handlers || (typeof exported === 'object' && exported !== null && typeof (exported as Handlers).run === 'function')) {
    return exported as Handlers;
  }
  throw new UsageError(`larq work: ${path} must export a Handlers instance (default export or "handlers"), or a function returning one`);
}
