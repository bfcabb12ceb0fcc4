// Laravel's job batches (`DatabaseBatchRepository`, 13.x) on the job_batches table: a repository that reads and writes rows the
// way DatabaseBatchRepository does (each count change in a transaction holding the row lock), hooks that
// record a Node job's success or failure, and a producer for batches PHP's Bus::findBatch reads.
//
// Transactions: on SQLite `BEGIN IMMEDIATE` (the database write lock, so PHP and Node serialize); on
// MySQL/PostgreSQL a transaction on one pooled connection with `SELECT ... FOR UPDATE`.
//
// then/catch/finally callbacks are PHP closures inside the serialized `options`: Node cannot run them.
// When a Node-side update reaches a point where Laravel would run some, larq calls batchHooks'
// `onCallbacksDue` (where the app can dispatch a PHP job of its own that runs them via Bus::findBatch), or
// without one writes a process warning naming the batch and the kinds and counts not run. They are never
// silently dropped.
import { systemClock, unixSeconds, type Clock } from '../clock';
import { connectSql, isSqlClient, type SqlClient, type SqlConnectionConfig, type SqlRow, type SqlRunner } from '../sql';
import type { CommandHooks, ObjectJobContext } from '../handlers/Handlers';
import type { ObjectJob } from '../jobs/dispatch';
import type { RedisJob } from '../jobs/RedisJob';
import { phpJsonEncode } from '../payload/json';
import { orderedUuid } from '../uuid';
import { serialize } from '../php/serialize';
import { unserialize } from '../php/unserialize';
import { PhpArray, PhpObject, type PhpValue } from '../php/values';
import type { QueueResolver } from './bus';
import { withProperty } from './props';

export { orderedUuid };

/** One job_batches row, decoded. */
export interface BatchRecord {
  id: string;
  name: string;
  totalJobs: number;
  pendingJobs: number;
  failedJobs: number;
  failedJobIds: string[];
  /** The PHP-serialized options column as stored (null when NULL). */
  rawOptions: string | null;
  /** `options.allowFailures === true`. */
  allowsFailures: boolean;
  /** Number of PHP closures under options then / catch / finally. */
  callbacks: { then: number; catch: number; finally: number };
  cancelledAt: number | null;
  createdAt: number;
  finishedAt: number | null;
}

/** What a Node update did, and which PHP callbacks Laravel would now run. */
export interface BatchUpdate {
  batch: BatchRecord;
  /** Callback kinds Laravel runs at this point (never run by Node). */
  due: ('then' | 'catch' | 'finally')[];
}

export interface BatchRepositoryOptions {
  /** Default `job_batches`. */
  table?: string;
  clock?: Clock;
}

/** Laravel's DatabaseBatchRepository over larq's SQL clients. */
export class BatchRepository {
  readonly sql: SqlClient;
  private readonly table: string;
  private readonly clock: Clock;
  private readonly owned: boolean;

  constructor(connection: SqlClient | SqlConnectionConfig, options: BatchRepositoryOptions = {}) {
    this.owned = !isSqlClient(connection);
    this.sql = isSqlClient(connection) ? connection : connectSql(connection);
    this.table = options.table ?? 'job_batches';
    this.clock = options.clock ?? systemClock;
  }

  /** The 8.x stub's CREATE TABLE for this dialect. */
  createTableSql(): string {
    const t = this.sql.quote(this.table);
    const q = (c: string) => this.sql.quote(c);
    const types =
      this.sql.dialect === 'sqlite'
        ? { str: 'varchar not null', int: 'integer not null', intN: 'integer', text: 'text not null', medium: 'text' }
        : this.sql.dialect === 'mysql'
          ? {
              str: 'varchar(255) not null',
              int: 'int not null',
              intN: 'int null',
              text: 'text not null',
              medium: 'mediumtext null',
            }
          : {
              str: 'varchar(255) not null',
              int: 'integer not null',
              intN: 'integer null',
              text: 'text not null',
              medium: 'text null',
            };
    return `CREATE TABLE ${t} (${q('id')} ${types.str} primary key, ${q('name')} ${types.str}, ${q('total_jobs')} ${types.int}, ${q('pending_jobs')} ${types.int}, ${q('failed_jobs')} ${types.int}, ${q('failed_job_ids')} ${types.text}, ${q('options')} ${types.medium}, ${q('cancelled_at')} ${types.intN}, ${q('created_at')} ${types.int}, ${q('finished_at')} ${types.intN})`;
  }

  async createTable(): Promise<void> {
    await this.sql.execute(this.createTableSql());
  }

  /** The batch, or null (Bus::findBatch). */
  async find(id: string): Promise<BatchRecord | null> {
    const rows = await this.sql.select(
      `SELECT * FROM ${this.sql.quote(this.table)} WHERE ${this.sql.quote('id')} = ${this.sql.param(1)}`,
      [id],
    );
    return rows[0] ? decodeRow(rows[0]) : null;
  }

  /** Insert a new, empty batch as DatabaseBatchRepository::store does (8.x). */
  async store(name: string, options: BatchOptions = {}): Promise<BatchRecord> {
    const id = orderedUuid(this.clock);
    const cols = [
      'id',
      'name',
      'total_jobs',
      'pending_jobs',
      'failed_jobs',
      'failed_job_ids',
      'options',
      'created_at',
      'cancelled_at',
      'finished_at',
    ];
    const params = [id, name, 0, 0, 0, '[]', serialize(optionsArray(options)), unixSeconds(this.clock), null, null];
    await this.sql.execute(
      `INSERT INTO ${this.sql.quote(this.table)} (${cols.map((c) => this.sql.quote(c)).join(', ')}) VALUES (${cols.map((_, i) => this.sql.param(i + 1)).join(', ')})`,
      params,
    );
    return (await this.find(id))!;
  }

  /** total_jobs and pending_jobs + n (Batch::add). */
  async incrementTotalJobs(id: string, n: number): Promise<void> {
    const q = (c: string) => this.sql.quote(c);
    await this.sql.execute(
      `UPDATE ${q(this.table)} SET ${q('total_jobs')} = ${q('total_jobs')} + ${this.sql.param(1)}, ${q('pending_jobs')} = ${q('pending_jobs')} + ${this.sql.param(2)}, ${q('finished_at')} = NULL WHERE ${q('id')} = ${this.sql.param(3)}`,
      [n, n, id],
    );
  }

  /** Batch::recordSuccessfulJob: pending - 1, the uuid leaves failed_job_ids; finished when pending reaches 0. */
  async recordSuccessfulJob(id: string, uuid: string): Promise<BatchUpdate | null> {
    const batch = await this.locked(id, (row) => ({
      pending_jobs: row.pendingJobs - 1,
      failed_jobs: row.failedJobs,
      failed_job_ids: row.failedJobIds.filter((u) => u !== uuid),
    }));
    if (!batch) return null;
    const due: BatchUpdate['due'] = [];
    if (batch.pendingJobs === 0) {
      await this.update(id, { finished_at: unixSeconds(this.clock) });
      if (batch.callbacks.then > 0) due.push('then');
    }
    if (batch.pendingJobs - batch.failedJobs === 0 && batch.callbacks.finally > 0) due.push('finally');
    return { batch: (await this.find(id))!, due };
  }

  /** Batch::recordFailedJob: failed + 1, uuid appended once; the first failure cancels unless failures are allowed. */
  async recordFailedJob(id: string, uuid: string): Promise<BatchUpdate | null> {
    const batch = await this.locked(id, (row) => ({
      pending_jobs: row.pendingJobs,
      failed_jobs: row.failedJobs + 1,
      failed_job_ids: row.failedJobIds.includes(uuid) ? row.failedJobIds : [...row.failedJobIds, uuid],
    }));
    if (!batch) return null;
    if (batch.failedJobs === 1 && !batch.allowsFailures) await this.cancel(id);
    const due: BatchUpdate['due'] = [];
    if (batch.failedJobs === 1 && batch.callbacks.catch > 0) due.push('catch');
    if (batch.pendingJobs - batch.failedJobs === 0 && batch.callbacks.finally > 0) due.push('finally');
    return { batch: (await this.find(id))!, due };
  }

  /** cancelled_at = finished_at = now. */
  async cancel(id: string): Promise<void> {
    const now = unixSeconds(this.clock);
    await this.update(id, { cancelled_at: now, finished_at: now });
  }

  /** DatabaseBatchRepository::prune (queue:prune-batches): delete batches finished before `before`; how many. */
  async prune(before: Date): Promise<number> {
    return this.deleteWhere('finished_at IS NOT NULL', 'finished_at', before);
  }

  /** DatabaseBatchRepository::pruneUnfinished: delete unfinished batches created before `before`; how many. */
  async pruneUnfinished(before: Date): Promise<number> {
    return this.deleteWhere('finished_at IS NULL', 'created_at', before);
  }

  /** DatabaseBatchRepository::pruneCancelled: delete cancelled batches created before `before`; how many. */
  async pruneCancelled(before: Date): Promise<number> {
    return this.deleteWhere('cancelled_at IS NOT NULL', 'created_at', before);
  }

  async close(): Promise<void> {
    if (this.owned) await this.sql.close();
  }

  // Laravel deletes in chunks of 1,000 to keep each statement short; one statement deletes the same rows.
  private async deleteWhere(condition: string, column: 'finished_at' | 'created_at', before: Date): Promise<number> {
    const [nullCheck, ...rest] = condition.split(' ');
    const sql = `DELETE FROM ${this.sql.quote(this.table)} WHERE ${this.sql.quote(nullCheck)} ${rest.join(' ')} AND ${this.sql.quote(column)} < ${this.sql.param(1)}`;
    return this.sql.execute(sql, [Math.floor(before.getTime() / 1000)]);
  }

  private async update(
    id: string,
    values: Record<string, string | number | null>,
    runner: SqlRunner = this.sql,
  ): Promise<void> {
    const q = (c: string) => this.sql.quote(c);
    const keys = Object.keys(values);
    await runner.execute(
      `UPDATE ${q(this.table)} SET ${keys.map((k, i) => `${q(k)} = ${this.sql.param(i + 1)}`).join(', ')} WHERE ${q('id')} = ${this.sql.param(keys.length + 1)}`,
      [...keys.map((k) => values[k]), id],
    );
  }

  // Read the row under the lock, write the new counts, commit; the updated row (null when missing).
  // The SQL layer's transaction holds one connection throughout (SQLite: BEGIN IMMEDIATE, the database
  // write lock, so PHP and Node serialize); elsewhere SELECT ... FOR UPDATE locks the row as Laravel does.
  private async locked(
    id: string,
    change: (row: BatchRecord) => { pending_jobs: number; failed_jobs: number; failed_job_ids: string[] },
  ): Promise<BatchRecord | null> {
    const q = (c: string) => this.sql.quote(c);
    const forUpdate = this.sql.dialect === 'sqlite' ? '' : ' FOR UPDATE';
    const found = await this.sql.transaction(async (tx) => {
      const rows = await tx.select(
        `SELECT * FROM ${q(this.table)} WHERE ${q('id')} = ${this.sql.param(1)}${forUpdate}`,
        [id],
      );
      if (!rows[0]) return false;
      const next = change(decodeRow(rows[0]));
      await this.update(
        id,
        {
          pending_jobs: next.pending_jobs,
          failed_jobs: next.failed_jobs,
          failed_job_ids: phpJsonEncode(next.failed_job_ids),
        },
        tx,
      );
      return true;
    });
    return found ? this.find(id) : null;
  }
}

/** The options of a batch built in Node (PendingBatch's). */
export interface BatchOptions {
  allowFailures?: boolean;
  queue?: string | null;
  connection?: string | null;
}

function optionsArray(o: BatchOptions): PhpArray {
  const entries: [string, PhpValue][] = [];
  if (o.queue != null) entries.push(['queue', o.queue]);
  if (o.connection != null) entries.push(['connection', o.connection]);
  if (o.allowFailures) entries.push(['allowFailures', true]);
  return new PhpArray(entries);
}

function num(v: unknown): number {
  return typeof v === 'bigint' ? Number(v) : Number(v);
}

function numOrNull(v: unknown): number | null {
  return v === null || v === undefined ? null : num(v);
}

/** Decode a job_batches row (options base64-decoded first when it is not PHP-serialized, as on PostgreSQL). */
export function decodeRow(row: SqlRow): BatchRecord {
  const raw = row.options === null || row.options === undefined ? null : String(row.options);
  let options: PhpValue = null;
  if (raw !== null) {
    try {
      options = unserialize(/^[aNOsbid]:/.test(raw) ? raw : Buffer.from(raw, 'base64'));
    } catch {
      options = null;
    }
  }
  const opt = (k: string): PhpValue | undefined => (options instanceof PhpArray ? options.entries.get(k) : undefined);
  const count = (k: string): number => {
    const v = opt(k);
    return v instanceof PhpArray ? v.size : 0;
  };
  let ids: unknown = [];
  try {
    ids = JSON.parse(String(row.failed_job_ids ?? '[]'));
  } catch {
    ids = [];
  }
  return {
    id: String(row.id),
    name: String(row.name),
    totalJobs: num(row.total_jobs),
    pendingJobs: num(row.pending_jobs),
    failedJobs: num(row.failed_jobs),
    failedJobIds: Array.isArray(ids) ? ids.map(String) : Object.values(ids as object).map(String),
    rawOptions: raw,
    allowsFailures: opt('allowFailures') === true,
    callbacks: { then: count('then'), catch: count('catch'), finally: count('finally') },
    cancelledAt: numOrNull(row.cancelled_at),
    createdAt: num(row.created_at),
    finishedAt: numOrNull(row.finished_at),
  };
}

async function reportDue(update: BatchUpdate | null, handler?: (update: BatchUpdate) => unknown): Promise<void> {
  if (!update || update.due.length === 0) return;
  if (handler) {
    await handler(update);
    return;
  }
  const kinds: Record<string, number> = {};
  for (const k of update.due) kinds[k] = update.batch.callbacks[k];
  const message = `larq: batch ${update.batch.id} reached its ${update.due.join('/')} callbacks (${JSON.stringify(kinds)}); they are PHP closures and were not run by Node`;
  process.emitWarning(message, { code: 'LARQ_BATCH_CALLBACKS' });
}

function batchIdOf(command: PhpObject | null): string | null {
  const id = command?.get('batchId');
  return typeof id === 'string' && id !== '' ? id : null;
}

/**
 * Batch bookkeeping for Batchable jobs run in Node (Laravel `CallQueuedHandler::call` and
 * `CallQueuedHandler::failed`, 13.x): success after a run that
 * neither failed nor was released, failure when the job fails for good. Recorded against the payload uuid.
 */
export function batchHooks(
  repo: BatchRepository,
  options: {
    /**
     * Called instead of the warning when Laravel would now run then/catch/finally closures: e.g. dispatch
     * a PHP job of yours that loads `Bus::findBatch($id)` and invokes them. The update says which are due.
     */
    onCallbacksDue?: (update: BatchUpdate) => unknown;
  } = {},
): CommandHooks {
  return {
    feature: 'batch',
    async afterHandle(ctx: ObjectJobContext) {
      // Most jobs are in no batch: say so from the command before reading the job's state.
      const id = batchIdOf(ctx.command);
      if (!id || ctx.job.hasFailed() || ctx.job.isReleased()) return;
      const uuid = ctx.job.uuid();
      if (uuid) await reportDue(await repo.recordSuccessfulJob(id, uuid), options.onCallbacksDue);
    },
    async onFailed(job: RedisJob, command: PhpObject | null) {
      const id = batchIdOf(command);
      const uuid = job.uuid();
      if (id && uuid) await reportDue(await repo.recordFailedJob(id, uuid), options.onCallbacksDue);
    },
  };
}

/**
 * Create a batch PHP can see (Bus::findBatch) and queue its jobs, as PendingBatch::dispatch does on 8.x:
 * the row is stored, each job gets `batchId`, the counts grow by the number of jobs, and the jobs are
 * pushed to the batch's queue (options.queue, else the connection default; a job's own `queue` is
 * ignored, as 8.x's bulk() does). Jobs must carry the Batchable trait's `batchId` property.
 */
export async function dispatchBatch(
  queues: QueueResolver,
  repo: BatchRepository,
  jobs: (PhpObject | ObjectJob)[],
  options: BatchOptions & { name?: string } = {},
): Promise<BatchRecord> {
  const batch = await repo.store(options.name ?? '', options);
  const queue = typeof queues === 'function' ? queues(options.connection ?? null) : queues;
  const inputs = jobs
    .map((j) => (j instanceof PhpObject ? { command: j } : j))
    .map((j) => ({ ...j, command: withProperty(j.command, 'batchId', batch.id) }));
  await repo.incrementTotalJobs(batch.id, inputs.length);
  await queue.bulk(inputs, options.queue ?? null);
  return (await repo.find(batch.id))!;
}
