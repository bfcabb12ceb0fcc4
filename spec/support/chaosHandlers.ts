// The handlers module the chaos spec runs under `larq work`: App\Jobs\ChainStep jobs, each writing a
// "start" and an "end" line (step, pid, attempt, time in ms) to the file LARQ_CHAOS_RECORD names, a few ms apart.
// One append-only descriptor per process: each line is one write, so lines of several workers never mix.
import { openSync, writeSync } from 'fs';
import { Handlers } from '../../lib/handlers/Handlers';

const fd = openSync(process.env.LARQ_CHAOS_RECORD ?? '/dev/null', 'a');
const record = (event: string, step: unknown, attempt: number) =>
  writeSync(fd, `${event} ${String(step)} ${process.pid} ${attempt} ${Date.now()}\n`);

export default new Handlers().object('App\\Jobs\\ChainStep', async (command, ctx) => {
  record('start', command.step, ctx.attempts);
  await new Promise((resolve) => setTimeout(resolve, 2));
  record('end', command.step, ctx.attempts);
});
