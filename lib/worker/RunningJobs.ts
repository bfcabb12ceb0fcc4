// The attempts whose handlers have not settled, by job identity, so one process never runs one job twice
// at once: a job whose earlier attempt still runs here (it outlived retry_after, was taken back to the
// queue and popped again) is not started. A larq addition with no Laravel twin: Laravel's worker runs one
// job at a time.
import type { WorkerJob } from '../jobs/contracts';
import { ArrayMap } from '../support/ArrayMap';
import type { Attempt } from './Attempt';

/** The running handlers of one worker, by job identity. */
export class RunningJobs<J extends WorkerJob> {
  // An array, not a Map: see support/ArrayMap.
  private readonly handlers = new ArrayMap<string, Attempt<J>>();

  /** Whether an attempt at the same job (jobKey) is running here. */
  has(job: J): boolean {
    if (this.handlers.size === 0) return false;
    return this.handlers.get(jobKey(job)) !== undefined;
  }

  /** The attempt's handler starts; returns the key to give delete() once it settles. */
  add(attempt: Attempt<J>): string {
    const key = jobKey(attempt.job);
    this.handlers.set(key, attempt);
    return key;
  }

  /** The attempt's handler settled; a later attempt at the same job keeps its entry. */
  delete(key: string, attempt: Attempt<J>): void {
    if (this.handlers.get(key) === attempt) this.handlers.delete(key);
  }
}

// What makes two reservations the same job: its uuid, else (a raw job pushed by another producer) its
// payload as popped.
function jobKey(job: WorkerJob): string {
  let uuid: string | null = null;
  try {
    uuid = job.uuid();
  } catch {
    // an unreadable payload has no uuid to read: its raw body identifies it
  }
  return uuid ?? job.getRawBody();
}
