// `larq flush`: artisan's queue:flush. Deletes every failed-job record, or those older than --hours.
import { configFor, numberFlag, type Command } from '../args';
import { openFailedStore, withResources } from './shared';

/** `larq flush`. */
export const flush: Command = {
  name: 'flush',
  summary: 'queue:flush: delete all failed jobs',
  help: `Usage: larq flush [--hours=N]

queue:flush: delete every failed job's record.

  --hours=N   only those that failed at least N hours ago`,
  options: { hours: { type: 'string' } },
  positionals: { min: 0, max: 0, what: 'nothing' },
  async run(p, io) {
    const hours = p.values.hours === undefined ? undefined : numberFlag(p, 'hours', 0);
    const config = configFor(p);
    await withResources((r) => openFailedStore(config, r).flush(hours));
    io.out(hours === undefined ? 'All failed jobs deleted successfully.' : `All jobs that failed more than ${hours} hours ago have been deleted successfully.`);
    return 0;
  },
};
