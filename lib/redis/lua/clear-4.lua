-- larq script: clear
-- Purpose: count, then delete, every key of one queue atomically; jobs reserved by running workers go
--   too (their later delete finds nothing, a later release re-adds them to the delayed set).
-- KEYS[1]: waiting list, e.g. laravel_database_queues:default
-- KEYS[2]: delayed sorted set, e.g. laravel_database_queues:default:delayed
-- KEYS[3]: reserved sorted set, e.g. laravel_database_queues:default:reserved
-- KEYS[4]: notify list, e.g. laravel_database_queues:default:notify
-- Returns: integer, the number of jobs deleted (notify tokens are not jobs and are not counted)
-- Matches: Laravel `LuaScripts::clear`, 8.x-13.x
local count = redis.call('LLEN', KEYS[1]) + redis.call('ZCARD', KEYS[2]) + redis.call('ZCARD', KEYS[3])
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3], KEYS[4])
return count
