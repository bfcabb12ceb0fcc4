// `larq prune-failed`: artisan's queue:prune-failed. Deletes the failed-job records older than --hours.
import { configFor, numberFlag, type Command } from '../args';
import { openFailedStore, withResources } from './shared';

/** `larq prune-failed`. */
export const pruneFailed: Command = {
  name: 'prune-failed',
  summary: 'queue:prune-failed: delete failed jobs older than --hours',
  help: `Usage: larq prune-failed [--hours=24]

queue:prune-failed: delete the records of jobs that failed more than N hours ago.

  --hours=N   the age in hours (default 24)`,
  options: { hours: { type: 'string' } },
  positionals: { min: 0, max: 0, what: 'nothing' },
  async run(p, io) {
    const hours = numberFlag(p, 'hours', 24);
    const config = configFor(p);
    const count = await withResources((r) =>
      openFailedStore(config, r).prune(new Date(Date.now() - hours * 3600 * 1000)),
    );
    io.out(`${count} entries deleted.`);
    return 0;
  },
};
