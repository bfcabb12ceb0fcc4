// A handlers module for `larq work` whose ChainStep 1 ignores its AbortSignal and never settles, while
// every other step takes LARQ_SPEC_STEP_MS milliseconds and appends "done STEP" to LARQ_SPEC_OUT.
import { appendFileSync } from 'fs';
import { Handlers } from '../../../lib/handlers/Handlers';

export const handlers = new Handlers().object('App\\Jobs\\ChainStep', async (command) => {
  if (command.step === 1) return new Promise<void>(() => undefined);
  await new Promise((resolve) => setTimeout(resolve, Number(process.env.LARQ_SPEC_STEP_MS ?? '0')));
  appendFileSync(process.env.LARQ_SPEC_OUT!, `done ${String(command.step)}\n`);
});
