-- larq script: pop
-- Purpose: Laravel's pop: take the head of the waiting list and reserve it in one atomic step (increment
--   `attempts` through Redis' own cjson, so the reserved string is byte-identical to what a PHP worker
--   would store; add it to the reserved set until the reservation expires; consume one notify token).
--   The one deliberate difference: a payload cjson cannot decode, or one without a numeric `attempts`,
--   makes Laravel's script fail after its LPOP, which loses the job. Here the decode runs under pcall and
--   such a payload goes to the quarantine list instead, taking its notify token with it; a valid payload
--   gets exactly Laravel's commands (LPOP, ZADD, LPOP).
-- KEYS[1]: waiting list, e.g. laravel_database_queues:default
-- KEYS[2]: reserved sorted set, e.g. laravel_database_queues:default:reserved
-- KEYS[3]: notify list, e.g. laravel_database_queues:default:notify
-- KEYS[4]: quarantine list for undecodable payloads (larq only), e.g. laravel_database_queues:default:larq:invalid
--   (each entry: `#larq-invalid {"reason":...}`, a newline, then the payload's exact bytes; see lib/failed/FailedList.ts)
-- ARGV[1]: reservation expiry, whole Unix seconds (now + retry_after)
-- Returns: Laravel's {job, reserved} ({false, false} when the list was empty), or {job, false, reason} when
--   the job was quarantined (reason = the decode or arithmetic error text)
-- Matches: Laravel `LuaScripts::pop`, 8.x-13.x, except the quarantine branch (larq only)
local job = redis.call('LPOP', KEYS[1])
if not job then
  return {false, false}
end

-- Only pure Lua runs inside pcall: no Redis command can be half-done when it fails.
local ok, reserved = pcall(function()
  local decoded = cjson.decode(job)
  decoded['attempts'] = decoded['attempts'] + 1
  return cjson.encode(decoded)
end)

if not ok then
  redis.call('RPUSH', KEYS[4], '#larq-invalid ' .. cjson.encode({ reason = (string.gsub(tostring(reserved), '^user_script:%d+: ', '')) }) .. '\n' .. job)
  redis.call('LPOP', KEYS[3])
  return {job, false, tostring(reserved)}
end

redis.call('ZADD', KEYS[2], ARGV[1], reserved)
redis.call('LPOP', KEYS[3])
return {job, reserved}
