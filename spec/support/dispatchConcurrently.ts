// A Node app dispatching as a web server does: LARQ_DISPATCH_CALLERS callers share one RedisQueue (one
// connection), each pushing one job at a time and awaiting it, until LARQ_DISPATCH_JOBS jobs are in. Run
// as a process of its own by the dispatcher garbage spec, on the Redis at LARQ_DISPATCH_PORT under the
// prefix LARQ_DISPATCH_PREFIX. Each push is pushRaw of one Laravel payload made once (a ChainStep's), so
// what the process allocates is the queue's own work: what the queue keeps shows in full.
import { getHeapSpaceStatistics } from 'v8';
import { RedisQueue } from '../../lib/RedisQueue';
import { ChainStep } from './phpJobs';

const env = (name: string): number => Number(process.env[name]);

const BIG_EVERY = 10_000;

// Garbage until two minor collections have run (each empties the new space), in small objects.
function bigRequest(): void {
  const used = () => getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')?.space_used_size ?? 0;
  let before = used();
  let last: { n: number } | null = null;
  for (let collections = 0; collections < 2;) {
    for (let n = 0; n < 1000; n++) last = { n };
    const now = used();
    if (now < before) collections++;
    before = now;
  }
  if (last === null) throw new Error('nothing allocated');
}

async function main(): Promise<void> {
  const queue = new RedisQueue({
    connection: { port: env('LARQ_DISPATCH_PORT') },
    prefix: process.env.LARQ_DISPATCH_PREFIX,
    laravel: 13,
  });
  const jobs = env('LARQ_DISPATCH_JOBS');
  await queue.push(ChainStep.make({ step: 1000 }));
  const [{ payload }] = await queue.pendingJobs();
  await queue.clear();
  let next = 0;
  const caller = async (): Promise<void> => {
    while (next++ < jobs) {
      // the request's own work, which allocates too: here, reading the job's payload; and every
      // BIG_EVERY requests one that allocates a lot at once (a big response), while other pushes wait
      // for their replies
      JSON.parse(payload);
      if (next % BIG_EVERY === 0) bigRequest();
      await queue.pushRaw(payload);
    }
  };
  await Promise.all(Array.from({ length: env('LARQ_DISPATCH_CALLERS') }, caller));
  await queue.close();
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
