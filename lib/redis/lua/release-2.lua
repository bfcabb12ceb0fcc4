-- larq script: release
-- Purpose: move a reserved job back to the delayed set in one step, so no other worker can see it
--   missing from both. The ZADD happens even when the ZREM found nothing (the reservation expired and was
--   requeued elsewhere): Laravel accepts that duplicate, and larq must leave the same state.
-- KEYS[1]: delayed sorted set, e.g. laravel_database_queues:default:delayed
-- KEYS[2]: reserved sorted set, e.g. laravel_database_queues:default:reserved
-- ARGV[1]: the reserved string, byte for byte as the pop script returned it
-- ARGV[2]: available-at, whole Unix seconds (now + delay)
-- Returns: integer 1
-- Matches: Laravel `LuaScripts::release`, 8.x-13.x
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
return true
