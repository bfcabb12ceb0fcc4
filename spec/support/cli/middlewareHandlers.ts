// The handlers module the mixed-fleet middleware specs give `larq work`: App\Jobs\MiddlewareProbe (see
// compat-fixtures/php/middleware.php) records when it started and ended to LARQ_SPEC_RECORD, after
// sleeping its sleepMs, and the Redis limiter window its slot was taken in; the `api` limiter allows
// LARQ_SPEC_PER_SECOND runs a second, as the PHP side's.
import { appendFileSync } from 'fs';
import { performance } from 'perf_hooks';
import type { HandlersFactoryContext } from '../../../lib/cli/commands/work';
import type { Clock } from '../../../lib/clock';
import { Handlers } from '../../../lib/handlers/Handlers';
import { limit } from '../../../lib/middleware';

export default function handlers(context: HandlersFactoryContext): Handlers {
  const file = context.env.LARQ_SPEC_RECORD;
  const perSecond = Number(context.env.LARQ_SPEC_PER_SECOND ?? 10);
  // The middleware's clock. Of the probe's middleware in the fleet specs only RateLimitedWithRedis reads
  // it: its DurationLimiter once a slot, just before the script that counts the slot at that time (and
  // once more to release a job it refused). `larq work` runs one job at a time there (no --concurrency),
  // so the last reading before a handler runs is the time its slot was taken at; the handler takes it.
  let slotTakenMs: number | null = null;
  const clock: Clock = { nowMs: () => (slotTakenMs = Date.now()) };
  return new Handlers({ middleware: { clock, limiters: { api: () => limit.perSecond(perSecond) } } }).object(
    'App\\Jobs\\MiddlewareProbe',
    async (c, ctx) => {
      // microseconds, as PHP's microtime(true): a millisecond clock would round a start onto the PHP run's end
      const now = () => (performance.timeOrigin + performance.now()) / 1000;
      const start = now();
      const taken = slotTakenMs;
      slotTakenMs = null;
      // The slot's window, named by its end as PHP's RateLimitedWithRedis keeps it (decaysAt). The
      // limiter's windows last one second and open on a whole second; its script compares the time it is
      // handed, x.yyy0 for a time in second x, with a window's bounds as strings, so never as equal to an
      // end x: the slot counts in the window from x to x + 1, whichever window the hash held before.
      const window = taken === null ? null : Math.floor(taken / 1000) + 1;
      await new Promise((r) => setTimeout(r, Number(c.sleepMs)));
      appendFileSync(
        file,
        JSON.stringify({ n: Number(c.n), start, end: now(), window, attempts: ctx.attempts, worker: 'larq' }) + '\n',
      );
    },
  );
}
