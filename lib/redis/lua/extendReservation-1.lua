-- larq script: extendReservation
-- Purpose: push a running job's reservation further into the future (larq's heartbeat), only while the
--   job is still reserved: a reservation that expired and was migrated back must not be re-created, or the
--   job would be both waiting and reserved. Laravel has no heartbeat; the score is the only thing changed.
-- KEYS[1]: reserved sorted set, e.g. laravel_database_queues:default:reserved
-- ARGV[1]: new reservation expiry, whole Unix seconds
-- ARGV[2]: the job's reserved string, exactly as the pop script returned it
-- Returns: integer 1 when the reservation was extended, 0 when the job is no longer reserved
-- Matches: Laravel 8.x-13.x reserved-set layout (the set `LuaScripts::pop` adds to); larq only, no Laravel
--   counterpart
if redis.call('ZSCORE', KEYS[1], ARGV[2]) then
  redis.call('ZADD', KEYS[1], ARGV[1], ARGV[2])
  return 1
end
return 0
