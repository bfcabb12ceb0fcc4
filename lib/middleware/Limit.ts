// Laravel's `Illuminate\Cache\RateLimiting\Limit` (8.x-13.x) as plain data: what a limiter registered with
// `RateLimiter::for(name, fn)` returns. PHP's closure cannot cross to Node, so Node declares the same
// name with the same limits; both then count hits under the same keys.
import type { ObjectJobContext } from '../handlers/HandlerContext';

/** One limit: at most `maxAttempts` per `decaySeconds`, counted per `key` (Laravel's Limit properties). */
export interface Limit {
  readonly key: string;
  readonly maxAttempts: number;
  readonly decaySeconds: number;
}

/** Laravel's `Limit::none()` (an Unlimited): the job runs without counting. */
export const UNLIMITED = Object.freeze({ unlimited: true as const });

/** What a limiter returns: one limit, several (all must pass), or UNLIMITED. */
export type LimiterResult = Limit | readonly Limit[] | typeof UNLIMITED;

/** A named limiter: PHP's `RateLimiter::for` closure, given the command's plain view and the job's context. */
export type RateLimiterCallback = (
  command: Readonly<Record<string, unknown>>,
  job: ObjectJobContext,
) => LimiterResult | Promise<LimiterResult>;

/** Laravel's Limit constructors: `limit.perMinute(10).by(user)` reads as the PHP does. */
export const limit = {
  perSecond: (maxAttempts: number, decaySeconds = 1) => limitOf('', maxAttempts, decaySeconds),
  perMinute: (maxAttempts: number, decayMinutes = 1) => limitOf('', maxAttempts, 60 * decayMinutes),
  perMinutes: (decayMinutes: number, maxAttempts: number) => limitOf('', maxAttempts, 60 * decayMinutes),
  perHour: (maxAttempts: number, decayHours = 1) => limitOf('', maxAttempts, 3600 * decayHours),
  perDay: (maxAttempts: number, decayDays = 1) => limitOf('', maxAttempts, 86400 * decayDays),
  none: () => UNLIMITED,
};

/** A Limit that `by(key)` re-keys, as Laravel's fluent `Limit::by`. */
export interface KeyedLimit extends Limit {
  by(key: string | number): KeyedLimit;
}

function limitOf(key: string, maxAttempts: number, decaySeconds: number): KeyedLimit {
  return Object.freeze({
    key,
    maxAttempts,
    decaySeconds,
    by: (k: string | number) => limitOf(String(k), maxAttempts, decaySeconds),
  });
}

/**
 * The limits of one evaluation, as RateLimiter::limiter returns them (12.x, 13.x; 8.x keeps the repeats): keys that repeat within one
 * result take Limit::fallbackKey, `{key}:attempts:{max}:decay:{seconds}`, so each limit counts apart.
 */
export function limitsOf(result: LimiterResult): Limit[] | null {
  if ('unlimited' in result) return null;
  const list: readonly Limit[] = Array.isArray(result) ? result : [result as Limit];
  const seen = new Map<string, number>();
  for (const l of list) seen.set(l.key, (seen.get(l.key) ?? 0) + 1);
  return list.map((l) =>
    (seen.get(l.key) ?? 0) > 1
      ? {
          key: `${l.key ? `${l.key}:` : ''}attempts:${l.maxAttempts}:decay:${l.decaySeconds}`,
          maxAttempts: l.maxAttempts,
          decaySeconds: l.decaySeconds,
        }
      : l,
  );
}
