// Laravel's `Illuminate\Queue\Middleware\Skip` (12.x, 13.x): its condition is evaluated when the job is
// dispatched, so the payload holds the boolean. A skipped job is not a failure: CallQueuedHandler deletes
// it, the chain carries on and a batch counts it done.
import { UnsupportedMiddlewareError } from '../errors';
import type { PhpObject } from '../php/values';
import { registerMiddlewareDecoder } from './fromPayload';
import type { JobMiddleware, MiddlewareContext } from './JobMiddleware';

const CLASS = 'Illuminate\\Queue\\Middleware\\Skip';

type Condition =
  boolean | ((command: Readonly<Record<string, unknown>>, ctx: MiddlewareContext) => boolean | Promise<boolean>);

/** Skip: the handler does not run when the condition holds. */
export class Skip implements JobMiddleware {
  readonly className = CLASS;

  constructor(private readonly skip: Condition) {}

  /** `Skip::when(condition)`. */
  static when(condition: Condition): Skip {
    return new Skip(condition);
  }

  /** `Skip::unless(condition)`. */
  static unless(condition: Condition): Skip {
    return new Skip(typeof condition === 'function' ? async (c, ctx) => !(await condition(c, ctx)) : !condition);
  }

  async handle(ctx: MiddlewareContext, next: () => Promise<void>): Promise<void> {
    const skip = typeof this.skip === 'function' ? await this.skip(ctx.command, ctx) : this.skip;
    if (!skip) await next();
  }
}

registerMiddlewareDecoder(CLASS, (object: PhpObject, jobName: string) => {
  const skip = object.get('skip');
  if (typeof skip !== 'boolean') throw new UnsupportedMiddlewareError(jobName, CLASS, 'its skip is not a boolean');
  return new Skip(skip);
});
