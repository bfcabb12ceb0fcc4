// `larq forget`: artisan's queue:forget. Deletes one failed-job record.
import { configFor, type Command } from '../args';
import { checkFailedJobId, openFailedStore, withResources } from './shared';

/** `larq forget`. */
export const forget: Command = {
  name: 'forget',
  summary: 'queue:forget <id>: delete a failed job',
  help: `Usage: larq forget <id>

queue:forget: delete one failed job's record (the ID larq failed lists). Exits 1 when none matches.`,
  options: {},
  positionals: { min: 1, max: 1, what: 'one failed job ID' },
  async run(p, io) {
    const id = checkFailedJobId('forget', p.positionals[0]);
    const config = configFor(p);
    const gone = await withResources((r) => openFailedStore(config, r).forget(id));
    if (gone) io.out('Failed job deleted successfully.');
    else io.err('No failed job matches the given ID.');
    return gone ? 0 : 1;
  },
};
