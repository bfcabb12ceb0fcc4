-- larq script: durationLimiter
-- Purpose: take one slot of a fixed-window rate limit (Redis::throttle, RateLimitedWithRedis,
--   ThrottlesExceptionsWithRedis): a hash holding the window's start, end and count. A call outside the
--   window (or with no hash) opens a new one at ARGV[2]; the hash lives two windows. Start and end are
--   compared with ARGV[1] as strings, as Laravel's script does, so callers pass the same formats.
-- KEYS[1]: the limiter key, e.g. laravel_database_2c8a3b0e8c9c4bd0f0f1f7d1fd3d0b2a
-- ARGV[1]: now in UNIX seconds with a fraction (PHP's microtime(true)), e.g. 1700000000.25
-- ARGV[2]: now in whole UNIX seconds (the window starts on a whole second)
-- ARGV[3]: the window length in seconds (decay)
-- ARGV[4]: the most slots per window (maxLocks)
-- Returns: array {acquired (1, or nil when the window is full), the window's end in UNIX seconds, slots left}
-- Matches: Laravel 8.x-13.x `DurationLimiter::acquire`
local function reset()
    redis.call('HMSET', KEYS[1], 'start', ARGV[2], 'end', ARGV[2] + ARGV[3], 'count', 1)
    return redis.call('EXPIRE', KEYS[1], ARGV[3] * 2)
end

if redis.call('EXISTS', KEYS[1]) == 0 then
    return {reset(), ARGV[2] + ARGV[3], ARGV[4] - 1}
end

if ARGV[1] >= redis.call('HGET', KEYS[1], 'start') and ARGV[1] <= redis.call('HGET', KEYS[1], 'end') then
    return {
        tonumber(redis.call('HINCRBY', KEYS[1], 'count', 1)) <= tonumber(ARGV[4]),
        redis.call('HGET', KEYS[1], 'end'),
        ARGV[4] - redis.call('HGET', KEYS[1], 'count')
    }
end

return {reset(), ARGV[2] + ARGV[3], ARGV[4] - 1}
