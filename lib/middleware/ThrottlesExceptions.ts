// Laravel's `Illuminate\Queue\Middleware\ThrottlesExceptions` (8.x-13.x): after `maxAttempts` exceptions
// within `decaySeconds`, the job is released until the window ends instead of run. The exception is
// swallowed: the job is released after `backoff` minutes (no exception event, no maxExceptions count).
// Counters are the cache RateLimiter's under `laravel_throttles_exceptions:` + xxh128 of the job's name
// (12.x, 13.x) or md5 of its class (8.x). A serialized copy holds no callbacks (PHP closures cannot be
// serialized), so `when`, `deleteWhen`, `failWhen` and `report` only exist on Node-declared copies.
import { UnsupportedMiddlewareError } from '../errors';
import { xxh128 } from '../features/xxh128';
import type { PhpObject } from '../php/values';
import { registerMiddlewareDecoder } from './fromPayload';
import { jobDisplayName, type JobMiddleware, type MiddlewareContext } from './JobMiddleware';
import { intOrNull, keyProperty, refuseCallbacks } from './phpValues';
import { md5 } from './RateLimited';
import { canLimit, RateLimiter } from './RateLimiter';

const CLASS = 'Illuminate\\Queue\\Middleware\\ThrottlesExceptions';

/** ThrottlesExceptions' settings, named as Laravel's properties and methods. */
export interface ThrottlesExceptionsOptions {
  /** Exceptions allowed per window. Default 10. */
  maxAttempts?: number;
  /** The window in seconds. Default 600. */
  decaySeconds?: number;
  /** Minutes before a job released after an exception runs again (`backoff()`). Default 0. */
  backoff?: number;
  /** The counter's key instead of the job's name (`by()`). */
  by?: string;
  /** Count per job (its uuid) instead of per class (`byJob()`). */
  byJob?: boolean;
  /** The key prefix (`withPrefix()`). Default `laravel_throttles_exceptions:`. */
  prefix?: string;
  /** Only exceptions this accepts are throttled; others are rethrown (`when()`). */
  when?: (error: unknown) => boolean;
  /** Delete the job instead for exceptions this accepts (`deleteWhen()`). */
  deleteWhen?: (error: unknown) => boolean;
  /** Fail the job instead for exceptions this accepts (`failWhen()`). */
  failWhen?: (error: unknown) => boolean;
}

/** The counter ThrottlesExceptions keeps: the cache RateLimiter, or the Redis DurationLimiter. */
export interface ExceptionCounter {
  tooManyAttempts(): Promise<boolean>;
  /** Seconds until a job refused by tooManyAttempts may run again. */
  retryIn(): Promise<number>;
  hit(): Promise<void>;
  clear(): Promise<void>;
}

/** ThrottlesExceptions on the cache RateLimiter; ThrottlesExceptionsWithRedis counts in Redis. */
export class ThrottlesExceptions implements JobMiddleware {
  readonly className: string = CLASS;
  protected readonly options: Required<
    Pick<ThrottlesExceptionsOptions, 'maxAttempts' | 'decaySeconds' | 'backoff' | 'prefix'>
  > &
    ThrottlesExceptionsOptions;

  constructor(
    options: ThrottlesExceptionsOptions = {},
    // 8.x keys the counter by md5 of the class name
    protected readonly md5Keys = false,
  ) {
    this.options = {
      maxAttempts: 10,
      decaySeconds: 600,
      backoff: 0,
      prefix: 'laravel_throttles_exceptions:',
      ...options,
    };
  }

  /** ThrottlesExceptions::getKey. */
  async key(ctx: MiddlewareContext): Promise<string> {
    const o = this.options;
    if (o.by) return o.prefix + o.by;
    if (o.byJob) return o.prefix + (ctx.job.uuid ?? '');
    if (this.md5Keys) return o.prefix + md5(ctx.job.payload.commandName ?? ctx.job.command.className);
    return o.prefix + (await xxh128(jobDisplayName(ctx.job).name));
  }

  protected async counter(ctx: MiddlewareContext): Promise<ExceptionCounter> {
    const cache = ctx.services.cache;
    if (!canLimit(cache))
      throw new UnsupportedMiddlewareError(
        ctx.job.payload.name,
        this.className,
        'no Redis cache store is configured for its counters',
      );
    const limiter = new RateLimiter(cache, ctx.services.clock);
    const key = await this.key(ctx);
    return {
      tooManyAttempts: () => limiter.tooManyAttempts(key, this.options.maxAttempts),
      retryIn: async () => (await limiter.availableIn(key)) + 3,
      hit: async () => void (await limiter.hit(key, this.options.decaySeconds)),
      clear: () => limiter.clear(key),
    };
  }

  async handle(ctx: MiddlewareContext, next: () => Promise<void>): Promise<void> {
    const counter = await this.counter(ctx);
    if (await counter.tooManyAttempts()) return ctx.job.release(await counter.retryIn());
    try {
      await next();
    } catch (error) {
      const o = this.options;
      if (o.when && !o.when(error)) throw error;
      if (o.deleteWhen?.(error)) return ctx.job.delete();
      if (o.failWhen?.(error)) return ctx.job.fail(error instanceof Error ? error : new Error(String(error)));
      await counter.hit();
      return ctx.job.release(o.backoff * 60);
    }
    await counter.clear();
  }
}

/** Declare ThrottlesExceptions on a Node handler. */
export function throttlesExceptions(options: ThrottlesExceptionsOptions = {}): ThrottlesExceptions {
  return new ThrottlesExceptions(options);
}

/** Reads ThrottlesExceptions' serialized properties; refuses a copy holding callbacks. */
export function throttleOptions(object: PhpObject, jobName: string): [ThrottlesExceptionsOptions, boolean] {
  refuseCallbacks(object, ['whenCallback', 'reportCallback', 'deleteWhenCallbacks', 'failWhenCallbacks'], jobName);
  const line8 = object.get('decayMinutes') !== undefined;
  const decay = line8
    ? (intOrNull(object, 'decayMinutes', jobName) ?? 10) * 60
    : (intOrNull(object, 'decaySeconds', jobName) ?? 600);
  const key = keyProperty(object, 'key', jobName);
  const backoff = object.get('retryAfterMinutes');
  if (backoff !== undefined && backoff !== null && typeof backoff !== 'bigint' && typeof backoff !== 'number') {
    throw new UnsupportedMiddlewareError(jobName, object.className, 'its backoff is PHP code');
  }
  return [
    {
      maxAttempts: intOrNull(object, 'maxAttempts', jobName) ?? 10,
      decaySeconds: decay,
      backoff: Number(backoff ?? 0),
      by: key === '' || key === '0' ? undefined : key, // PHP's `if ($this->key)`
      byJob: object.get('byJob') === true,
      prefix: keyProperty(object, 'prefix', jobName),
    },
    line8,
  ];
}

registerMiddlewareDecoder(CLASS, (object, jobName) => new ThrottlesExceptions(...throttleOptions(object, jobName)));
