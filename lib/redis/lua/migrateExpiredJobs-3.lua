-- larq script: migrateExpiredJobs
-- Purpose: move every due member of a sorted set (delayed jobs whose time has come, or reservations that
--   expired) to the tail of the waiting list, with one notify token per job, atomically so two workers
--   migrating at once never move a job twice.
-- KEYS[1]: source sorted set, e.g. laravel_database_queues:default:delayed (or ...:reserved)
-- KEYS[2]: destination waiting list, e.g. laravel_database_queues:default
-- KEYS[3]: notify list, e.g. laravel_database_queues:default:notify
-- ARGV[1]: now, whole Unix seconds; members scored at or below it are due
-- ARGV[2]: batch limit, a count of members; negative (-1) = unlimited, 0 = move nothing
-- Returns: array of the moved members, in (score, member) order; empty when nothing was due
-- Matches: Laravel `LuaScripts::migrateExpiredJobs` with its LIMIT argument, 9.23+ and 10.x-13.x; with -1 the
--   data effect equals 8.x, which has no limit.
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, ARGV[2])
local count = #due
if count > 0 then
  -- The due members are exactly the lowest ranks, so removing ranks 0..count-1 removes them and no others.
  redis.call('ZREMRANGEBYRANK', KEYS[1], 0, count - 1)
  -- Chunks of 100 keep each RPUSH's argument list small (Lua's unpack has a stack limit).
  for first = 1, count, 100 do
    local last = math.min(first + 99, count)
    redis.call('RPUSH', KEYS[2], unpack(due, first, last))
    for _ = first, last do
      redis.call('RPUSH', KEYS[3], 1)
    end
  end
end
return due
