// The handlers module `larq work --horizon` runs in the Horizon interop spec: Node twins of the jobs in
// compat-fixtures/php/horizon-jobs.php, doing what their PHP handle() does. Their errors are named
// RuntimeException, so the failed records' `(string) $e` first line reads as PHP's does.
import { Handlers } from '../../../lib/handlers/Handlers';

function runtimeException(message: string): Error {
  const error = new Error(message);
  error.name = 'RuntimeException';
  return error;
}

export default function handlers(): Handlers {
  const ok = () => undefined;
  return new Handlers()
    .object('App\\Jobs\\Horizon\\TaggedJob', ok)
    .object('App\\Jobs\\Horizon\\QuietJob', ok)
    .object('App\\Jobs\\Horizon\\LaterJob', ok)
    .object<{ reason: string }>('App\\Jobs\\Horizon\\FailingTaggedJob', (command) => {
      throw runtimeException(command.reason);
    })
    .object('App\\Jobs\\Horizon\\ModelFailingJob', () => {
      throw runtimeException('card declined');
    })
    .object('App\\Jobs\\Horizon\\ReleasingOnceJob', async (_command, ctx) => {
      if (ctx.attempts === 1) await ctx.release(0);
    });
}
