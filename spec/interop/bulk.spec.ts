// Queue::bulk with a job whose `delay` property is set, on every Laravel line: Laravel 8's RedisQueue::bulk
// pushes every job as it is (the delay is ignored, the job runs at once), 9.x and later send such a job
// through later() into the delayed set. larq's bulk must put each job where the peers' Laravel would.
import { expect } from 'chai';
import { FakeClock } from '../../lib/clock';
import { RedisQueue } from '../../lib/RedisQueue';
import { LARAVEL_LINES, laravelHarness, requirePhp } from '../support/php';
import { phpJobsFor } from '../support/phpJobs';
import { randomPrefix } from '../support/redis';
import { useRedisQueue } from '../support/useRedisQueue';

/** Where one job of the bulk landed. */
interface Placement {
  step: number;
  key: 'queues:default' | 'queues:default:delayed';
  /** The payload's `delay` field (absent before 12.11). */
  delay: number | null | 'absent';
  /** Seconds from the dispatch's "now" until it is due; 0 when pushed for now. */
  dueIn: number;
}

// Laravel's clock (LARQ_NOW) and larq's (FakeClock) stand still at this second, so due times are exact.
const NOW = 1_767_225_600;

for (const line of LARAVEL_LINES)
  describe(`interop: bulk with a delayed job, Laravel ${line}`, function () {
    this.timeout(60000);
    const redis = useRedisQueue();
    const { major, phpDispatch, runLaravelWorker } = laravelHarness(line);
    const { ChainStep } = phpJobsFor(major);

    before(async function () {
      requirePhp(this, line);
    });

    async function placements(prefix: string): Promise<Placement[]> {
      const stepOf = (raw: string): number => Number(/s:4:"step";i:(\d+);/.exec(JSON.parse(raw).data.command)![1]);
      const delayOf = (raw: string): Placement['delay'] => {
        const payload = JSON.parse(raw) as { delay?: number | null };
        return 'delay' in payload ? payload.delay! : 'absent';
      };
      const out: Placement[] = [];
      for (const raw of await redis.client.lrange(`${prefix}queues:default`, 0, -1)) {
        out.push({ step: stepOf(raw), key: 'queues:default', delay: delayOf(raw), dueIn: 0 });
      }
      const delayed = await redis.client.zrange(`${prefix}queues:default:delayed`, 0, '-1', 'WITHSCORES');
      for (let i = 0; i < delayed.length; i += 2) {
        out.push({
          step: stepOf(delayed[i]),
          key: 'queues:default:delayed',
          delay: delayOf(delayed[i]),
          dueIn: Number(delayed[i + 1]) - NOW,
        });
      }
      return out.sort((a, b) => a.step - b.step);
    }

    it(`larq's bulk puts each job where Laravel ${line}'s Queue::bulk does`, async () => {
      const theirs = randomPrefix();
      await phpDispatch('bulk-delayed', { port: redis.port, prefix: theirs, now: NOW, args: [60] });
      const expected = await placements(theirs);
      // What real Laravel did, stated: 8.x ignores the delay, later lines schedule step 2 for 60 s on.
      expect(expected.map((p) => [p.step, p.key, p.dueIn])).to.deep.equal([
        [1, 'queues:default', 0],
        major === 8 ? [2, 'queues:default', 0] : [2, 'queues:default:delayed', 60],
        [3, 'queues:default', 0],
      ]);

      const ours = randomPrefix();
      const queue = new RedisQueue({
        connection: { port: redis.port },
        prefix: ours,
        laravel: major,
        clock: new FakeClock(NOW * 1000),
      });
      try {
        await queue.bulk([
          ChainStep.make({ step: 1 }),
          ChainStep.make({ step: 2, delay: 60 }),
          ChainStep.make({ step: 3 }),
        ]);
      } finally {
        await queue.close();
      }
      expect(await placements(ours)).to.deep.equal(expected);
    });

    it('a Laravel worker runs the delayed job of a larq bulk when Laravel would', async () => {
      const prefix = randomPrefix();
      const queue = new RedisQueue({ connection: { port: redis.port }, prefix, laravel: major });
      try {
        await queue.bulk([ChainStep.make({ step: 1 }), ChainStep.make({ step: 2, delay: 60 })]);
      } finally {
        await queue.close();
      }
      const ran = await runLaravelWorker({ port: redis.port, prefix });
      const steps = ran.map(
        (r) =>
          (r.description as { props: { name: string; value: { v?: unknown } }[] }).props.find((p) => p.name === 'step')!
            .value.v,
      );
      expect(steps).to.deep.equal(major === 8 ? [1, 2] : [1]);
    });
  });

describe('bulk with a delayed job: which Laravel versions honour the delay', function () {
  const redis = useRedisQueue();

  // Laravel 9.0 made RedisQueue::bulk send a job whose delay is set through later(); 8.x pushes it.
  for (const [laravel, delayed] of [
    [8, 0],
    ['8.83', 0],
    [9, 1],
    ['9.0', 1],
    [10, 1],
    [11, 1],
    [12, 1],
    [13, 1],
  ] as const) {
    it(`laravel: ${JSON.stringify(laravel)} ${delayed ? 'schedules' : 'pushes'} the delayed job`, async () => {
      const prefix = randomPrefix();
      const queue = new RedisQueue({ connection: { port: redis.port }, prefix, laravel });
      const { ChainStep } = phpJobsFor(8);
      try {
        await queue.bulk([ChainStep.make({ step: 1 }), ChainStep.make({ step: 2, delay: 30 })]);
      } finally {
        await queue.close();
      }
      expect([
        await redis.client.llen(`${prefix}queues:default`),
        await redis.client.zcard(`${prefix}queues:default:delayed`),
      ]).to.deep.equal([2 - delayed, delayed]);
    });
  }
});
