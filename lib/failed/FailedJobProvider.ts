// The contract every failed-job store meets. It mirrors Laravel's FailedJobProviderInterface (plus the
// ids() and flush(hours) of 9.x+ and PrunableFailedJobProvider) so `php artisan queue:failed`,
// `queue:retry`, `queue:forget`, `queue:flush` and `queue:prune-failed` see what larq records.

/** One failed job as a store holds it. */
export interface FailedJobRecord {
  /** What queue:retry / queue:forget take: the payload uuid (database-uuids, file) or the row id (database). */
  id: string | number;
  /** The payload uuid when the store keeps it apart from `id`. */
  uuid?: string;
  /** The queue connection name, e.g. "redis". */
  connection: string;
  /** The bare queue name, e.g. "default". */
  queue: string;
  /** The job's original raw body, byte for byte when it is valid UTF-8 (else see payloadBytes). */
  payload: string;
  /** The payload's exact bytes, present only when they are not valid UTF-8 (`payload` then holds U+FFFD in their place). */
  payloadBytes?: Buffer;
  /** PHP's string form of the exception (see formatException). */
  exception: string;
  /** The failure time as stored: `Y-m-d H:i:s` in the app timezone. */
  failed_at: string;
  /** Unix seconds of the failure, where the store records them (file). */
  failed_at_timestamp?: number;
}

/** A place failed jobs are recorded, as Laravel's `queue.failer`. */
export interface FailedJobProvider {
  /**
   * Record a failed job and return its id (uuid or row id; null for the null store). An Error is written
   * through formatException; pass a string to store text you formatted yourself (e.g. with a PHP class name).
   * A Buffer payload is stored byte for byte, or refused with InvalidPayloadError when the store cannot
   * hold those bytes (invalid UTF-8 in a MySQL/PostgreSQL text column or a JSON file). A payload without a
   * uuid gets a generated one (database-uuids, file), so the record can still be retried and forgotten.
   */
  log(
    connection: string,
    queue: string,
    payload: string | Buffer,
    exception: Error | string,
  ): Promise<string | number | null>;
  /** Ids of all records, newest first, optionally only those of one queue. */
  ids(queue?: string): Promise<(string | number)[]>;
  /** Every record, newest first. */
  all(): Promise<FailedJobRecord[]>;
  /** One record by id, or null. */
  find(id: string | number): Promise<FailedJobRecord | null>;
  /** Delete one record; true when something was deleted. */
  forget(id: string | number): Promise<boolean>;
  /** Delete every record, or only those that failed at least `hours` hours ago; the number deleted. */
  flush(hours?: number): Promise<number>;
  /** Delete the records that failed before `before` (queue:prune-failed); the number deleted. */
  prune(before: Date): Promise<number>;
  /** Release what the store opened itself (never a client the caller passed in). */
  close(): Promise<void>;
}
