// `larq failed`: artisan's queue:failed. Lists the app's failed jobs, newest first.
import type { FailedJobProvider, FailedJobRecord } from '../../failed';
import type { RedisFailedLists } from '../../failed/RedisFailedLists';
import { configFor, type Command, type Io } from '../args';
import { openFailedLists } from './failedLists';
import { openFailedStore, withResources } from './shared';

/** queue:failed's class column: displayName, else the first quoted string of data.command (the serialized class), else job. */
export function failedJobClass(payload: string): string {
  try {
    const p = JSON.parse(payload) as { displayName?: unknown; job?: unknown; data?: { command?: unknown } };
    if (typeof p.displayName === 'string' && p.displayName !== '') return p.displayName;
    const quoted = typeof p.data?.command === 'string' ? /"([^"]+)"/.exec(p.data.command)?.[1] : undefined;
    return quoted ?? (typeof p.job === 'string' ? p.job : '');
  } catch {
    return '';
  }
}

/** Where a listed failed job is: the failed-job store, larq's failed list in Redis, or its quarantine list. */
export type FailedJobPlace = 'store' | 'redis' | 'quarantine';

/** The rows of the listing. */
export function failedRows(records: (FailedJobRecord & { kind?: 'failed' | 'invalid' })[]): {
  id: string | number;
  connection: string;
  queue: string;
  class: string;
  failed_at: string;
  kept: FailedJobPlace;
}[] {
  return records.map((r) => ({
    id: r.id,
    connection: r.connection,
    queue: r.queue,
    class: failedJobClass(r.payload),
    failed_at: r.failed_at,
    kept: r.kind === undefined ? 'store' : r.kind === 'failed' ? 'redis' : 'quarantine',
  }));
}

/** `larq failed`. */
export const failed: Command = {
  name: 'failed',
  summary: 'queue:failed: list the failed jobs',
  help: `Usage: larq failed [--json]

queue:failed: list the failed jobs of the app's failed-job store (QUEUE_FAILED_DRIVER), newest first:
ID (the uuid for database-uuids and file, the row id for database), connection, queue, class, failed at.

Then the failed jobs larq keeps in Redis, with a Kept column: "redis" for failures the store could not
record when they happened (larq retry pushes them back, larq forget deletes them), "quarantine" for
payloads the pop could not reserve (not JSON, or no numeric attempts; larq forget deletes them).

  --json      print JSON instead of a table
  --to-store  first move the failures larq kept in Redis into the failed-job store (once it can be
              written again), where artisan's queue:failed sees them too; failed_at becomes now.
              Exits 1, saying how many, when the store refuses some: those stay in Redis`,
  options: { json: { type: 'boolean' }, 'to-store': { type: 'boolean' } },
  positionals: { min: 0, max: 0, what: 'nothing' },
  async run(p, io) {
    const config = configFor(p);
    let refused = 0;
    const rows = failedRows(
      await withResources(async (r) => {
        const store = openFailedStore(config, r);
        if (p.values['to-store'] === true)
          refused = await moveToStore(store, (await openFailedLists(config, r, io)).lists, io);
        const stored = await store.all();
        try {
          const { lists } = await openFailedLists(config, r, io);
          // A failure the store holds is listed once: a copy left in Redis (a lost store reply) goes.
          await lists.dropRecorded(stored);
          return [...stored, ...(await lists.all())];
        } catch (e) {
          io.err(`larq failed: the failed jobs kept in Redis could not be read: ${(e as Error).message}`);
          return stored;
        }
      }),
    );
    // Failures the store refused are still listed (as kept in Redis), and the exit status says so.
    const status = refused > 0 ? 1 : 0;
    if (p.values.json) return (io.out(JSON.stringify(rows)), status);
    if (rows.length === 0) return (io.out('No failed jobs found.'), status);
    // The Kept column only when Redis holds some: the listing is artisan's otherwise.
    const kept = rows.some((r) => r.kept !== 'store');
    const head = ['ID', 'Connection', 'Queue', 'Class', 'Failed At', ...(kept ? ['Kept'] : [])];
    const table = [
      head,
      ...rows.map((r) => [String(r.id), r.connection, r.queue, r.class, r.failed_at, ...(kept ? [r.kept] : [])]),
    ];
    const widths = table[0].map((_, i) => Math.max(...table.map((row) => row[i].length)));
    for (const row of table)
      io.out(row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]))).join('  '));
    return status;
  },
};

// Each failure kept in larq's failed list goes into the store, then leaves the list: a crash in between
// leaves it in both (a uuid already in the store is then only removed from the list), never in neither.
// Returns how many the store refused: they stay in Redis.
async function moveToStore(store: FailedJobProvider, lists: RedisFailedLists, io: Io): Promise<number> {
  let moved = await lists.dropRecorded(await store.all());
  let refused = 0;
  for (const job of await lists.all()) {
    if (job.kind !== 'failed') continue;
    try {
      await store.log(job.connection, job.queue, job.bytes, job.exception);
    } catch (e) {
      io.err(
        `larq failed: [${job.id}] stays in Redis: the failed-job store refused it (${(e as Error).message.split('\n')[0]})`,
      );
      refused++;
      continue;
    }
    if (await lists.forget(job)) moved++;
  }
  const stays = refused > 0 ? `; ${refused} stay${refused === 1 ? 's' : ''} in Redis, refused by the store` : '';
  io.err(`Moved ${moved} failed job${moved === 1 ? '' : 's'} from Redis into the failed-job store${stays}.`);
  return refused;
}
