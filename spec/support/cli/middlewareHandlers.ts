// The handlers module the mixed-fleet middleware specs give `larq work`: App\Jobs\MiddlewareProbe (see
// compat-fixtures/php/middleware.php) records when it started and ended to LARQ_SPEC_RECORD, after
// sleeping its sleepMs; the `api` limiter allows LARQ_SPEC_PER_SECOND runs a second, as the PHP side's.
import { appendFileSync } from 'fs';
import type { HandlersFactoryContext } from '../../../lib/cli/commands/work';
import { Handlers } from '../../../lib/handlers/Handlers';
import { limit } from '../../../lib/middleware';

export default function handlers(context: HandlersFactoryContext): Handlers {
  const file = context.env.LARQ_SPEC_RECORD;
  const perSecond = Number(context.env.LARQ_SPEC_PER_SECOND ?? 10);
  return new Handlers({ middleware: { limiters: { api: () => limit.perSecond(perSecond) } } }).object('App\\Jobs\\MiddlewareProbe', async (c, ctx) => {
    const start = Date.now() / 1000;
    await new Promise((r) => setTimeout(r, Number(c.sleepMs)));
    appendFileSync(file, JSON.stringify({ n: Number(c.n), start, end: Date.now() / 1000, attempts: ctx.attempts, worker: 'larq' }) + '\n');
  });
}
