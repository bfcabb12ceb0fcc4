// Laravel's `Illuminate\Redis\Limiters\DurationLimiter` (8.x-13.x): a fixed window of `maxLocks` slots per
// `decay` seconds in one Redis hash, through the same Lua, so `Redis::throttle('key')` in PHP and
// `throttle()` in Node take from one budget. The key is under the connection's Redis prefix only.
import { systemClock, type Clock } from '../clock';
import { LarqError } from '../errors';
import { defineScripts, scripts } from '../redis/scripts';
import type { RedisLimiterConnection } from './redisLimiters';

/** `block()` waited its whole timeout without a slot (Laravel's LimiterTimeoutException). */
export class LimiterTimeoutError extends LarqError {
  constructor(readonly key: string) {
    super(`No slot of the Redis limiter "${key}" came free before the timeout`);
  }
}

/** One fixed-window limiter: `name` is the key without the Redis prefix. */
export class DurationLimiter {
  /** The window's end in UNIX seconds, after acquire() or tooManyAttempts(). */
  decaysAt = 0;
  /** Slots left in the window, after acquire() or tooManyAttempts(). */
  remaining = 0;

  constructor(
    private readonly redis: RedisLimiterConnection,
    readonly name: string,
    readonly maxLocks: number,
    readonly decay: number,
    private readonly clock: Clock = systemClock,
  ) {}

  /** Take a slot; false when the window is full. */
  async acquire(): Promise<boolean> {
    const [nowFraction, now] = this.now();
    defineScripts(this.redis.client);
    const [acquired, end, left] = await scripts.durationLimiter(
      this.redis.client,
      this.key(),
      nowFraction,
      now,
      this.decay,
      this.maxLocks,
    );
    this.decaysAt = Number(end);
    this.remaining = Math.max(0, Number(left));
    return acquired === 1;
  }

  /** Whether the window is full, without taking a slot. */
  async tooManyAttempts(): Promise<boolean> {
    const [nowFraction, now] = this.now();
    defineScripts(this.redis.client);
    const [end, left] = await scripts.durationLimiterTooManyAttempts(
      this.redis.client,
      this.key(),
      nowFraction,
      now,
      this.decay,
      this.maxLocks,
    );
    this.decaysAt = Number(end);
    this.remaining = Number(left);
    return this.remaining <= 0;
  }

  /** Forget the window. */
  async clear(): Promise<void> {
    await this.redis.client.del(this.key());
  }

  /** Wait for a slot, trying every `sleepMs`, up to `timeoutSeconds`; then run `callback` (DurationLimiter::block). */
  async block<T = true>(timeoutSeconds: number, callback?: () => T | Promise<T>, sleepMs = 750): Promise<T | true> {
    const started = Math.floor(this.clock.nowMs() / 1000);
    while (!(await this.acquire())) {
      if (Math.floor(this.clock.nowMs() / 1000) - timeoutSeconds >= started) throw new LimiterTimeoutError(this.name);
      await new Promise((r) => setTimeout(r, sleepMs));
    }
    return callback ? callback() : true;
  }

  private key(): string {
    return this.redis.prefix + this.name;
  }

  // PHP's microtime(true) and time(): the script compares the first with the window's bounds as strings
  private now(): [string, number] {
    const ms = this.clock.nowMs();
    return [(ms / 1000).toFixed(4), Math.floor(ms / 1000)];
  }
}
