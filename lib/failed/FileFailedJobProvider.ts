// Laravel's `file` failed-job store (10.10.1+): one JSON array, newest record first, cut to the last
// `limit` records, written the way PHP's json_encode(JSON_PRETTY_PRINT) writes it. Writes go to a temp
// file renamed over the old one, so a reader (larq or PHP) never sees half a file. Each read-modify-write
// cycle holds the lock Laravel's store takes (see FileLock), so larq and PHP processes sharing the file
// never write over each other's records; within one process the cycles also queue per path. A file that
// is not a JSON array of records is refused (UnreadableFailedJobFileError) and never written over.
import { promises as fs } from 'fs';
import { dirname, join, resolve } from 'path';
import { systemClock, type Clock } from '../clock';
import { InvalidOptionError, UnreadableFailedJobFileError } from '../errors';
import { phpJsonDecode, phpJsonEncode } from '../payload/json';
import type { FailedJobProvider, FailedJobRecord } from './FailedJobProvider';
import { FileLock } from './FileLock';
import { formatException } from './formatException';
import { recordUuid, utf8Payload } from './payloadUuid';
import { checkTimeZone, formatDateTime } from './timestamp';

/** Options of a FileFailedJobProvider. */
export interface FileFailedJobProviderOptions {
  /** How many records to keep (`queue.failed.limit`); default 100. */
  limit?: number;
  /** The app timezone failed_at is written in; default "UTC". */
  timezone?: string;
  /** Source of "now"; default the system clock. */
  clock?: Clock;
  /**
   * The `file` cache store's lock directory (`cache.stores.file.lock_path`, else its `path`), where Laravel
   * keeps the lock every writer of the file takes; default the folder `data` beside the file, which is the
   * skeleton's storage/framework/cache/data when the file is the default storage/framework/cache/failed-jobs.json.
   */
  lockDirectory?: string;
}

/** A record as the file holds it; other keys a writer added are kept on rewrite. */
type StoredRecord = Record<string, unknown>;

// Pending read-modify-write cycles per absolute path, shared by every provider in this process.
const locks = new Map<string, Promise<unknown>>();

/** Laravel's FileFailedJobProvider: failed jobs in a JSON file (e.g. storage/framework/cache/failed-jobs.json). */
export class FileFailedJobProvider implements FailedJobProvider {
  private readonly path: string;
  private readonly limit: number;
  private readonly timezone: string;
  private readonly clock: Clock;
  private readonly lockDirectory: string;

  /** `path`: the JSON file; its folder is created when missing. */
  constructor(path: string, opts: FileFailedJobProviderOptions = {}) {
    if (typeof path !== 'string' || path === '') throw new InvalidOptionError('path', 'must be a non-empty string');
    const limit = opts.limit ?? 100;
    if (!Number.isSafeInteger(limit) || limit < 0)
      throw new InvalidOptionError('limit', `must be a whole number >= 0, got ${limit}`);
    this.timezone = opts.timezone ?? 'UTC';
    checkTimeZone(this.timezone);
    this.path = resolve(path);
    this.limit = limit;
    this.clock = opts.clock ?? systemClock;
    this.lockDirectory = resolve(opts.lockDirectory ?? join(dirname(this.path), 'data'));
  }

  /** Put the failed job first in the file and drop records beyond the limit; returns the payload uuid. */
  async log(connection: string, queue: string, bytes: string | Buffer, exception: Error | string): Promise<string> {
    // JSON text cannot carry bytes that are not UTF-8: such a payload is refused rather than altered.
    const payload = utf8Payload(bytes, 'The file failed-job store');
    // Laravel would store a null id, which queue:retry and queue:forget cannot address; larq generates one.
    const id = recordUuid(payload);
    const text = typeof exception === 'string' ? exception : formatException(exception);
    return this.locked(async () => {
      const nowMs = this.clock.nowMs();
      const record: StoredRecord = {
        id,
        connection,
        queue,
        payload,
        exception: text,
        failed_at: formatDateTime(nowMs, this.timezone),
        failed_at_timestamp: Math.floor(nowMs / 1000),
      };
      await this.write([record, ...(await this.read())].slice(0, this.limit));
      return id;
    });
  }

  /** Ids newest first, optionally of one queue only. */
  async ids(queue?: string): Promise<string[]> {
    const records = await this.all();
    return records.filter((r) => queue === undefined || r.queue === queue).map((r) => String(r.id));
  }

  /** Every record, in file order (newest first). */
  async all(): Promise<FailedJobRecord[]> {
    return (await this.read()).map(toRecord);
  }

  /** The record with this id, or null. */
  async find(id: string | number): Promise<FailedJobRecord | null> {
    const found = (await this.read()).find((r) => r.id === id);
    return found ? toRecord(found) : null;
  }

  /** Delete one record; true when it existed. */
  async forget(id: string | number): Promise<boolean> {
    return (await this.remove((r) => r.id === id)) > 0;
  }

  /** Delete every record, or those failed at least `hours` hours ago. */
  async flush(hours?: number): Promise<number> {
    return this.prune(new Date(this.clock.nowMs() - (hours || 0) * 3600_000));
  }

  /** Delete records whose failed_at_timestamp is at or before `before` (Laravel's file store compares with <=). */
  async prune(before: Date): Promise<number> {
    const cutoff = Math.floor(before.getTime() / 1000);
    // A record without a numeric timestamp compares as PHP's null <= int: true, so it goes too.
    return this.remove((r) => typeof r.failed_at_timestamp !== 'number' || r.failed_at_timestamp <= cutoff);
  }

  /** Nothing to release: the file is opened per operation. */
  async close(): Promise<void> {}

  private remove(doomed: (r: StoredRecord) => boolean): Promise<number> {
    return this.locked(async () => {
      const records = await this.read();
      const kept = records.filter((r) => !doomed(r));
      if (kept.length !== records.length) await this.write(kept);
      return records.length - kept.length;
    });
  }

  // Laravel `FileFailedJobProvider::lock` (12.x): the file store's lock "laravel-failed-jobs" for 5 s,
  // waited for up to 10 s.
  private locked<T>(work: () => Promise<T>): Promise<T> {
    const crossProcess = () => new FileLock(this.lockDirectory, 'laravel-failed-jobs', 5).block(10, work);
    const previous = locks.get(this.path) ?? Promise.resolve();
    const result = previous.then(crossProcess, crossProcess);
    const tail = result.catch(() => undefined);
    locks.set(this.path, tail);
    void tail.then(() => {
      if (locks.get(this.path) === tail) locks.delete(this.path);
    });
    return result;
  }

  /** The records in the file; like Laravel, a missing or empty file counts as none. Anything else unreadable throws. */
  private async read(): Promise<StoredRecord[]> {
    let content: string;
    try {
      content = await fs.readFile(this.path, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw e;
    }
    if (content.trim() === '') return [];
    let decoded: unknown;
    try {
      decoded = phpJsonDecode(content);
    } catch (e) {
      throw new UnreadableFailedJobFileError(this.path, `not JSON: ${(e as Error).message}`);
    }
    // Laravel reads anything but an array as no records and its next write drops them; larq refuses.
    if (!Array.isArray(decoded))
      throw new UnreadableFailedJobFileError(
        this.path,
        `its JSON is ${decoded === null ? 'null' : typeof decoded}, not an array`,
      );
    const odd = decoded.findIndex((r) => typeof r !== 'object' || r === null || Array.isArray(r));
    if (odd >= 0) throw new UnreadableFailedJobFileError(this.path, `entry ${odd} is not a record`);
    return decoded as StoredRecord[];
  }

  private async write(records: StoredRecord[]): Promise<void> {
    await fs.mkdir(dirname(this.path), { recursive: true });
    const temp = `${this.path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
    try {
      await fs.writeFile(temp, phpJsonEncode(records, { unescapedUnicode: false, prettyPrint: true }));
      await fs.rename(temp, this.path);
    } catch (e) {
      await fs.rm(temp, { force: true });
      throw e;
    }
  }
}

function toRecord(r: StoredRecord): FailedJobRecord {
  const str = (v: unknown): string => (v === null || v === undefined ? '' : String(v));
  return {
    id: typeof r.id === 'number' ? r.id : str(r.id),
    connection: str(r.connection),
    queue: str(r.queue),
    payload: str(r.payload),
    exception: str(r.exception),
    failed_at: str(r.failed_at),
    ...(typeof r.failed_at_timestamp === 'number' ? { failed_at_timestamp: r.failed_at_timestamp } : {}),
  };
}
