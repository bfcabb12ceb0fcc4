// Laravel's `Illuminate\Queue\Middleware\RateLimitedWithRedis` (8.x-13.x): RateLimited counted by the
// Redis DurationLimiter (windows starting on whole seconds) under the Redis prefix, without the cache
// prefix: the same hash PHP's workers count in.
import { UnsupportedMiddlewareError } from '../errors';
import { unixSeconds } from '../clock';
import type { PhpObject } from '../php/values';
import { DurationLimiter } from './DurationLimiter';
import { registerMiddlewareDecoder } from './fromPayload';
import type { MiddlewareContext } from './JobMiddleware';
import { RateLimited, rateLimitedOptions, type KeyedLimit, type RateLimitedOptions } from './RateLimited';

const CLASS = 'Illuminate\\Queue\\Middleware\\RateLimitedWithRedis';

/** RateLimitedWithRedis: each limit takes a slot of its DurationLimiter before the handler runs. */
export class RateLimitedWithRedis extends RateLimited {
  override readonly className: string = CLASS;

  protected override async handleJob(
    ctx: MiddlewareContext,
    next: () => Promise<void>,
    limits: KeyedLimit[],
  ): Promise<void> {
    const redis = ctx.services.redis;
    if (!redis)
      throw new UnsupportedMiddlewareError(
        ctx.job.payload.name,
        CLASS,
        'no Redis connection is configured for its limiter',
      );
    for (const limit of limits) {
      const limiter = new DurationLimiter(redis, limit.key, limit.maxAttempts, limit.decaySeconds, ctx.services.clock);
      if (!(await limiter.acquire())) {
        if (this.shouldRelease)
          await ctx.job.release(this.releaseAfter || limiter.decaysAt - unixSeconds(ctx.services.clock) + 3);
        return;
      }
    }
    await next();
  }
}

/** Declare RateLimitedWithRedis on a Node handler: `rateLimitedWithRedis('api')`. */
export function rateLimitedWithRedis(limiterName: string, options: RateLimitedOptions = {}): RateLimitedWithRedis {
  return new RateLimitedWithRedis(limiterName, options);
}

registerMiddlewareDecoder(CLASS, (object: PhpObject, jobName: string) => {
  const connection = object.get('connectionName');
  if (connection !== undefined && connection !== null)
    throw new UnsupportedMiddlewareError(
      jobName,
      CLASS,
      `it names the Redis connection "${String(connection)}"; larq uses the default one`,
    );
  return new RateLimitedWithRedis(...rateLimitedOptions(object, jobName));
});
