-- larq script: updateMetrics
-- Purpose: count one more processed job in a Horizon metrics hash and fold its runtime into the running
--   mean, registering the hash in its group set; Horizon's own script, so PHP and Node workers counting
--   into the same hash agree to the digit (Lua turns the mean into text the same way for both).
-- KEYS[1]: the metrics hash, full name, e.g. laravel_horizon:job:App\Jobs\SendInvoice or laravel_horizon:queue:default
-- KEYS[2]: the group set, e.g. laravel_horizon:measured_jobs (its members are KEYS[1], prefix included)
-- ARGV[1]: the job's runtime in milliseconds, as PHP's (string) round($ms, 2) writes it
-- Returns: nil
-- Matches: Laravel 12.x/13.x under Horizon 5.29.1 `LuaScripts::updateMetrics`
redis.call('hsetnx', KEYS[1], 'throughput', 0)
redis.call('sadd', KEYS[2], KEYS[1])
local hash = redis.call('hmget', KEYS[1], 'throughput', 'runtime')
local throughput = hash[1] + 1
local runtime = 0
if hash[2] then
  runtime = ((hash[1] * tonumber(hash[2])) + tonumber(ARGV[1])) / throughput
else
  runtime = tonumber(ARGV[1])
end
redis.call('hmset', KEYS[1], 'throughput', throughput, 'runtime', runtime)
