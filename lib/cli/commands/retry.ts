// `larq retry`: artisan's queue:retry (Laravel `RetryCommand`, 13.x). Each failed job's payload goes back onto its queue
// with attempts reset to 0 (re-encoded as PHP's plain json_encode would), then its record is deleted.
import { retryPayload } from '../../payload/Payload';
import type { RedisQueue } from '../../RedisQueue';
import type { RedisFailedLists } from '../../failed/RedisFailedLists';
import { configFor, UsageError, type Command, type Io } from '../args';
import { NON_REDIS_DRIVERS } from '../config';
import { openFailedLists, retryBytes } from './failedLists';
import { checkFailedJobId, openFailedStore, openQueue, withResources } from './shared';

/** `larq retry`. */
export const retry: Command = {
  name: 'retry',
  summary: 'queue:retry <id...|all>: push failed jobs back onto their queues',
  help: `Usage: larq retry <id...|all> [--queue=QUEUE] [--range=FROM-TO...]

queue:retry: push failed jobs back onto the queue they failed on, with attempts reset to 0, and delete
their failed-job records. Failures larq kept in Redis because the store could not record them (see larq
failed) are retried the same way; "all" includes them. A payload whose bytes are not valid UTF-8 goes back
byte for byte, only its attempts rewritten.

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
      throw new UsageError(
        'larq retry: give the IDs of the failed jobs to retry, "all", --queue=QUEUE or --range=FROM-TO',
      );
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
      let redis: Promise<RedisFailedLists> | undefined;
      const lists = () => (redis ??= openFailedLists(config, resources, io).then((opened) => opened.lists));
      const all = p.positionals.includes('all');
      const everything = all || (p.positionals.length === 0 && onQueue !== undefined);
      // A failure both in the store and in Redis (a store reply lost after its insert) is the store's:
      // its Redis copy goes first, so no uuid is pushed twice.
      if (everything) await (await lists()).dropRecorded(await store.all());
      const ids = everything
        ? [...(await store.ids(onQueue)), ...(await redisIds(await lists(), onQueue))]
        : [...p.positionals, ...ranged];
      if (ids.length === 0) return (io.out('No failed jobs to retry.'), 0);
      let queue: RedisQueue | undefined;
      let status = 0;
      for (const id of [...new Set(ids.map(String))]) {
        const record = await store.find(id);
        if (record === null) {
          status = Math.max(status, await retryFromRedis(await lists(), id, io));
          continue;
        }
        if (NON_REDIS_DRIVERS.includes(record.connection)) {
          io.err(
            `Not retrying failed job [${id}]: it failed on connection "${record.connection}", which is not Redis.`,
          );
          status = 1;
          continue;
        }
        // Its Redis copy, if any, goes before the push: the store's record keeps the failure meanwhile.
        await (await lists()).forgetUuid(record.uuid ?? String(record.id));
        if (record.payloadBytes !== undefined) {
          // Bytes that are not valid UTF-8 go back exactly, only attempts rewritten (see retryBytes).
          await (await lists()).push(record.queue, retryBytes(record.payloadBytes));
        } else {
          queue ??= await openQueue(config, record.connection, resources, io);
          await queue.pushRaw(retryPayload(record.payload), record.queue);
        }
        await store.forget(record.id);
        io.out(`The failed job [${record.id}] has been pushed back onto the queue!`);
      }
      return status;
    });
  },
};

// The ids of the failures larq kept in Redis because the store could not take them (not the quarantined
// payloads: the pop would only quarantine them again).
async function redisIds(lists: RedisFailedLists, onQueue: string | undefined): Promise<string[]> {
  return (await lists.all())
    .filter((job) => job.kind === 'failed' && (onQueue === undefined || job.queue === onQueue))
    .map((job) => String(job.id));
}

// A failed job kept in larq's failed list in Redis: pushed back and removed from the list in one MULTI.
async function retryFromRedis(lists: RedisFailedLists, id: string, io: Io): Promise<number> {
  const job = await lists.find(id);
  if (job === null) {
    io.err(`Unable to find failed job with ID [${id}].`);
    return 1;
  }
  if (job.kind === 'invalid') {
    io.err(
      `Not retrying [${id}]: it is a quarantined payload the pop could not reserve (${job.exception}); larq forget ${id} deletes it.`,
    );
    return 1;
  }
  await lists.retry(job, retryBytes(job.bytes));
  io.out(`The failed job [${job.id}] has been pushed back onto the queue!`);
  return 0;
}
