// Laravel's `Illuminate\Queue\Middleware\FailOnException` (12.x, 13.x): an exception of one of the listed
// classes fails the job at once instead of letting it be retried. PHP keeps its condition as a closure,
// which cannot be serialized, so it never arrives in a payload: Node handlers declare it themselves.
import type { JobMiddleware, MiddlewareContext } from './JobMiddleware';

type ErrorClass = abstract new (...args: never[]) => Error;

/** FailOnException: fail the job with the error when it is one of `errors`, or `when(error)` says so; rethrow it either way. */
export class FailOnException implements JobMiddleware {
  readonly className = 'Illuminate\\Queue\\Middleware\\FailOnException';

  constructor(private readonly when: readonly ErrorClass[] | ((error: unknown, ctx: MiddlewareContext) => boolean)) {}

  async handle(ctx: MiddlewareContext, next: () => Promise<void>): Promise<void> {
    try {
      await next();
    } catch (error) {
      const when = this.when;
      const fails = typeof when === 'function' ? when(error, ctx) === true : when.some((c) => error instanceof c);
      if (fails) await ctx.job.fail(error instanceof Error ? error : new Error(String(error)));
      throw error;
    }
  }
}

/** Declare FailOnException on a Node handler: `failOnException([AuthorizationError])`. */
export function failOnException(when: ConstructorParameters<typeof FailOnException>[0]): FailOnException {
  return new FailOnException(when);
}
