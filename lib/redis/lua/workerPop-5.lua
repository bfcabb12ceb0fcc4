-- larq script: workerPop
-- Purpose: a worker's whole pop as one call: the acknowledgements of jobs it finished (ZREM of their
--   reserved strings), then Laravel's pop, i.e. the two migrations and the batched pop. scripts.ts puts
--   the text of migrateExpiredJobs-3.lua and popBatch-4.lua, unchanged, in front of this file, each as a
--   function of (KEYS, ARGV): what runs here is exactly what those scripts run, in the order the
--   separate commands ran (ZREM, delayed migration, reserved migration, pop), with nothing in between.
--   One call instead of four saves Redis three command dispatches and the worker three commands to
--   write and replies to read.
--   Each part runs under pcall. A key of the wrong type fails only that part: its error reply takes the
--   part's place and the next part runs, as when each part was a command of its own. Any other error
--   is the server's (READONLY on a replica, OOM), raised by the first write, before anything was
--   written: it fails the whole call as a plain error reply, as it failed the first command before,
--   where a client reads it (ioredis' reconnectOnError sees only a reply's own error, not one inside it).
-- KEYS[1]: waiting list, e.g. laravel_database_queues:default
-- KEYS[2]: delayed sorted set, e.g. laravel_database_queues:default:delayed
-- KEYS[3]: reserved sorted set, e.g. laravel_database_queues:default:reserved
-- KEYS[4]: notify list, e.g. laravel_database_queues:default:notify
-- KEYS[5]: quarantine list for undecodable payloads (larq only), e.g. laravel_database_queues:default:larq:invalid
-- ARGV[1]: now, whole Unix seconds: members of the delayed and reserved sets scored at or below it are due
-- ARGV[2]: migration batch limit, as migrateExpiredJobs-3.lua takes it (-1 = unlimited)
-- ARGV[3]: 1 to migrate expired reservations too (retry_after is set), 0 not to
-- ARGV[4]: reservation expiry, whole Unix seconds (now + retry_after)
-- ARGV[5]: how many jobs to take at most, a positive count
-- ARGV[6], ARGV[7] and on: reserved strings to remove from KEYS[3] first (none, when no job finished)
-- Returns: {removed, delayedMoved, expiredMoved, popped}: ZREM's count (0 with nothing to remove), each
--   migration's moved members (an empty array for the reserved one when ARGV[3] is 0), the batched
--   pop's flat triples; a part whose key was of the wrong type answers an error reply in its place; any
--   other error is the reply of the whole call
-- Matches: Laravel `RedisQueue::deleteReserved` for each finished job, then Laravel `RedisQueue::pop`
--   (`migrate`, then `retrieveNextJob` through `LuaScripts::pop`, run `ARGV[5]` times), 8.x-13.x
local SLICE = 1000 -- Lua's unpack() refuses more than a few thousand values

local function acknowledge(KEYS, ARGV)
  local removed = 0
  for from = 6, #ARGV, SLICE do
    removed = removed + redis.call('ZREM', KEYS[3], unpack(ARGV, from, math.min(from + SLICE - 1, #ARGV)))
  end
  return removed
end

-- The error of the whole call, once a part raised one that is not its key's.
local failed

-- A part's reply: what `fn` returned, or its key's error as an error reply; nil once the call failed.
local function run(...)
  local fn, keys, argv = ...
  if failed then
    return nil
  end
  local ok, result = pcall(fn, keys, argv)
  if ok then
    return result
  end
  -- redis.call raises its error's text (a table holding it as `err` on some servers)
  local message = type(result) == 'table' and result.err or tostring(result)
  if string.find(message, '^WRONGTYPE ') then
    return redis.error_reply(message)
  end
  failed = message
  return nil
end

local removed = run(acknowledge, KEYS, ARGV)
local delayedMoved = run(migrateExpiredJobs, { KEYS[2], KEYS[1], KEYS[4] }, { ARGV[1], ARGV[2] })
local expiredMoved = {}
if ARGV[3] == '1' then
  expiredMoved = run(migrateExpiredJobs, { KEYS[3], KEYS[1], KEYS[4] }, { ARGV[1], ARGV[2] })
end
local popped = run(popBatch, { KEYS[1], KEYS[3], KEYS[4], KEYS[5] }, { ARGV[4], ARGV[5] })
if failed then
  return redis.error_reply(failed)
end
return { removed, delayedMoved, expiredMoved, popped }
