-- larq script: later
-- Purpose: schedule a payload for later. No notify token: the migration that makes the job due pushes it.
-- KEYS[1]: delayed sorted set, e.g. laravel_database_queues:default:delayed
-- ARGV[1]: available-at, whole Unix seconds (the sorted-set score)
-- ARGV[2]: payload, the JSON string exactly as it must be stored
-- Returns: nil
-- Matches: Laravel 12.45+ / 13.x `later` (spec §3.3); older lines send the same ZADD from the client,
--   which leaves the same data.
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[2])
