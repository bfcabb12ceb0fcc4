// Every key Horizon mode writes: Horizon's names (RedisJobRepository, RedisTagRepository,
// RedisMetricsRepository, Horizon 5.29.1) under its own prefix (HORIZON_PREFIX), never the database's.

/** Horizon's keys under one prefix. */
export class HorizonKeys {
  constructor(readonly prefix: string) {}

  /** Any of Horizon's key names (`recent_jobs`, a job id, a tag) with the prefix. */
  key(name: string): string {
    return this.prefix + name;
  }

  /** A job's record hash: the payload's uuid. */
  job(id: string): string {
    return this.prefix + id;
  }

  /** The metrics hash of a job class (`job:App\Jobs\X`). */
  jobMetrics(displayName: string): string {
    return `${this.prefix}job:${displayName}`;
  }

  /** The metrics hash of a queue (`queue:default`). */
  queueMetrics(queue: string): string {
    return `${this.prefix}queue:${queue}`;
  }
}
