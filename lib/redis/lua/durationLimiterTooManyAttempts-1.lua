-- larq script: durationLimiterTooManyAttempts
-- Purpose: read a fixed-window rate limit without taking a slot (ThrottlesExceptionsWithRedis checks it
--   before the job runs): the window's end and the slots left in it.
-- KEYS[1]: the limiter key, e.g. laravel_database_laravel_throttles_exceptions:0f3c6c1d2e4b5a69788796a5b4c3d2e1
-- ARGV[1]: now in UNIX seconds with a fraction (PHP's microtime(true)), e.g. 1700000000.25
-- ARGV[2]: now in whole UNIX seconds
-- ARGV[3]: the window length in seconds (decay)
-- ARGV[4]: the most slots per window (maxLocks)
-- Returns: array {the window's end in UNIX seconds, slots left}; {0, now + decay} when no window is open
--   (which Laravel reads as end 0 and that many slots left: not too many)
-- Matches: Laravel 8.x-13.x `DurationLimiter::tooManyAttempts`
if redis.call('EXISTS', KEYS[1]) == 0 then
    return {0, ARGV[2] + ARGV[3]}
end

if ARGV[1] >= redis.call('HGET', KEYS[1], 'start') and ARGV[1] <= redis.call('HGET', KEYS[1], 'end') then
    return {
        redis.call('HGET', KEYS[1], 'end'),
        ARGV[4] - redis.call('HGET', KEYS[1], 'count')
    }
end

return {0, ARGV[2] + ARGV[3]}
