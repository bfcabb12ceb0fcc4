// The job records Horizon's listeners write (Horizon 5.29.1 `RedisJobRepository`): one hash per job under
// its uuid, and the sorted sets the dashboard lists (recent, pending, completed, silenced, failed,
// recent_failed, monitored) scored by -microtime, with the expiries config/horizon.php's `trim` gives.
// Each method adds its commands to a pipeline the caller sends, so a queue operation and Horizon's writes
// for it can travel together, in the order Horizon's events fire.
import type { ChainableCommander } from 'ioredis';
import type { HorizonKeys } from './HorizonKeys';
import type { HorizonTrim } from './HorizonOptions';
import type { JobPayload } from './JobPayload';
import { phpFloatString } from './microtime';

/** A pipeline (or MULTI) commands are added to. */
export type Pipe = ChainableCommander;

/** Horizon's job records. */
export class RedisJobRepository {
  constructor(
    private readonly keys: HorizonKeys,
    private readonly trim: HorizonTrim,
  ) {}

  /** JobPushed: the `pending` record, in recent_jobs and pending_jobs (`pushed`). */
  pushed(pipe: Pipe, connection: string, queue: string, payload: JobPayload, now: number): void {
    const id = payload.id();
    const time = phpFloatString(now);
    this.storeJobReference(pipe, 'recent_jobs', id, now);
    this.storeJobReference(pipe, 'pending_jobs', id, now);
    pipe.hset(this.keys.job(id), {
      id,
      connection,
      queue,
      name: payload.displayName(),
      status: 'pending',
      payload: payload.value,
      created_at: time,
      updated_at: time,
    });
    pipe.expireat(this.keys.job(id), this.expiry(now, this.trim.pending));
  }

  /** JobReserved: status `reserved`, the reserved payload (attempts counted); the expiry stays (`reserved`). */
  reserved(pipe: Pipe, payload: JobPayload, now: number): void {
    const time = phpFloatString(now);
    pipe.hset(this.keys.job(payload.id()), {
      status: 'reserved',
      payload: payload.value,
      updated_at: time,
      reserved_at: time,
    });
  }

  /** JobReleased and JobsMigrated: back to `pending` with the payload as it now sits in Redis (`released`, `migrated`). */
  released(pipe: Pipe, payload: JobPayload, now: number): void {
    pipe.hset(this.keys.job(payload.id()), {
      status: 'pending',
      payload: payload.value,
      updated_at: phpFloatString(now),
    });
  }

  /**
   * JobDeleted: `completed` (also when the job failed: Laravel deletes a failing job first, and the
   * failed record then overrides), in completed_jobs or silenced_jobs, out of pending_jobs (`completed`).
   */
  completed(pipe: Pipe, payload: JobPayload, silenced: boolean, now: number): void {
    const id = payload.id();
    this.storeJobReference(pipe, silenced ? 'silenced_jobs' : 'completed_jobs', id, now);
    pipe.zrem(this.keys.key('pending_jobs'), id);
    pipe.hset(this.keys.job(id), { status: 'completed', completed_at: phpFloatString(now) });
    pipe.expireat(this.keys.job(id), this.expiry(now, this.trim.completed));
  }

  /**
   * A dashboard retry finished: its entry in the parent's `retried_by` list says so
   * (`updateRetryInformationOnParent`). `retriedBy` is the parent's current field; returns the new one,
   * or null when the parent has none.
   */
  static retriedBy(retriedBy: string | null, id: string, failed: boolean): string | null {
    if (!retriedBy) return null;
    const retries = JSON.parse(retriedBy) as Record<string, unknown>[];
    const updated = retries.map((r) => (r.id === id ? { ...r, status: failed ? 'failed' : 'completed' } : r));
    return JSON.stringify(updated).replace(/\//g, '\\/');
  }

  /** A completed job with a monitored tag: kept in monitored_jobs for `trim.monitored` (`remember`). */
  remember(pipe: Pipe, connection: string, queue: string, payload: JobPayload, now: number): void {
    const id = payload.id();
    this.storeJobReference(pipe, 'monitored_jobs', id, now);
    pipe.hset(this.keys.job(id), {
      id,
      connection,
      queue,
      name: payload.displayName(),
      status: 'completed',
      payload: payload.value,
      completed_at: phpFloatString(now),
    });
    pipe.expireat(this.keys.job(id), this.expiry(now, this.trim.monitored));
  }

  /** JobFailed: the `failed` record with PHP's `(string) $e`, in failed_jobs and recent_failed_jobs (`failed`). */
  failed(pipe: Pipe, exception: string, connection: string, queue: string, payload: JobPayload, now: number): void {
    const id = payload.id();
    this.storeJobReference(pipe, 'failed_jobs', id, now);
    this.storeJobReference(pipe, 'recent_failed_jobs', id, now);
    for (const list of ['pending_jobs', 'completed_jobs', 'silenced_jobs']) pipe.zrem(this.keys.key(list), id);
    pipe.hset(this.keys.job(id), {
      id,
      connection,
      queue,
      name: payload.displayName(),
      status: 'failed',
      payload: payload.value,
      exception,
      // json_encode($e->context()) for exceptions with context(), else null, which phpredis writes as ''.
      context: '',
      failed_at: phpFloatString(now),
    });
    pipe.expireat(this.keys.job(id), this.expiry(now, this.trim.failed));
  }

  /** What a PHP master's TrimRecentJobs does each loop (`trimRecentJobs`). */
  trimRecentJobs(pipe: Pipe, now: number): void {
    const lists: [string, number][] = [
      ['recent_jobs', this.trim.recent],
      ['recent_failed_jobs', this.trim.recentFailed],
      ['pending_jobs', this.trim.pending],
      ['completed_jobs', this.trim.completed],
      ['silenced_jobs', this.trim.completed],
    ];
    for (const [list, minutes] of lists) this.trimList(pipe, list, minutes, now);
  }

  /** TrimFailedJobs (`trimFailedJobs`). */
  trimFailedJobs(pipe: Pipe, now: number): void {
    this.trimList(pipe, 'failed_jobs', this.trim.failed, now);
  }

  /** TrimMonitoredJobs (`trimMonitoredJobs`). */
  trimMonitoredJobs(pipe: Pipe, now: number): void {
    this.trimList(pipe, 'monitored_jobs', this.trim.monitored, now);
  }

  // Scores are -microtime: entries older than `minutes` score above -(now - minutes).
  private trimList(pipe: Pipe, list: string, minutes: number, now: number): void {
    pipe.zremrangebyscore(this.keys.key(list), (Math.floor(now) - minutes * 60) * -1, '+inf');
  }

  private storeJobReference(pipe: Pipe, list: string, id: string, now: number): void {
    pipe.zadd(this.keys.key(list), phpFloatString(now * -1), id);
  }

  // CarbonImmutable::now()->addMinutes(m)->getTimestamp().
  private expiry(now: number, minutes: number): number {
    return Math.floor(now) + minutes * 60;
  }
}
