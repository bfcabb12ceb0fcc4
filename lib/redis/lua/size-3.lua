-- larq script: size
-- Purpose: count every job of one queue (waiting + delayed + reserved), read in one atomic step so a
--   job moving between the three keys is never counted twice or missed.
-- KEYS[1]: waiting list, e.g. laravel_database_queues:default
-- KEYS[2]: delayed sorted set, e.g. laravel_database_queues:default:delayed
-- KEYS[3]: reserved sorted set, e.g. laravel_database_queues:default:reserved
-- Returns: integer, LLEN KEYS[1] + ZCARD KEYS[2] + ZCARD KEYS[3] (reserved jobs count: "total", not "pending")
-- Matches: Laravel `LuaScripts::size`, 8.x-13.x
local waiting = redis.call('LLEN', KEYS[1])
local delayed = redis.call('ZCARD', KEYS[2])
local reserved = redis.call('ZCARD', KEYS[3])
return waiting + delayed + reserved
