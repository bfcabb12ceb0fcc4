// `larq monitor`: artisan's queue:monitor. Each queue's size (pending + delayed + reserved, as Laravel's
// size()), its parts, and ALERT once it reaches --max. Also the table `larq size` prints.
import { configFor, numberFlag, UsageError, type Command, type Io, type Parsed } from '../args';
import { redisConnection } from '../config';
import { describeJobsElsewhere, OtherPrefixes } from '../prefixCheck';
import { openFailedLists } from './failedLists';
import { Resources } from './shared';

/** One queue's sizes. */
export interface QueueSizes {
  connection: string;
  queue: string;
  size: number;
  pending: number;
  delayed: number;
  reserved: number;
  /** Failures larq keeps in Redis because the store could not record them (`<queue>:larq:failed`). */
  failed: number;
  /** Payloads the pop quarantined (`<queue>:larq:invalid`). */
  invalid: number;
  /** Unix time the job at the head of the list was created (monitor only; null: none, or no createdAt). */
  oldest_pending?: number | null;
  status?: 'OK' | 'ALERT';
}

/**
 * The sizes of `list` (comma-separated, each "queue" or "connection:queue", split on the first ":" as
 * artisan does; default the configured queue). Every connection is read from the app's one Redis.
 */
export async function readSizes(
  p: Parsed,
  io: Io,
  list: string | undefined,
  oldestPending = false,
): Promise<QueueSizes[]> {
  const config = configFor(p);
  const entries = (list ?? config.queue.queue).split(',').map((raw) => {
    const entry = raw.trim();
    if (entry === '' || entry.endsWith(':')) throw new UsageError(`larq ${p.command}: empty queue name in "${list}"`);
    const colon = entry.indexOf(':');
    const connection = redisConnection(config, colon < 0 ? undefined : entry.slice(0, colon));
    return { connection, queue: colon < 0 ? entry : entry.slice(colon + 1) };
  });
  const resources = new Resources();
  try {
    const { lists, queue, client } = await openFailedLists(config, resources, io);
    const rows: QueueSizes[] = [];
    for (const { connection, queue: name } of entries) {
      const [size, pending, delayed, reserved, kept] = await Promise.all([
        queue.size(name),
        queue.pendingSize(name),
        queue.delayedSize(name),
        queue.reservedSize(name),
        lists.counts(name),
      ]);
      const oldest = oldestPending ? { oldest_pending: await queue.creationTimeOfOldestPendingJob(name) } : {};
      rows.push({ connection, queue: name, size, pending, delayed, reserved, ...kept, ...oldest });
    }
    // Jobs of these queues under another prefix (the other skeleton's, or any a bounded SCAN finds): said on
    // stderr, the table stays as it is.
    const elsewhere = await new OtherPrefixes(config, [...new Set(entries.map((e) => e.queue))], client).look();
    for (const line of describeJobsElsewhere(elsewhere, config)) io.err(`larq ${p.command}: warning: ${line}`);
    return rows;
  } finally {
    await resources.close();
  }
}

/** Print `rows` as an aligned table (or JSON), with the status column when the rows have one. */
export function printSizes(rows: QueueSizes[], io: Io, json: boolean): void {
  if (json) return io.out(JSON.stringify(rows));
  const withStatus = rows.some((r) => r.status !== undefined);
  const names = rows.map((r) => `${r.connection}:${r.queue}`);
  const width = Math.max('Queue'.length, ...names.map((n) => n.length));
  // Failed and Invalid (larq's lists in Redis, not part of Laravel's size) only when some queue has any.
  const kept = rows.some((r) => r.failed > 0 || r.invalid > 0);
  const oldest = rows.some((r) => r.oldest_pending !== undefined);
  const now = Date.now() / 1000;
  const ages = rows.map((r) => (r.oldest_pending == null ? 'N/A' : diffForHumans(now - r.oldest_pending)));
  const agesWidth = Math.max('Oldest pending'.length, ...ages.map((a) => a.length));
  const head = ['Size', 'Pending', 'Delayed', 'Reserved', ...(kept ? ['Failed', 'Invalid'] : [])];
  const columns = (cells: (string | number)[]) => cells.map((c, i) => String(c).padStart(head[i].length + 2)).join('');
  io.out(
    `${'Queue'.padEnd(width)}${columns(head)}${oldest ? `  ${'Oldest pending'.padEnd(agesWidth)}` : ''}${withStatus ? '  Status' : ''}`,
  );
  rows.forEach((r, i) => {
    const cells = [r.size, r.pending, r.delayed, r.reserved, ...(kept ? [r.failed, r.invalid] : [])];
    io.out(
      `${names[i].padEnd(width)}${columns(cells)}${oldest ? `  ${ages[i].padEnd(agesWidth)}` : ''}${withStatus ? `  ${r.status}` : ''}`,
    );
  });
}

// Carbon's diffForHumans for a time in the past, as queue:monitor shows the oldest pending job.
function diffForHumans(seconds: number): string {
  const units: [string, number][] = [
    ['year', 31536000],
    ['month', 2628000],
    ['week', 604800],
    ['day', 86400],
    ['hour', 3600],
    ['minute', 60],
    ['second', 1],
  ];
  const s = Math.max(1, Math.floor(seconds));
  const [unit, size] = units.find(([, n]) => s >= n) ?? ['second', 1];
  const count = Math.floor(s / size);
  return `${count} ${unit}${count === 1 ? '' : 's'} ago`;
}

/** `larq monitor`. */
export const monitor: Command = {
  name: 'monitor',
  summary: 'queue:monitor: queue sizes, ALERT at --max',
  help: `Usage: larq monitor [queues] [--max=1000] [--json]

queue:monitor: each queue's size (pending + delayed + reserved) and its parts, with ALERT once the size
reaches --max, and how long ago the oldest pending job was created (12.11+ payloads). When larq keeps failed jobs of a queue in Redis, their counts follow: Failed (failures the
store could not record) and Invalid (quarantined payloads); see larq failed. They are not in the size. Exits 1 when a queue is in ALERT (artisan exits 0), so a script or cron job can react.

  queues      comma-separated, each "queue" or "connection:queue" (default REDIS_QUEUE, else "default")
  --max=N     the size that raises an alert (default 1000)
  --json      print JSON instead of a table`,
  options: { max: { type: 'string' }, json: { type: 'boolean' } },
  positionals: { min: 0, max: 1, what: 'one comma-separated list of queues' },
  async run(p, io) {
    const max = numberFlag(p, 'max', 1000);
    const rows = await readSizes(p, io, p.positionals[0], true);
    for (const row of rows) row.status = row.size >= max ? 'ALERT' : 'OK';
    printSizes(rows, io, p.values.json === true);
    return rows.some((r) => r.status === 'ALERT') ? 1 : 0;
  },
};
