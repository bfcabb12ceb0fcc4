// The handlers module of the work-output specs: ChainStep jobs that do nothing, except the step that
// LARQ_SPEC_CRASH names ("exit:STEP" calls process.exit(3) inside the handler, "throw:STEP" throws from a
// timer, an uncaught exception), and one console.log per job when LARQ_SPEC_LOG is set, printed between
// the job's RUNNING and DONE lines.
import { Handlers } from '../../../lib/handlers/Handlers';

export default function handlers(): Handlers {
  const [how, at] = (process.env.LARQ_SPEC_CRASH ?? ':').split(':');
  const log = process.env.LARQ_SPEC_LOG !== undefined;
  return new Handlers().object('App\\Jobs\\ChainStep', (command) => {
    if (log) console.log(`handler step ${String(command.step)}`);
    if (String(command.step) !== at) return;
    if (how === 'exit') process.exit(3);
    if (how === 'throw')
      setImmediate(() => {
        throw new Error('a crash outside any job');
      });
  });
}
