// Horizon's throughput and runtime counters (Horizon 5.29.1 `RedisMetricsRepository::incrementJob` and
// `incrementQueue`): its updateMetrics script, given full key names, so the measured_* members carry the
// prefix exactly as Horizon's EVAL through a prefixed phpredis connection leaves them.
import { scripts } from '../redis/scripts';
import type { HorizonKeys } from './HorizonKeys';
import type { Pipe } from './RedisJobRepository';

/** Horizon's metrics hashes. */
export class RedisMetricsRepository {
  constructor(private readonly keys: HorizonKeys) {}

  /** One more job of class `displayName` that ran `runtimeMs` (PHP's float text). */
  incrementJob(pipe: Pipe, displayName: string, runtimeMs: string): void {
    scripts.updateMetricsInto(pipe, this.keys.jobMetrics(displayName), this.keys.key('measured_jobs'), runtimeMs);
  }

  /** One more job of `queue` (the bare name) that ran `runtimeMs`. */
  incrementQueue(pipe: Pipe, queue: string, runtimeMs: string): void {
    scripts.updateMetricsInto(pipe, this.keys.queueMetrics(queue), this.keys.key('measured_queues'), runtimeMs);
  }
}
