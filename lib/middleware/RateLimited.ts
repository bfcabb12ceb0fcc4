// Laravel's `Illuminate\Queue\Middleware\RateLimited` (8.x-13.x): the payload carries only the limiter's
// name; its limits are the closure PHP registered with `RateLimiter::for`, declared again in Node under
// the same name. Hits go to the cache RateLimiter under `md5(name . limit key)`, the keys PHP uses.
// Laravel runs the job unlimited when it does not know the name; larq refuses it instead, since a limit
// the PHP workers keep would otherwise silently not be kept here.
import { createHash } from 'crypto';
import { UnknownRateLimiterError, UnsupportedMiddlewareError } from '../errors';
import type { PhpObject } from '../php/values';
import { registerMiddlewareDecoder } from './fromPayload';
import type { JobMiddleware, MiddlewareContext } from './JobMiddleware';
import { limitsOf, type Limit } from './Limit';
import { intOrNull, keyProperty } from './phpValues';
import { canLimit, RateLimiter } from './RateLimiter';

const CLASS = 'Illuminate\\Queue\\Middleware\\RateLimited';

/** RateLimited's settings, named as Laravel's properties. */
export interface RateLimitedOptions {
  /** Seconds before a limited job runs again (`releaseAfter()`); default: when the window ends, plus 3. */
  releaseAfter?: number | null;
  /** Delete a limited job instead of releasing it (`dontRelease()`). Default true (release). */
  shouldRelease?: boolean;
}

/** A limit with its key as RateLimited hashes it. */
export interface KeyedLimit {
  readonly key: string;
  readonly maxAttempts: number;
  readonly decaySeconds: number;
}

/** RateLimited on the cache RateLimiter; RateLimitedWithRedis overrides how limits are counted. */
export class RateLimited implements JobMiddleware {
  readonly className: string = CLASS;
  readonly releaseAfter: number | null;
  readonly shouldRelease: boolean;

  constructor(
    readonly limiterName: string,
    options: RateLimitedOptions = {},
  ) {
    this.releaseAfter = options.releaseAfter ?? null;
    this.shouldRelease = options.shouldRelease ?? true;
  }

  async handle(ctx: MiddlewareContext, next: () => Promise<void>): Promise<void> {
    const limiter = ctx.services.limiters.get(this.limiterName);
    if (!limiter)
      throw new UnsupportedMiddlewareError(
        ctx.job.payload.name,
        this.className,
        new UnknownRateLimiterError(this.limiterName).message,
      );
    const limits = limitsOf(await limiter(ctx.command, ctx.job));
    if (limits === null) return next();
    const keyed = limits.map((l: Limit) => ({
      key: md5(this.limiterName + l.key),
      maxAttempts: l.maxAttempts,
      decaySeconds: l.decaySeconds,
    }));
    return this.handleJob(ctx, next, keyed);
  }

  /** RateLimited::handleJob: the first limit already used up releases (or deletes) the job; else each counts a hit. */
  protected async handleJob(ctx: MiddlewareContext, next: () => Promise<void>, limits: KeyedLimit[]): Promise<void> {
    const cache = ctx.services.cache;
    if (!canLimit(cache))
      throw new UnsupportedMiddlewareError(
        ctx.job.payload.name,
        this.className,
        'no Redis cache store is configured for its counters',
      );
    const limiter = new RateLimiter(cache, ctx.services.clock);
    for (const limit of limits) {
      if (await limiter.tooManyAttempts(limit.key, limit.maxAttempts)) {
        if (this.shouldRelease) await ctx.job.release(this.releaseAfter || (await limiter.availableIn(limit.key)) + 3);
        return;
      }
      await limiter.hit(limit.key, limit.decaySeconds);
    }
    await next();
  }
}

/** Declare RateLimited on a Node handler: `rateLimited('backups')`, limited as the limiter of that name says. */
export function rateLimited(limiterName: string, options: RateLimitedOptions = {}): RateLimited {
  return new RateLimited(limiterName, options);
}

export function md5(text: string): string {
  return createHash('md5').update(text, 'utf8').digest('hex');
}

/** Reads RateLimited's serialized properties (limiterName, releaseAfter from 12.x, shouldRelease). */
export function rateLimitedOptions(object: PhpObject, jobName: string): [string, RateLimitedOptions] {
  const should = object.get('shouldRelease');
  return [
    keyProperty(object, 'limiterName', jobName),
    {
      releaseAfter: intOrNull(object, 'releaseAfter', jobName),
      shouldRelease: should === undefined ? true : should === true,
    },
  ];
}

registerMiddlewareDecoder(CLASS, (object, jobName) => new RateLimited(...rateLimitedOptions(object, jobName)));
