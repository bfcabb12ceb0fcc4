// Laravel's job middleware for Node handlers, and the registry that reads them from payloads. Importing
// this module registers every middleware larq can read from a payload.
export {
  runThroughMiddleware,
  type BatchLookup,
  type JobMiddleware,
  type MiddlewareContext,
  type MiddlewareServices,
} from './JobMiddleware';
export { payloadMiddleware, supportedMiddlewareClasses } from './fromPayload';
export { limit, UNLIMITED, type Limit, type LimiterResult, type RateLimiterCallback } from './Limit';
export type { RedisLimiterConnection } from './redisLimiters';
export { WithoutOverlapping, withoutOverlapping, type WithoutOverlappingOptions } from './WithoutOverlapping';
export { Skip } from './Skip';
export { Release } from './Release';
export { SkipIfBatchCancelled, skipIfBatchCancelled } from './SkipIfBatchCancelled';
export { FailOnException, failOnException } from './FailOnException';
export { RateLimited, rateLimited, type RateLimitedOptions } from './RateLimited';
export { RateLimitedWithRedis, rateLimitedWithRedis } from './RateLimitedWithRedis';
export { ThrottlesExceptions, throttlesExceptions, type ThrottlesExceptionsOptions } from './ThrottlesExceptions';
export { ThrottlesExceptionsWithRedis, throttlesExceptionsWithRedis } from './ThrottlesExceptionsWithRedis';
export { DurationLimiter, LimiterTimeoutError } from './DurationLimiter';
export { ConcurrencyLimiter } from './ConcurrencyLimiter';
