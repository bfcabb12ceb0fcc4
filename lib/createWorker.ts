// The usual way to run Laravel jobs in Node: a RedisQueue, the Node handlers, and Laravel's failed-job and
// cache stores, wired into a Worker. Failed jobs are recorded with Laravel's exception class names, so
// `php artisan queue:failed` shows what a PHP worker would have recorded.
import type { FailedJobProvider } from './failed/FailedJobProvider';
import { formatException } from './failed/formatException';
import type { Handlers } from './handlers/Handlers';
import type { RedisJob } from './jobs/RedisJob';
import type { RedisQueue } from './RedisQueue';
import { JobMetrics } from './telemetry/JobMetrics';
import { JobTracing } from './telemetry/JobTracing';
import { Worker, type WorkerDeps } from './Worker';
import type { WorkerOptions } from './WorkerOptions';

/** What createWorker wires besides the queue and the handlers. */
export interface CreateWorkerDeps extends Omit<WorkerDeps, 'failer'> {
  /** Where failed jobs go (database-uuids, database, file, null). Default: not recorded. */
  failed?: FailedJobProvider;
}

// larq's errors that stand for Laravel's own exceptions, under the name Laravel records them with.
const LARAVEL_CLASS: Record<string, string> = {
  MaxAttemptsExceededError: 'Illuminate\\Queue\\MaxAttemptsExceededException',
  TimeoutExceededError: 'Illuminate\\Queue\\TimeoutExceededException',
  ManuallyFailedError: 'Illuminate\\Queue\\ManuallyFailedException',
  ModelNotFoundError: 'Illuminate\\Database\\Eloquent\\ModelNotFoundException',
};

/**
 * A Worker that runs `handlers` on jobs from `queue`; start it with `worker.daemon('high,default')`. The
 * queue's `telemetry` (tracing, metrics) observes the worker too.
 */
export function createWorker(
  queue: RedisQueue,
  handlers: Handlers,
  options: Partial<WorkerOptions> = {},
  deps: CreateWorkerDeps = {},
): Worker<RedisJob> {
  const { failed, ...rest } = deps;
  const failer = failed && {
    log: (connection: string, q: string, payload: string | Buffer, e: Error) =>
      failed.log(connection, q, payload, formatException(e, { className: (err) => LARAVEL_CLASS[err.name] })),
  };
  const telemetry = queue.options.telemetry ?? {};
  const tracing = telemetry.tracing instanceof JobTracing ? telemetry.tracing : undefined;
  const metrics = telemetry.metrics instanceof JobMetrics ? telemetry.metrics : undefined;
  const runner = tracing ? tracing.wrap(handlers) : handlers;
  const worker = new Worker<RedisJob>(
    queue,
    runner,
    { retryAfter: queue.options.retryAfter, ...options },
    { laravel: queue.options.laravel, ...rest, failer },
  );
  handlers.bindFailer((job, error) => worker.failJob(job, error));
  tracing?.observe(worker);
  metrics?.observe(worker, queue);
  return worker;
}
