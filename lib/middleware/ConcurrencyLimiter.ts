// Laravel's `Illuminate\Redis\Limiters\ConcurrencyLimiter` (8.x-13.x), what `Redis::funnel(name)` builds:
// at most `maxLocks` holders at once, each slot a key `{redis prefix}{name}{n}` holding its owner until
// released or `releaseAfter` seconds pass. On a cluster Laravel wraps a name without a hash tag in `{}`
// so every slot hashes to one slot; larq does the same.
import { randomInt } from 'crypto';
import { systemClock, type Clock } from '../clock';
import { defineScripts, scripts } from '../redis/scripts';
import { LimiterTimeoutError } from './DurationLimiter';
import type { RedisLimiterConnection } from './redisLimiters';

const CHARS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** One concurrency limiter: `name` is the slot key without the Redis prefix and the slot number. */
export class ConcurrencyLimiter {
  constructor(
    private readonly redis: RedisLimiterConnection,
    readonly name: string,
    readonly maxLocks: number,
    readonly releaseAfter: number,
    private readonly clock: Clock = systemClock,
  ) {}

  /**
   * Wait for a slot, trying every `sleepMs`, up to `timeoutSeconds` (then LimiterTimeoutError); run
   * `callback` and free the slot after it, whether it returned or threw (ConcurrencyLimiter::block).
   */
  async block<T>(timeoutSeconds: number, callback: () => T | Promise<T>, sleepMs = 250): Promise<T> {
    const started = Math.floor(this.clock.nowMs() / 1000);
    const owner = randomOwner();
    let slot: string | null;
    while ((slot = await this.acquire(owner)) === null) {
      if (Math.floor(this.clock.nowMs() / 1000) - timeoutSeconds >= started) throw new LimiterTimeoutError(this.name);
      await new Promise((r) => setTimeout(r, sleepMs));
    }
    try {
      return await callback();
    } finally {
      await this.release(slot, owner);
    }
  }

  /**
   * Take a free slot for `owner`; its key (without the Redis prefix), or null when all are taken. Laravel's
   * lock script takes the first slot its MGET finds empty; here the slots are tried in the same order with
   * SET NX EX, one key per command, which keeps the same bound (at most `maxLocks` holders, each slot its
   * owner's for `releaseAfter` seconds) with every key declared to Redis (a cluster, a managed Redis). Under
   * contention a later slot may be taken where the script would have found an earlier one free.
   */
  async acquire(owner: string): Promise<string | null> {
    const base = this.slotPrefix();
    for (let index = 1; index <= this.maxLocks; index++) {
      const taken = await this.redis.client.set(this.redis.prefix + base + index, owner, 'EX', this.releaseAfter, 'NX');
      if (taken === 'OK') return base + index;
    }
    return null;
  }

  /** Free `slot` if `owner` still holds it. */
  async release(slot: string, owner: string): Promise<boolean> {
    defineScripts(this.redis.client);
    return scripts.releaseLock(this.redis.client, this.redis.prefix + slot, owner);
  }

  // ConcurrencyLimiter::getPrefix: a cluster needs every slot in one hash slot
  private slotPrefix(): string {
    return this.redis.client.isCluster && !/\{[^}]+\}/.test(this.name) ? `{${this.name}}` : this.name;
  }
}

function randomOwner(): string {
  let id = '';
  for (let i = 0; i < 20; i++) id += CHARS[randomInt(CHARS.length)];
  return id;
}
