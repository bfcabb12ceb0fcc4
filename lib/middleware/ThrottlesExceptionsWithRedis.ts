// Laravel's `Illuminate\Queue\Middleware\ThrottlesExceptionsWithRedis` (8.x-13.x): ThrottlesExceptions
// counted by the Redis DurationLimiter under the Redis prefix, the hash PHP's workers count in.
import { unixSeconds } from '../clock';
import { UnsupportedMiddlewareError } from '../errors';
import type { PhpObject } from '../php/values';
import { DurationLimiter } from './DurationLimiter';
import { registerMiddlewareDecoder } from './fromPayload';
import type { MiddlewareContext } from './JobMiddleware';
import {
  ThrottlesExceptions,
  throttleOptions,
  type ExceptionCounter,
  type ThrottlesExceptionsOptions,
} from './ThrottlesExceptions';

const CLASS = 'Illuminate\\Queue\\Middleware\\ThrottlesExceptionsWithRedis';

/** ThrottlesExceptionsWithRedis: the window is a DurationLimiter of maxAttempts slots per decaySeconds. */
export class ThrottlesExceptionsWithRedis extends ThrottlesExceptions {
  override readonly className: string = CLASS;

  protected override async counter(ctx: MiddlewareContext): Promise<ExceptionCounter> {
    const redis = ctx.services.redis;
    if (!redis)
      throw new UnsupportedMiddlewareError(
        ctx.job.payload.name,
        CLASS,
        'no Redis connection is configured for its limiter',
      );
    const limiter = new DurationLimiter(
      redis,
      await this.key(ctx),
      this.options.maxAttempts,
      this.options.decaySeconds,
      ctx.services.clock,
    );
    return {
      tooManyAttempts: () => limiter.tooManyAttempts(),
      retryIn: async () => limiter.decaysAt - unixSeconds(ctx.services.clock),
      hit: async () => void (await limiter.acquire()),
      clear: () => limiter.clear(),
    };
  }
}

/** Declare ThrottlesExceptionsWithRedis on a Node handler. */
export function throttlesExceptionsWithRedis(options: ThrottlesExceptionsOptions = {}): ThrottlesExceptionsWithRedis {
  return new ThrottlesExceptionsWithRedis(options);
}

registerMiddlewareDecoder(CLASS, (object: PhpObject, jobName: string) => {
  const connection = object.get('connectionName');
  if (connection !== undefined && connection !== null)
    throw new UnsupportedMiddlewareError(
      jobName,
      CLASS,
      `it names the Redis connection "${String(connection)}"; larq uses the default one`,
    );
  return new ThrottlesExceptionsWithRedis(...throttleOptions(object, jobName));
});
