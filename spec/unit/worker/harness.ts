// A Worker wired to the in-memory fakes, with every event recorded as "Name id" lines.
import type { WorkerEvents } from '../../../lib/events';
import type { JobAttempt } from '../../../lib/jobs/contracts';
import { Worker } from '../../../lib/Worker';
import type { WorkerOptions } from '../../../lib/WorkerOptions';
import { FakeCache, FakeFailer, FakeJob, FakeQueue, VirtualTime } from '../../support/fakeQueue';

export type Handler = (job: FakeJob, signal: AbortSignal, attempt?: JobAttempt) => Promise<void>;

const RECORDED: (keyof WorkerEvents<FakeJob>)[] = [
  'WorkerStarting',
  'Looping',
  'JobPopping',
  'JobPopped',
  'JobProcessing',
  'JobProcessed',
  'JobFailed',
  'JobExceptionOccurred',
  'JobReleasedAfterException',
  'JobTimedOut',
  'JobAttempted',
  'WorkerIdle',
  'WorkerStopping',
];

/** Like CallQueuedHandler after a successful handle(): delete the job. */
export const succeed: Handler = async (job) => job.delete();

/** A handler that throws `message`. */
export function throwing(message = 'boom'): Handler {
  return async () => {
    throw new Error(message);
  };
}

export interface HarnessOptions {
  options?: Partial<WorkerOptions>;
  handler?: Handler;
  cache?: boolean;
  retryAfter?: number;
  popMany?: boolean;
  extendReservation?: boolean;
  memoryBytes?: number;
  isDownForMaintenance?: () => boolean;
}

/** Build a worker over fakes; `handler` can be swapped at any time. */
export function harness(setup: HarnessOptions = {}) {
  const time = new VirtualTime();
  const queue = new FakeQueue(time, setup.retryAfter ?? 90, 'redis', {
    popMany: setup.popMany,
    extendReservation: setup.extendReservation,
  });
  const cache = new FakeCache(time);
  const failer = new FakeFailer();
  const events: string[] = [];
  const errors: Error[] = [];
  const failedHooks: { job: FakeJob; error: Error | null }[] = [];
  const h = {
    time,
    queue,
    cache,
    failer,
    events,
    errors,
    failedHooks,
    memoryBytes: setup.memoryBytes ?? 10 * 1024 * 1024,
    handler: setup.handler ?? succeed,
    worker: undefined as unknown as Worker<FakeJob>,
    /** The job events only, e.g. ["JobProcessing id-1", "JobProcessed id-1"]. */
    jobEvents(): string[] {
      return events.filter((e) => e.startsWith('Job') && !e.startsWith('JobPopping'));
    },
  };
  h.worker = new Worker<FakeJob>(
    queue,
    {
      run: (job, attempt) => h.handler(job, attempt.signal, attempt),
      failed: (job, error) => {
        failedHooks.push({ job, error });
      },
    },
    { sleep: 3, ...setup.options },
    {
      cache: setup.cache === false ? undefined : cache,
      failer,
      clock: time.clock,
      sleep: time.sleep,
      memoryUsage: () => h.memoryBytes,
      isDownForMaintenance: setup.isDownForMaintenance,
    },
  );
  for (const name of RECORDED) {
    h.worker.on(name, (event) => {
      const job = (event as { job?: FakeJob }).job;
      events.push(job ? `${name} ${job.getJobId()}` : name);
    });
  }
  h.worker.on('error', (e) => errors.push(e));
  return h;
}
