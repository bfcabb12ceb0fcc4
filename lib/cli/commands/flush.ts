// `larq flush`: artisan's queue:flush. Deletes every failed-job record, or those older than --hours.
import { configFor, numberFlag, type Command } from '../args';
import { openFailedLists } from './failedLists';
import { openFailedStore, withResources } from './shared';

/** `larq flush`. */
export const flush: Command = {
  name: 'flush',
  summary: 'queue:flush: delete all failed jobs',
  help: `Usage: larq flush [--hours=N]

queue:flush: delete every failed job's record, and larq's failed and quarantine lists in Redis.

  --hours=N   only store records that failed at least N hours ago (the Redis lists are left alone)`,
  options: { hours: { type: 'string' } },
  positionals: { min: 0, max: 0, what: 'nothing' },
  async run(p, io) {
    const hours = p.values.hours === undefined ? undefined : numberFlag(p, 'hours', 0);
    const config = configFor(p);
    await withResources(async (r) => {
      await openFailedStore(config, r).flush(hours);
      // larq's lists in Redis go too, unless only old failures are asked for (quarantined payloads carry no time).
      if (hours === undefined) await (await openFailedLists(config, r, io)).lists.flush();
    });
    io.out(
      hours === undefined
        ? 'All failed jobs deleted successfully.'
        : `All jobs that failed more than ${hours} hours ago have been deleted successfully.`,
    );
    return 0;
  },
};
