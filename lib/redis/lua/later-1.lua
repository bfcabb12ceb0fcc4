-- larq script: later
-- Purpose: schedule a payload for later. No notify token: the migration that makes the job due pushes it.
-- KEYS[1]: delayed sorted set, e.g. laravel_database_queues:default:delayed
-- ARGV[1]: available-at, whole Unix seconds (the sorted-set score)
-- ARGV[2]: payload, the JSON string exactly as it must be stored
-- Returns: nil
-- Matches: Laravel `LuaScripts::later` (called by `RedisQueue::laterRaw`), 12.45+ and 13.x; older lines'
--   `RedisQueue::laterRaw` sends the same ZADD from the client, which leaves the same data.
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[2])
