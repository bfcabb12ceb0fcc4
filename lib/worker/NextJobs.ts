// Which queue the next jobs come from: Laravel's Worker::getNextJob (13.x) over the `--queue` list. The
// first queue, in strict priority order (or rotated with rotateQueues), that is not paused and yields
// anything wins the pass; paused queues are read once per pass (Worker::getPausedQueues) and each change
// is announced (raisePausedQueueEvents). A failed pop is reported, never thrown, and followed by a breath.
import { RedisUnavailableError } from '../errors';
import type { JobEvent, TypedEmitter, WorkerEvent, WorkerEvents } from '../events';
import type { WorkerJob, WorkerQueue } from '../jobs/contracts';
import type { CacheSignals } from './CacheSignals';

/** What NextJobs needs from the worker. */
export interface NextJobsDeps<J extends WorkerJob> {
  queue: WorkerQueue<J>;
  events: TypedEmitter<WorkerEvents<J>>;
  cacheSignals: CacheSignals;
  rotateQueues: boolean;
  /** Report an error and stop on a lost connection. */
  report(error: unknown): void;
  /** The worker's interruptible sleep, in seconds. */
  sleep(seconds: number): Promise<void>;
}

/** Pops the next jobs from the first queue of the list that has any. */
export class NextJobs<J extends WorkerJob> {
  // The queues found paused by the last pass, to tell WorkerQueuePaused/Resumed transitions.
  private lastPaused = new Set<string>();
  private passes = 0;

  constructor(private readonly deps: NextJobsDeps<J>) {}

  /** Laravel's getNextJob, for up to `limit` jobs; [] when every queue was empty, paused, or the pop failed. */
  async pop(list: readonly string[], limit: number): Promise<J[]> {
    const { queue, events, report } = this.deps;
    try {
      if (events.listenerCount('JobPopping') > 0) events.emit('JobPopping', where(queue, list));
      const order = this.passOrder(list);
      const paused = await this.pausedQueues(order);
      for (const [index, name] of order.entries()) {
        if (paused.has(name)) continue;
        // popMany even for one job: its migrations and pop travel in one round trip instead of three.
        const jobs = queue.popMany
          ? await queue.popMany(name, index, limit, report)
          : nonNull(await queue.pop(name, index));
        if (jobs.length === 0) continue;
        if (events.listenerCount('JobPopped') > 0)
          for (const job of jobs)
            events.emit('JobPopped', { connectionName: queue.connectionName, job } as JobEvent<J>);
        return jobs;
      }
      return [];
    } catch (e) {
      report(e);
      // Laravel's breath after a failed pop. A pop refused as RedisUnavailableError has just waited for the
      // lost connection (whenConnected), which ends the moment it is back: that wait was the breath.
      if (!(e instanceof RedisUnavailableError)) await this.deps.sleep(1);
      return [];
    }
  }

  private passOrder(list: readonly string[]): readonly string[] {
    if (!this.deps.rotateQueues || list.length < 2) return list;
    const start = this.passes++ % list.length;
    return [...list.slice(start), ...list.slice(0, start)];
  }

  private async pausedQueues(order: readonly string[]): Promise<Set<string>> {
    const { queue, events, cacheSignals } = this.deps;
    const connectionName = queue.connectionName;
    // One queue (what most workers take) needs neither Promise.all nor a new set on every pass.
    if (order.length === 1 && this.lastPaused.size === 0 && !(await cacheSignals.isPaused(connectionName, order[0])))
      return this.lastPaused;
    const states = await Promise.all(order.map((name) => cacheSignals.isPaused(connectionName, name)));
    const paused = new Set(order.filter((_, i) => states[i]));
    for (const name of paused)
      if (!this.lastPaused.has(name)) events.emit('WorkerQueuePaused', { connectionName, queue: name });
    for (const name of this.lastPaused)
      if (!paused.has(name)) events.emit('WorkerQueueResumed', { connectionName, queue: name });
    this.lastPaused = paused;
    return paused;
  }
}

/** The event fields naming the connection and the queue list. */
export function where(queue: WorkerQueue<WorkerJob>, list: readonly string[]): WorkerEvent {
  return { connectionName: queue.connectionName, queue: list.join(',') };
}

function nonNull<T>(value: T | null): T[] {
  return value === null ? [] : [value];
}
