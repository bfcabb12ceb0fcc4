// `larq size`: how many jobs each queue holds, in total (Laravel's size()) and by state.
import type { Command } from '../args';
import { printSizes, readSizes } from './monitor';

/** `larq size`. */
export const size: Command = {
  name: 'size',
  summary: 'queue sizes: total, pending, delayed, reserved',
  help: `Usage: larq size [queues] [--json]

Print each queue's size (pending + delayed + reserved, as Laravel's Queue::size()) and its parts; then,
when any queue has some, the failed jobs larq keeps in Redis: Failed (failures the store could not
record) and Invalid (quarantined payloads), listed by larq failed.

  queues      comma-separated, each "queue" or "connection:queue" (default REDIS_QUEUE, else "default")
  --json      print JSON instead of a table`,
  options: { json: { type: 'boolean' } },
  positionals: { min: 0, max: 1, what: 'one comma-separated list of queues' },
  async run(p, io) {
    printSizes(await readSizes(p, io, p.positionals[0]), io, p.values.json === true);
    return 0;
  },
};
