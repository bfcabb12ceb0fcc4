// Laravel's `Illuminate\Queue\Middleware\Release` (13.x): its condition is evaluated at dispatch, so the
// payload holds the boolean and the delay; a job it releases runs again as a new attempt.
import { UnsupportedMiddlewareError } from '../errors';
import type { PhpObject } from '../php/values';
import { registerMiddlewareDecoder } from './fromPayload';
import type { JobMiddleware, MiddlewareContext } from './JobMiddleware';
import { intOrNull } from './phpValues';

const CLASS = 'Illuminate\\Queue\\Middleware\\Release';

type Condition =
  boolean | ((command: Readonly<Record<string, unknown>>, ctx: MiddlewareContext) => boolean | Promise<boolean>);

/** Release: put the job back, due in `releaseAfter` seconds, instead of running it when the condition holds. */
export class Release implements JobMiddleware {
  readonly className = CLASS;

  constructor(
    private readonly release: Condition,
    readonly releaseAfter = 0,
  ) {}

  /** `Release::when(condition, releaseAfter)`. */
  static when(condition: Condition, releaseAfter = 0): Release {
    return new Release(condition, releaseAfter);
  }

  /** `Release::unless(condition, releaseAfter)`. */
  static unless(condition: Condition, releaseAfter = 0): Release {
    return new Release(
      typeof condition === 'function' ? async (c, ctx) => !(await condition(c, ctx)) : !condition,
      releaseAfter,
    );
  }

  async handle(ctx: MiddlewareContext, next: () => Promise<void>): Promise<void> {
    const release = typeof this.release === 'function' ? await this.release(ctx.command, ctx) : this.release;
    if (release) await ctx.job.release(this.releaseAfter);
    else await next();
  }
}

registerMiddlewareDecoder(CLASS, (object: PhpObject, jobName: string) => {
  const release = object.get('release');
  if (typeof release !== 'boolean')
    throw new UnsupportedMiddlewareError(jobName, CLASS, 'its release is not a boolean');
  return new Release(release, intOrNull(object, 'releaseAfter', jobName) ?? 0);
});
