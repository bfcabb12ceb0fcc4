-- larq script: pop
-- Purpose: take the head of the waiting list and reserve it, in one atomic step: increment `attempts`
--   through Redis' own cjson (so the reserved string is byte-identical to what a PHP worker would store),
--   add it to the reserved set until the reservation expires, and consume one notify token.
--   With a count above 1 it does that again for the next job, up to `count` jobs or until the list is
--   empty: each job gets exactly Laravel's commands, in Laravel's order, so the state equals that many
--   Laravel pops run back to back. One script run instead of one per job is what makes a batch cheap
--   for Redis (no per-call script dispatch).
--   The one deliberate difference from Laravel: a payload cjson cannot decode, or one without a numeric
--   `attempts`, makes Laravel's script fail after the LPOP, which loses the job. Here the decode runs under
--   pcall and such a payload goes to the quarantine list instead; valid payloads run exactly Laravel's
--   commands (LPOP, ZADD, LPOP).
-- KEYS[1]: waiting list, e.g. laravel_database_queues:default
-- KEYS[2]: reserved sorted set, e.g. laravel_database_queues:default:reserved
-- KEYS[3]: notify list, e.g. laravel_database_queues:default:notify
-- KEYS[4]: quarantine list for undecodable payloads (larq only), e.g. laravel_database_queues:default:larq:invalid
--   (each entry: `#larq-invalid {"reason":...}`, a newline, then the payload's exact bytes; see lib/failed/FailedList.ts)
-- ARGV[1]: reservation expiry, whole Unix seconds (now + retry_after)
-- ARGV[2]: how many jobs to take at most, a positive count (1 = Laravel's single pop)
-- Returns: a flat array of triples, one per job taken, in list order: {job, reserved, false} when the job
--   was reserved, {job, false, reason} when it was quarantined (reason = the decode or arithmetic error
--   text); an empty array when the list was empty
-- Matches: Laravel 8.x-13.x `pop` (spec §3.4) once per job, except the quarantine branch (spec §3.8)
-- Only pure Lua runs inside pcall: no Redis command can be half-done when it fails. One function for the
-- whole batch rather than a closure per job: cheaper for Lua's allocator and collector, same result.
local function reserve(job)
  local decoded = cjson.decode(job)
  decoded['attempts'] = decoded['attempts'] + 1
  return cjson.encode(decoded)
end

local out = {}
local n = 0
for _ = 1, tonumber(ARGV[2]) do
  local job = redis.call('LPOP', KEYS[1])
  if not job then
    break
  end

  local ok, reserved = pcall(reserve, job)

  if ok then
    redis.call('ZADD', KEYS[2], ARGV[1], reserved)
    redis.call('LPOP', KEYS[3])
    out[n + 1] = job
    out[n + 2] = reserved
    out[n + 3] = false
  else
    -- The job has left the waiting list, so it takes its notify token with it, as a successful pop would.
    redis.call('RPUSH', KEYS[4], '#larq-invalid ' .. cjson.encode({ reason = (string.gsub(tostring(reserved), '^user_script:%d+: ', '')) }) .. '\n' .. job)
    redis.call('LPOP', KEYS[3])
    out[n + 1] = job
    out[n + 2] = false
    out[n + 3] = tostring(reserved)
  end
  n = n + 3
end
return out
