// `larq retry`: artisan's queue:retry (spec §14.4). Each failed job's payload goes back onto its queue
// with attempts reset to 0 (re-encoded as PHP's plain json_encode would), then its record is deleted.
import { retryPayload } from '../../payload/Payload';
import type { RedisQueue } from '../../RedisQueue';
import { configFor, UsageError, type Command } from '../args';
import { NON_REDIS_DRIVERS } from '../config';
import { checkFailedJobId, openFailedStore, openQueue, withResources } from './shared';

/** `larq retry`. */
export const retry: Command = {
  name: 'retry',
  summary: 'queue:retry <id...|all>: push failed jobs back onto their queues',
  help: `Usage: larq retry <id...|all> [--queue=QUEUE] [--range=FROM-TO...]

queue:retry: push failed jobs back onto the queue they failed on, with attempts reset to 0, and delete
their failed-job records.

  id...               the failed jobs' IDs (as larq failed lists them), or "all"
  --queue=QUEUE       every failed job of this queue; with "all", only those
  --range=FROM-TO     numeric IDs from FROM to TO (the database driver's row ids); may be repeated

Not done, unlike artisan: refreshing retryUntil from the job's PHP retryUntil() method (larq cannot run
PHP), so a job whose deadline passed fails again at once.`,
  options: { queue: { type: 'string' }, range: { type: 'string', multiple: true } },
  positionals: { min: 0, max: Infinity, what: 'failed job IDs or "all"' },
  async run(p, io) {
    const onQueue = p.values.queue as string | undefined;
    const ranges = (p.values.range as string[] | undefined) ?? [];
    if (p.positionals.length === 0 && onQueue === undefined && ranges.length === 0) {
      throw new UsageError('larq retry: give the IDs of the failed jobs to retry, "all", --queue=QUEUE or --range=FROM-TO');
    }
    const ranged = ranges.flatMap((range) => {
      const m = /^(\d+)-(\d+)$/.exec(range);
      if (!m) throw new UsageError(`larq retry: --range must look like 1-5, got "${range}"`);
      // PHP's range() counts down as well as up: 5-1 is 5, 4, 3, 2, 1.
      const [from, to] = [Number(m[1]), Number(m[2])];
      return Array.from({ length: Math.abs(to - from) + 1 }, (_, i) => String(from <= to ? from + i : from - i));
    });
    for (const id of p.positionals) if (id !== 'all') checkFailedJobId('retry', id);
    const config = configFor(p);
    return withResources(async (resources) => {
      const store = openFailedStore(config, resources);
      const all = p.positionals.includes('all');
      const ids = all || (p.positionals.length === 0 && onQueue !== undefined) ? await store.ids(onQueue) : [...p.positionals, ...ranged];
      if (ids.length === 0) return io.out('No failed jobs to retry.'), 0;
      let queue: RedisQueue | undefined;
      let status = 0;
      for (const id of [...new Set(ids.map(String))]) {
        const record = await store.find(id);
        if (record === null) {
          io.err(`Unable to find failed job with ID [${id}].`);
          status = 1;
          continue;
        }
        if (NON_REDIS_DRIVERS.includes(record.connection)) {
          io.err(`Not retrying failed job [${id}]: it failed on connection "${record.connection}", which is not Redis.`);
          status = 1;
          continue;
        }
        queue ??= await openQueue(config, record.connection, resources, io);
        await queue.pushRaw(retryPayload(record.payload), record.queue);
        await store.forget(record.id);
        io.out(`The failed job [${record.id}] has been pushed back onto the queue!`);
      }
      return status;
    });
  },
};
