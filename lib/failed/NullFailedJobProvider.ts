// Laravel's NullFailedJobProvider (driver "null", or no failed-job config): failed jobs are not kept.
import type { FailedJobProvider, FailedJobRecord } from './FailedJobProvider';

/** A store that records nothing and always reads empty. */
export class NullFailedJobProvider implements FailedJobProvider {
  /** Records nothing; returns null as Laravel's does. */
  async log(_connection: string, _queue: string, _payload: string | Buffer, _exception: Error | string): Promise<null> {
    return null;
  }

  /** Always empty. */
  async ids(_queue?: string): Promise<string[]> {
    return [];
  }

  /** Always empty. */
  async all(): Promise<FailedJobRecord[]> {
    return [];
  }

  /** Always null. */
  async find(_id: string | number): Promise<null> {
    return null;
  }

  /** Always true, like Laravel's: there is nothing left to forget. */
  async forget(_id: string | number): Promise<boolean> {
    return true;
  }

  /** Nothing to delete. */
  async flush(_hours?: number): Promise<number> {
    return 0;
  }

  /** Nothing to delete. */
  async prune(_before: Date): Promise<number> {
    return 0;
  }

  /** Nothing to close. */
  async close(): Promise<void> {}
}
