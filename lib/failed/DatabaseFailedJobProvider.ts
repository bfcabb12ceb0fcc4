// Laravel's two SQL failed-job stores over one table shape: `database-uuids` (rows found by the payload's
// uuid, the skeleton default since 8.x) and `database` (rows found by their auto-increment id). Rows are
// written exactly as Laravel writes them, so artisan's queue:failed / retry / forget / flush /
// prune-failed work on what larq records and larq reads what PHP records.
import { isUtf8 } from 'buffer';
import { systemClock, type Clock } from '../clock';
import { InvalidOptionError } from '../errors';
import type { FailedJobProvider, FailedJobRecord } from './FailedJobProvider';
import { formatException } from './formatException';
import { recordUuid, utf8Payload } from './payloadUuid';
import {
  connectSql,
  deleteChunkSql,
  type SqlClient,
  type SqlConnectionConfig,
  type SqlRow,
  type SqlValue,
} from '../sql';
import { checkTimeZone, formatDateTime } from './timestamp';

/** Options of a DatabaseFailedJobProvider. */
export interface DatabaseFailedJobProviderOptions {
  /** Laravel's driver name: "database-uuids" (default) keys rows by payload uuid, "database" by row id. */
  driver?: 'database-uuids' | 'database';
  /** Table name (`queue.failed.table`); default "failed_jobs". */
  table?: string;
  /** The app timezone (`app.timezone`) failed_at is written in; default "UTC". */
  timezone?: string;
  /** Source of "now"; default the system clock. */
  clock?: Clock;
}

// Laravel's prune deletes in chunks of this size so one huge DELETE does not hold locks for long.
const PRUNE_CHUNK = 1000;

/** Laravel's DatabaseUuidFailedJobProvider and DatabaseFailedJobProvider, on SQLite, MySQL/MariaDB or PostgreSQL. */
export class DatabaseFailedJobProvider implements FailedJobProvider {
  private readonly client: SqlClient;
  private readonly byUuid: boolean;
  private readonly table: string;
  private readonly timezone: string;
  private readonly clock: Clock;

  /** `connection`: settings larq opens itself, or a driver client or SqlClient of yours (never closed by larq). */
  constructor(connection: SqlConnectionConfig | SqlClient, opts: DatabaseFailedJobProviderOptions = {}) {
    const driver = opts.driver ?? 'database-uuids';
    if (driver !== 'database-uuids' && driver !== 'database') {
      throw new InvalidOptionError('driver', `expected "database-uuids" or "database", got ${JSON.stringify(driver)}`);
    }
    const table = opts.table ?? 'failed_jobs';
    if (typeof table !== 'string' || table === '') throw new InvalidOptionError('table', 'must be a non-empty string');
    this.timezone = opts.timezone ?? 'UTC';
    checkTimeZone(this.timezone);
    this.byUuid = driver === 'database-uuids';
    this.table = table;
    this.clock = opts.clock ?? systemClock;
    // Only a connection larq opened from settings is larq's to close: connectSql gives a driver client or
    // SqlClient of the caller's a close() that leaves it open.
    this.client = connectSql(connection, { option: 'database', feature: `The ${driver} failed-job store` });
  }

  /** Insert the failed job; returns its uuid (database-uuids) or new row id (database). */
  async log(
    connection: string,
    queue: string,
    payload: string | Buffer,
    exception: Error | string,
  ): Promise<string | number> {
    const text = typeof exception === 'string' ? exception : formatException(exception);
    const failedAt = formatDateTime(this.clock.nowMs(), this.timezone);
    const stored = this.storedPayload(payload);
    if (!this.byUuid) {
      const sql = this.insertSql(['connection', 'queue', 'payload', 'exception', 'failed_at']);
      return toId(await this.client.insertGetId(sql, [connection, queue, stored, text, failedAt], 'id'));
    }
    // The uuid column is NOT NULL UNIQUE, so Laravel's insert fails for a payload without one (a raw job
    // from another producer); larq gives it a uuid instead, under which it can be retried and forgotten.
    const uuid = recordUuid(payload);
    await this.client.execute(this.insertSql(['uuid', 'connection', 'queue', 'payload', 'exception', 'failed_at']), [
      uuid,
      connection,
      queue,
      stored,
      text,
      failedAt,
    ]);
    return uuid;
  }

  /** Ids (uuids or row ids) newest first, optionally of one queue only. */
  async ids(queue?: string): Promise<(string | number)[]> {
    const key = this.byUuid ? 'uuid' : 'id';
    const where = queue === undefined ? '' : ` WHERE ${this.q('queue')} = ${this.client.param(1)}`;
    const rows = await this.client.select(
      `SELECT ${this.q(key)} FROM ${this.q(this.table)}${where} ORDER BY ${this.q('id')} DESC`,
      queue === undefined ? [] : [queue],
    );
    return rows.map((row) => (this.byUuid ? text(row.uuid) : toId(row.id)));
  }

  /** Every record, newest (highest id) first. */
  async all(): Promise<FailedJobRecord[]> {
    const rows = await this.client.select(`SELECT * FROM ${this.q(this.table)} ORDER BY ${this.q('id')} DESC`);
    return rows.map((row) => this.toRecord(row));
  }

  /** The record with this uuid (database-uuids) or row id (database), or null. */
  async find(id: string | number): Promise<FailedJobRecord | null> {
    const key = this.keyValue(id);
    if (key === null) return null;
    const rows = await this.client.select(`SELECT * FROM ${this.q(this.table)} WHERE ${this.keyWhere()} LIMIT 1`, [
      key,
    ]);
    return rows.length > 0 ? this.toRecord(rows[0]) : null;
  }

  /** Delete one record; true when it existed. */
  async forget(id: string | number): Promise<boolean> {
    const key = this.keyValue(id);
    if (key === null) return false;
    return (await this.client.execute(`DELETE FROM ${this.q(this.table)} WHERE ${this.keyWhere()}`, [key])) > 0;
  }

  /** Delete everything, or (hours given and not 0, as in Laravel) the records failed at least that long ago. */
  async flush(hours?: number): Promise<number> {
    if (!hours) return this.client.execute(`DELETE FROM ${this.q(this.table)}`);
    const cutoff = formatDateTime(this.clock.nowMs() - hours * 3600_000, this.timezone);
    return this.client.execute(
      `DELETE FROM ${this.q(this.table)} WHERE ${this.q('failed_at')} <= ${this.client.param(1)}`,
      [cutoff],
    );
  }

  /** Delete records with failed_at before `before` (compared in the app timezone), in chunks of 1000. */
  async prune(before: Date): Promise<number> {
    const cutoff = formatDateTime(before.getTime(), this.timezone);
    const sql = deleteChunkSql(
      this.client.dialect,
      this.table,
      `${this.q('failed_at')} < ${this.client.param(1)}`,
      PRUNE_CHUNK,
      'id',
    );
    let total = 0;
    for (;;) {
      const deleted = await this.client.execute(sql, [cutoff]);
      total += deleted;
      if (deleted === 0) return total;
    }
  }

  /** Close the connection if larq opened it; a client or SqlClient passed in stays open. */
  async close(): Promise<void> {
    await this.client.close();
  }

  // SQLite keeps bytes that are not valid UTF-8 exactly, as a BLOB in the TEXT column (PHP reads them back
  // as the same string); MySQL's utf8mb4 and PostgreSQL's text would reject or alter them, so those refuse.
  private storedPayload(payload: string | Buffer): string | Buffer {
    if (typeof payload !== 'string' && this.client.dialect === 'sqlite' && !isUtf8(payload)) return payload;
    return utf8Payload(
      payload,
      `The ${this.byUuid ? 'database-uuids' : 'database'} failed-job store on ${this.client.dialect}`,
    );
  }

  private q(identifier: string): string {
    return this.client.quote(identifier);
  }

  private insertSql(columns: string[]): string {
    const values = columns.map((_, i) => this.client.param(i + 1));
    return `INSERT INTO ${this.q(this.table)} (${columns.map((c) => this.q(c)).join(', ')}) VALUES (${values.join(', ')})`;
  }

  private keyWhere(): string {
    return `${this.q(this.byUuid ? 'uuid' : 'id')} = ${this.client.param(1)}`;
  }

  /** The bound value for an id, or null when it cannot match (a non-integer row id would be a SQL error in pgsql). */
  private keyValue(id: string | number): SqlValue {
    if (this.byUuid) return String(id);
    const n = typeof id === 'number' ? id : /^\s*\d+\s*$/.test(id) ? Number(id) : NaN;
    return Number.isSafeInteger(n) ? n : null;
  }

  private toRecord(row: SqlRow): FailedJobRecord {
    const uuid = row.uuid === null || row.uuid === undefined ? undefined : text(row.uuid);
    return {
      // Like Laravel's uuid provider, the uuid is the record's id there; the row id stays internal.
      id: this.byUuid ? (uuid ?? '') : toId(row.id),
      ...(uuid === undefined ? {} : { uuid }),
      connection: text(row.connection),
      queue: text(row.queue),
      payload: text(row.payload),
      ...(Buffer.isBuffer(row.payload) && !isUtf8(row.payload) ? { payloadBytes: row.payload } : {}),
      exception: text(row.exception),
      failed_at: text(row.failed_at),
    };
  }
}

/** A text column's value; a driver may hand binary-collated text over as a Buffer. */
function text(value: unknown): string {
  if (typeof value === 'string') return value;
  if (Buffer.isBuffer(value)) return value.toString('utf8');
  if (value instanceof Date) return value.toISOString().slice(0, 19).replace('T', ' ');
  return value === null || value === undefined ? '' : String(value);
}

/** A row id as a number (pgsql returns bigints as text), kept as text beyond 2^53. */
function toId(value: unknown): number | string {
  const n = typeof value === 'number' ? value : Number(text(value));
  return Number.isSafeInteger(n) ? n : text(value);
}
