-- larq script: push
-- Purpose: append a payload to the waiting list and one wake-up token to the notify list together,
--   so a worker blocked on the notify list never sees a token without a job (or the reverse).
-- KEYS[1]: waiting list, e.g. laravel_database_queues:default
-- KEYS[2]: notify list, e.g. laravel_database_queues:default:notify
-- ARGV[1]: payload, the JSON string exactly as it must be stored (never re-encoded here)
-- Returns: nil
-- Matches: Laravel `LuaScripts::push`, 8.x-13.x
redis.call('RPUSH', KEYS[1], ARGV[1])
redis.call('RPUSH', KEYS[2], 1)
