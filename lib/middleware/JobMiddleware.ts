// Laravel's job middleware (`Illuminate\Queue\Middleware`, 8.x-13.x) as Node runs it: each one wraps the
// handler as a pipe of Laravel's Pipeline does, and CallQueuedHandler::dispatchThroughMiddleware runs them
// in the order `array_merge($command->middleware(), $command->middleware)`: what the Node handler declares
// (its stand-in for the PHP `middleware()` method), then what the payload carries (`->through()`).
import type { CacheStore } from '../cache/CacheStore';
import type { Clock } from '../clock';
import type { ObjectJobContext } from '../handlers/HandlerContext';
import type { RateLimiterCallback } from './Limit';
import type { RedisLimiterConnection } from './redisLimiters';

/** Where the middleware find the locks and counters PHP workers share, and the app's named limiters. */
export interface MiddlewareServices {
  /** Laravel's default cache store: WithoutOverlapping locks (on its lock connection), RateLimited and ThrottlesExceptions counters. */
  readonly cache?: CacheStore;
  /** Laravel's `default` Redis connection and its prefix: the *WithRedis middleware, Redis::throttle and Redis::funnel. */
  readonly redis?: RedisLimiterConnection;
  /** The limiters `RateLimiter::for(name, ...)` registers in PHP, declared again in Node under the same names. */
  readonly limiters: ReadonlyMap<string, RateLimiterCallback>;
  /** Reads a job batch's cancelled time (SkipIfBatchCancelled): a BatchRepository fits. */
  readonly batches?: BatchLookup;
  readonly clock: Clock;
}

/** The slice of BatchRepository that SkipIfBatchCancelled needs. */
export interface BatchLookup {
  find(batchId: string): Promise<{ cancelledAt: number | null } | null>;
}

/** What one middleware sees of the job it wraps. */
export interface MiddlewareContext {
  /** The handler's context: release, delete and fail act on this attempt. */
  readonly job: ObjectJobContext;
  /** The plain view of the command, as the handler gets it. */
  readonly command: Readonly<Record<string, unknown>>;
  readonly services: MiddlewareServices;
}

/** One job middleware: call `next()` to go on to the next one (and finally the handler), or don't. */
export interface JobMiddleware {
  /** Laravel's class this mirrors, e.g. `Illuminate\Queue\Middleware\WithoutOverlapping`. */
  readonly className: string;
  handle(ctx: MiddlewareContext, next: () => Promise<void>): Promise<void>;
}

/** Run `handler` through `middleware`, first one outermost, as Laravel's Pipeline does. */
export function runThroughMiddleware(
  middleware: readonly JobMiddleware[],
  ctx: MiddlewareContext,
  handler: () => Promise<void>,
): Promise<void> {
  const step = (i: number): Promise<void> =>
    i === middleware.length ? handler() : middleware[i].handle(ctx, () => step(i + 1));
  return step(0);
}

/**
 * The class name keys are made of, as Laravel's middleware take it from the command: `displayName()` when
 * the class has that method, else `get_class()`. The payload's `displayName` is the one or the other
 * (Queue::getDisplayName), so a display name other than the class tells that the class has the method.
 */
export function jobDisplayName(job: ObjectJobContext): { name: string; hasDisplayName: boolean } {
  const className = job.payload.commandName ?? job.command.className;
  const display = job.payload.displayName;
  return display !== null && display !== '' && display !== className
    ? { name: display, hasDisplayName: true }
    : { name: className, hasDisplayName: false };
}
