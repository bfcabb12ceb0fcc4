-- larq script: funnelAcquire
-- Purpose: take the first free slot of a concurrency limit (Redis::funnel): slots are the keys
--   KEYS[1]..1 to KEYS[1]..ARGV[1], each holding its owner until released or expired. Laravel's
--   ConcurrencyLimiter passes every slot key and takes the first one MGET finds empty; this script walks
--   the same keys in the same order, so PHP and Node take slots from one set.
-- KEYS[1]: the slot key without its number, e.g. laravel_database_api (slots laravel_database_api1, ...)
-- ARGV[1]: the number of slots (maxLocks)
-- ARGV[2]: seconds a taken slot lives (releaseAfter)
-- ARGV[3]: the owner written into the slot (20 random alphanumerics, as Str::random(20))
-- Returns: the number of the slot taken, or nil when all are taken
-- Matches: Laravel 8.x-13.x ConcurrencyLimiter::acquire
for index = 1, tonumber(ARGV[1]) do
    local slot = KEYS[1] .. index
    if not redis.call('GET', slot) then
        redis.call('SET', slot, ARGV[3], 'EX', ARGV[2])
        return index
    end
end
return nil
