// The daemon's events: what Laravel's Worker dispatches through its `$events` (the raise...Event methods
// and its exception handler's report(), 13.x). Every event and exception of one worker goes out here;
// an exception is reported as an `error` event, and no listener ever changes what happens to a job.
import { type JobEvent, toError, TypedEmitter, type WorkerEvents } from '../events';
import type { WorkerJob, WorkerQueue } from '../jobs/contracts';

/** One worker's event emitter; its job events name the queue's connection. */
export class DaemonEvents<J extends WorkerJob> extends TypedEmitter<WorkerEvents<J>> {
  constructor(private readonly queue: Pick<WorkerQueue<J>, 'connectionName'>) {
    super();
  }

  /** Whether `name` has a listener: the per-job events are built only when someone listens. */
  listens(name: keyof WorkerEvents<J> & string): boolean {
    return this.listenerCount(name) > 0;
  }

  /** The fields every job event carries. */
  jobEvent(job: J): JobEvent<J> {
    return { connectionName: this.queue.connectionName, job };
  }

  /** Laravel's report(): the exception goes out as an `error` event. */
  report(thrown: unknown): void {
    this.emit('error', toError(thrown));
  }
}
