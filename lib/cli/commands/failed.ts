// artisan's failed-job commands on the app's failed-job store: failed, retry, forget, flush, prune-failed.
import { createFailedJobProvider, type FailedJobRecord } from '../../failed';
import { retryPayload } from '../../payload/Payload';
import { RedisQueue } from '../../RedisQueue';
import { configFor, numberFlag, parse, UsageError } from '../args';

/** Help texts, by command. */
export const FAILED_HELP = {
  failed: `Usage: larq failed

queue:failed: list the failed jobs (id, connection, queue, class, failed at).`,
  retry: `Usage: larq retry <id...|all> [--queue=NAME]

queue:retry: push failed jobs back onto their queue with attempts reset to 0, then forget them.
  --queue=NAME   with "all": only the jobs that failed on this queue`,
  forget: `Usage: larq forget <id>

queue:forget: delete one failed job.`,
  flush: `Usage: larq flush [--hours=N]

queue:flush: delete every failed job, or those older than N hours.`,
  'prune-failed': `Usage: larq prune-failed [--hours=24]

queue:prune-failed: delete failed jobs older than N hours.`,
};

type FailedCommand = keyof typeof FAILED_HELP;

/** Run one of the failed-job commands; resolves to the exit status. */
export async function failedCommand(command: FailedCommand, argv: string[], out: (line: string) => void): Promise<number> {
  const options: Record<string, { type: 'string' }> = {};
  if (command === 'retry') options.queue = { type: 'string' };
  if (command === 'flush' || command === 'prune-failed') options.hours = { type: 'string' };
  const p = parse(command, argv, options);
  if (p.values.help) return out(FAILED_HELP[command]), 0;
  const config = configFor(p);
  const store = createFailedJobProvider(config.failed);
  try {
    switch (command) {
      case 'failed':
        return list(await store.all(), out);
      case 'retry': {
        if (p.positionals.length === 0) throw new UsageError('larq retry: give the ids of the failed jobs to retry, or "all"');
        const onQueue = p.values.queue as string | undefined;
        const records = p.positionals.includes('all')
          ? (await store.all()).filter((r) => onQueue === undefined || r.queue === onQueue)
          : await Promise.all(p.positionals.map(async (id) => (await store.find(id)) ?? id));
        const queue = new RedisQueue(config.queue);
        try {
          for (const record of records) {
            if (typeof record === 'string') {
              out(`Unable to find failed job with ID [${record}].`);
              continue;
            }
            await queue.pushRaw(retryPayload(record.payload), record.queue);
            await store.forget(record.id);
            out(`The failed job [${record.id}] has been pushed back onto the queue!`);
          }
        } finally {
          await queue.close();
        }
        return records.some((r) => typeof r === 'string') ? 1 : 0;
      }
      case 'forget': {
        if (p.positionals.length !== 1) throw new UsageError('larq forget: give exactly one failed job id');
        const gone = await store.forget(p.positionals[0]);
        out(gone ? 'Failed job deleted successfully!' : 'No failed job matches the given ID.');
        return gone ? 0 : 1;
      }
      case 'flush': {
        const hours = p.values.hours === undefined ? undefined : numberFlag('flush', p, 'hours', 0);
        await store.flush(hours);
        out(hours === undefined ? 'All failed jobs deleted successfully!' : `All failed jobs older than ${hours} hours deleted successfully!`);
        return 0;
      }
      case 'prune-failed': {
        const hours = numberFlag('prune-failed', p, 'hours', 24);
        const count = await store.prune(new Date(Date.now() - hours * 3600 * 1000));
        out(`${count} entries deleted!`);
        return 0;
      }
    }
  } finally {
    await store.close();
  }
}

function list(records: FailedJobRecord[], out: (line: string) => void): number {
  if (records.length === 0) return out('No failed jobs found.'), 0;
  for (const r of records) out(`${r.failed_at}  ${String(r.id).padEnd(36)}  ${r.connection}  ${r.queue}  ${className(r.payload)}`);
  return 0;
}

// queue:failed's class column: displayName, else the serialized command's class, else `job`.
function className(payload: string): string {
  try {
    const p = JSON.parse(payload) as { displayName?: string; job?: string; data?: { command?: string } };
    return p.displayName || /"([^"]+)"/.exec(p.data?.command ?? '')?.[1] || p.job || '';
  } catch {
    return '';
  }
}
