// `larq failed`: artisan's queue:failed. Lists the app's failed jobs, newest first.
import type { FailedJobRecord } from '../../failed';
import { configFor, type Command } from '../args';
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

/** The rows of the listing. */
export function failedRows(records: FailedJobRecord[]): { id: string | number; connection: string; queue: string; class: string; failed_at: string }[] {
  return records.map((r) => ({ id: r.id, connection: r.connection, queue: r.queue, class: failedJobClass(r.payload), failed_at: r.failed_at }));
}

/** `larq failed`. */
export const failed: Command = {
  name: 'failed',
  summary: 'queue:failed: list the failed jobs',
  help: `Usage: larq failed [--json]

queue:failed: list the failed jobs of the app's failed-job store (QUEUE_FAILED_DRIVER), newest first:
ID (the uuid for database-uuids and file, the row id for database), connection, queue, class, failed at.

  --json      print JSON instead of a table`,
  options: { json: { type: 'boolean' } },
  positionals: { min: 0, max: 0, what: 'nothing' },
  async run(p, io) {
    const config = configFor(p);
    const rows = failedRows(await withResources((r) => openFailedStore(config, r).all()));
    if (p.values.json) return io.out(JSON.stringify(rows)), 0;
    if (rows.length === 0) return io.out('No failed jobs found.'), 0;
    const table = [['ID', 'Connection', 'Queue', 'Class', 'Failed At'], ...rows.map((r) => [String(r.id), r.connection, r.queue, r.class, r.failed_at])];
    const widths = table[0].map((_, i) => Math.max(...table.map((row) => row[i].length)));
    for (const row of table) io.out(row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]))).join('  '));
    return 0;
  },
};
