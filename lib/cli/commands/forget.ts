// `larq forget`: artisan's queue:forget. Deletes one failed-job record.
import { configFor, type Command } from '../args';
import { openFailedLists } from './failedLists';
import { checkFailedJobId, openFailedStore, withResources } from './shared';

/** `larq forget`. */
export const forget: Command = {
  name: 'forget',
  summary: 'queue:forget <id>: delete a failed job',
  help: `Usage: larq forget <id>

queue:forget: delete one failed job's record (the ID larq failed lists), in the store or in larq's
failed and quarantine lists in Redis. Exits 1 when none matches.`,
  options: {},
  positionals: { min: 1, max: 1, what: 'one failed job ID' },
  async run(p, io) {
    const id = checkFailedJobId('forget', p.positionals[0]);
    const config = configFor(p);
    const gone = await withResources(async (r) => {
      const store = openFailedStore(config, r);
      const record = await store.find(id);
      const { lists } = await openFailedLists(config, r, io);
      // A failure in the store may have a copy in Redis too (a store reply lost after its insert): both
      // go, the copy first, so that the failure never comes back from Redis.
      if (record !== null) {
        await lists.forgetUuid(record.uuid ?? String(record.id));
        return store.forget(id);
      }
      // Not in the store: maybe one larq kept in Redis (larq failed lists both).
      const job = await lists.find(id);
      return job !== null && (await lists.forget(job));
    });
    if (gone) io.out('Failed job deleted successfully.');
    else io.err('No failed job matches the given ID.');
    return gone ? 0 : 1;
  },
};
