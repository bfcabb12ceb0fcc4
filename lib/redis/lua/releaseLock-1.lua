-- larq script: releaseLock
-- Purpose: release a cache lock only while the caller still owns it. Reading the owner and deleting the
--   key must be one step: otherwise the lock could expire, be taken by someone else, and then be deleted
--   from under its new owner.
-- KEYS[1]: the lock key, e.g. laravel_database_laravel_cache:laravel_unique_job:App\Jobs\Sync7
-- ARGV[1]: the owner token this handle acquired the lock with (16 alphanumerics by default)
-- Returns: integer 1 when the key was deleted, 0 when it is missing or held by another owner
-- Matches: Laravel `RedisLock::release` (its script `Cache\LuaScripts::releaseLock`), 8.x-13.x
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
