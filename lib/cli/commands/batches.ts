// `larq retry-batch` and `larq prune-batches`: artisan's queue:retry-batch and queue:prune-batches, on the
// app's job_batches table (DB_CONNECTION's database, as the skeleton's queue.batching config has it).
import { BatchRepository } from '../../features';
import { configFor, numberFlag, stringFlag, UsageError, type Command } from '../args';
import { retry } from './retry';
import { requireSqliteFile } from './shared';

function openBatches(p: Parameters<Command['run']>[0]): BatchRepository {
  const config = configFor(p);
  requireSqliteFile(config.database);
  return new BatchRepository(config.database);
}

/** `larq retry-batch`. */
export const retryBatch: Command = {
  name: 'retry-batch',
  summary: "queue:retry-batch <id...>: push a batch's failed jobs back onto their queues",
  help: `Usage: larq retry-batch <batch id...>

queue:retry-batch: for each batch, retry every failed job it lists (as larq retry does), from the
app's job_batches table and failed-job store.`,
  options: {},
  positionals: { min: 1, max: Infinity, what: 'batch IDs' },
  async run(p, io) {
    const ids = [...new Set(p.positionals.filter((id) => id !== ''))];
    const batches = openBatches(p);
    let status = 0;
    try {
      if (ids.length > 0) io.out('\n   INFO  Pushing failed batch jobs back onto the queue.\n');
      for (const id of ids) {
        const batch = await batches.find(id);
        if (batch === null) {
          io.err(`\n   ERROR  Unable to find a batch with ID [${id}].\n`);
          status = 1;
          continue;
        }
        if (batch.failedJobIds.length === 0) {
          io.err('\n   ERROR  The given batch does not contain any failed jobs.\n');
          status = 1;
          continue;
        }
        io.out(`\n   INFO  Pushing failed queue jobs of the batch [${id}] back onto the queue.\n`);
        for (const failedId of batch.failedJobIds) {
          const lines: string[] = [];
          const code = await retry.run(
            { ...p, command: 'retry', positionals: [failedId], values: { ...p.values } },
            { out: (l) => lines.push(l), err: (l) => lines.push(l) },
          );
          io.out(`  ${failedId} ${'.'.repeat(Math.max(3, 80 - failedId.length))} ${code === 0 ? 'DONE' : 'FAIL'}`);
          if (code !== 0) status = 1;
        }
      }
      return status;
    } finally {
      await batches.close();
    }
  },
};

/** `larq prune-batches`. */
export const pruneBatches: Command = {
  name: 'prune-batches',
  summary: 'queue:prune-batches: delete old batch records',
  help: `Usage: larq prune-batches [--hours=24] [--unfinished=HOURS] [--cancelled=HOURS]

queue:prune-batches: delete finished batches older than --hours from job_batches; with --unfinished,
also unfinished ones created longer ago than that; with --cancelled, cancelled ones.`,
  options: { hours: { type: 'string' }, unfinished: { type: 'string' }, cancelled: { type: 'string' } },
  positionals: { min: 0, max: 0, what: 'nothing' },
  async run(p, io) {
    const hours = numberFlag(p, 'hours', 24);
    const unfinished = stringFlag(p, 'unfinished') === undefined ? undefined : numberFlag(p, 'unfinished', 0);
    const cancelled = stringFlag(p, 'cancelled') === undefined ? undefined : numberFlag(p, 'cancelled', 0);
    if ([hours, unfinished, cancelled].some((h) => h !== undefined && !Number.isFinite(h)))
      throw new UsageError('larq prune-batches: hours must be numbers');
    const ago = (h: number) => new Date(Date.now() - h * 3600 * 1000);
    const batches = openBatches(p);
    try {
      io.out(`\n   INFO  ${await batches.prune(ago(hours))} entries deleted.\n`);
      if (unfinished !== undefined)
        io.out(`\n   INFO  ${await batches.pruneUnfinished(ago(unfinished))} unfinished entries deleted.\n`);
      if (cancelled !== undefined)
        io.out(`\n   INFO  ${await batches.pruneCancelled(ago(cancelled))} cancelled entries deleted.\n`);
      return 0;
    } finally {
      await batches.close();
    }
  },
};
