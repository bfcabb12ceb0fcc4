// The handlers module the Laravel-app CLI specs give `larq work`: a factory that records what it was
// given ({ queue, config, env }) and runs App\Jobs\ChainStep, appending "step N" to LARQ_SPEC_STEPS.
import { appendFileSync } from 'fs';
import type { HandlersFactoryContext } from '../../../lib/cli/commands/work';
import { Handlers } from '../../../lib/handlers/Handlers';

export default function handlers(context: HandlersFactoryContext): Handlers {
  const file = context.env.LARQ_SPEC_STEPS;
  appendFileSync(
    file,
    `factory ${context.queue.options.prefix} ${context.config.release.major}.${context.config.release.minor} ${context.env.APP_NAME}\n`,
  );
  return (
    new Handlers()
      .object('App\\Jobs\\ChainStep', (command) => {
        appendFileSync(file, `step ${String(command.step)}\n`);
        console.log(`handled step ${String(command.step)}`); // what a handler prints: stdout, or stderr under --json
      })
      // forgets to delete the job, as a PHP string job's handle() that never calls $job->delete() does
      .string('App\\Handlers\\RawHandler@handle', () => {
        appendFileSync(file, 'raw handler\n');
      })
  );
}
