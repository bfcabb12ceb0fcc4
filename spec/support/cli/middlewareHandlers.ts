// The handlers module the mixed-fleet middleware specs give `larq work`: App\Jobs\MiddlewareProbe (see
// compat-fixtures/php/middleware.php) records when it started and ended to LARQ_SPEC_RECORD, after
// sleeping its sleepMs; the `api` limiter allows LARQ_SPEC_PER_SECOND runs a second, as the PHP side's.
import { appendFileSync } from 'fs';
import { performance } from 'perf_hooks';
import type { HandlersFactoryContext } from '../../../lib/cli/commands/work';
import { Handlers } from '../../../lib/handlers/Handlers';
import { limit } from '../../../lib/middleware';

export default function handlers(context: HandlersFactoryContext): Handlers {
  const file = context.env.LARQ_SPEC_RECORD;
  const perSecond = Number(context.env.LARQ_SPEC_PER_SECOND ?? 10);
  return new Handlers({ middleware: { limiters: { api: () => limit.perSecond(perSecond) } } }).object(
    'App\\Jobs\\MiddlewareProbe',
    async (c, ctx) => {
      // microseconds, as PHP's microtime(true): a millisecond clock would round a start onto the PHP run's end
      const now = () => (performance.timeOrigin + performance.now()) / 1000;
      const start = now();
      await new Promise((r) => setTimeout(r, Number(c.sleepMs)));
      appendFileSync(
        file,
        JSON.stringify({ n: Number(c.n), start, end: now(), attempts: ctx.attempts, worker: 'larq' }) + '\n',
      );
    },
  );
}
