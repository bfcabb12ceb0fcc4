-- larq script: popBatch
-- Purpose: the worker's batched pop. It leaves Redis in exactly the state that `count` runs of the pop
--   script (Laravel's pop, back to back) would leave, but it issues each Redis command once for the whole
--   batch instead of once per job: LRANGE and LTRIM instead of an LPOP per job, one ZADD of every reserved
--   string, one LTRIM of the notify list instead of an LPOP per token. The fixed cost of each redis.call
--   is what a batch saves; cjson's decode and encode of each job stay.
--   Only commands Redis 2.4 already had: no LPOP with a count (6.2+).
--   Why the state is the same: the list loses its first `taken` items either way (LTRIM deletes the key
--   when it empties, as the last LPOP would); a sorted set given the same members and one score ends the
--   same whatever the order of the ZADDs (a member given twice keeps that score); the notify list loses
--   up to `taken` tokens either way; the quarantine list gets the same payloads in the same order.
--   The writes come in the order that loses least if one fails on a key of the wrong type: the ZADD
--   before anything leaves the list, then the list, the quarantine, and last the tokens.
--   Payloads that cjson cannot decode, or without a numeric `attempts`, are quarantined as pop-4.lua does.
-- KEYS[1]: waiting list, e.g. laravel_database_queues:default
-- KEYS[2]: reserved sorted set, e.g. laravel_database_queues:default:reserved
-- KEYS[3]: notify list, e.g. laravel_database_queues:default:notify
-- KEYS[4]: quarantine list for undecodable payloads (larq only), e.g. laravel_database_queues:default:larq:invalid
--   (each entry: `#larq-invalid {"reason":...}`, a newline, then the payload's exact bytes; see lib/failed/FailedList.ts)
-- ARGV[1]: reservation expiry, whole Unix seconds (now + retry_after)
-- ARGV[2]: how many jobs to take at most, a positive count
-- Returns: flat triples, one per job taken, in list order: {job, reserved, false} when the job was
--   reserved, {job, false, reason} when it was quarantined, as pop-4.lua answers for one job; an empty
--   array when the list was empty
-- Matches: Laravel `LuaScripts::pop`, 8.x-13.x, run `count` times, in its effect on Redis; the quarantine
--   branch is larq's (see pop-4.lua)
local function reserve(job)
  local decoded = cjson.decode(job)
  decoded['attempts'] = decoded['attempts'] + 1
  return cjson.encode(decoded)
end

-- Lua's unpack() refuses more than a few thousand values: long argument lists go out in slices.
local SLICE = 1000
local function callInSlices(command, key, list, size)
  for from = 1, size, SLICE do
    redis.call(command, key, unpack(list, from, math.min(from + SLICE - 1, size)))
  end
end

local jobs = redis.call('LRANGE', KEYS[1], 0, tonumber(ARGV[2]) - 1)
local taken = #jobs
if taken == 0 then
  return {}
end

local out = {}
local scored = {} -- score, member, score, member... for ZADD
local quarantined = {}
local nScored, nQuarantined, n = 0, 0, 0
for i = 1, taken do
  local job = jobs[i]
  local ok, reserved = pcall(reserve, job)
  if ok then
    scored[nScored + 1] = ARGV[1]
    scored[nScored + 2] = reserved
    nScored = nScored + 2
    out[n + 1] = job
    out[n + 2] = reserved
    out[n + 3] = false
  else
    nQuarantined = nQuarantined + 1
    quarantined[nQuarantined] = '#larq-invalid ' .. cjson.encode({ reason = (string.gsub(tostring(reserved), '^user_script:%d+: ', '')) }) .. '\n' .. job
    out[n + 1] = job
    out[n + 2] = false
    out[n + 3] = tostring(reserved)
  end
  n = n + 3
end

callInSlices('ZADD', KEYS[2], scored, nScored)
redis.call('LTRIM', KEYS[1], taken, -1)
callInSlices('RPUSH', KEYS[4], quarantined, nQuarantined)
redis.call('LTRIM', KEYS[3], taken, -1)
return out
