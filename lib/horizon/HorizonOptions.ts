// Horizon mode's options: where Horizon keeps its data (its own prefix, not the database's) and for how
// long, as the app's config/horizon.php says. Defaults are Horizon 5.29.1's config/horizon.php.
import { InvalidOptionError } from '../errors';
import type { LaravelRelease } from '../LaravelLine';
import type { PhpObject } from '../php/values';
import { hasHashTag } from '../redis/keys';
import { slug } from '../support/Str';

/** Minutes each kind of record lives (config/horizon.php `trim`). */
export interface HorizonTrim {
  recent: number;
  pending: number;
  completed: number;
  recentFailed: number;
  failed: number;
  monitored: number;
}

/** How larq writes what Horizon's listeners write. */
export interface HorizonOptions {
  /** HORIZON_PREFIX; default `Str::slug(APP_NAME, '_') . '_horizon:'` (see {@link horizonPrefix}). */
  prefix: string;
  /** config/horizon.php `trim`, in minutes. */
  trim: HorizonTrim;
  /** config/horizon.php `silenced`: job classes whose successes go to `silenced_jobs`. */
  silenced: readonly string[];
  /**
   * The tags a job object's `tags()` method would return in PHP (Horizon's `Tags::for` asks it first);
   * undefined or [] falls back to the job's model tags. Only jobs pushed from Node are asked.
   */
  tags?: (command: PhpObject) => readonly string[] | undefined;
}

/** config/horizon.php's defaults (Horizon 5.29.1). */
export const DEFAULT_HORIZON_TRIM: Readonly<HorizonTrim> = Object.freeze({
  recent: 60,
  pending: 60,
  completed: 60,
  recentFailed: 10080,
  failed: 10080,
  monitored: 10080,
});

/** Horizon's default prefix for an app: `Str::slug(APP_NAME, '_') . '_horizon:'` (config/horizon.php). */
export function horizonPrefix(appName = 'Laravel'): string {
  return `${slug(appName, '_', 'APP_NAME')}_horizon:`;
}

/** What decides the form of Horizon's prefix: the PHP peers' connection and Laravel release. */
export interface HorizonPeers {
  /** The PHP peers use a Redis Cluster connection. */
  cluster: boolean;
  laravel: LaravelRelease;
}

/**
 * Horizon's prefix as `Horizon::use` leaves it for the app's connection. Horizon 5.x since
 * laravel/horizon#1760 (April 2026, after 5.29.1): on a cluster connection, when Laravel has
 * `Connection::hasHashTag` (13.5+, the release whose RedisQueue wraps queue names for a cluster), the prefix
 * goes inside a hash tag, `{prefix}`, unless it already holds one; every Horizon key then hashes to one
 * slot, so Horizon's pipelines and `LuaScripts::updateMetrics` never cross slots. Otherwise (one server,
 * Sentinel, an older Laravel, or Horizon 5.29.1 itself, which has no cluster form) it stays as given.
 */
export function horizonPrefixFor(prefix: string, peers: HorizonPeers): string {
  return peers.cluster && peers.laravel.has('clusterQueueKeys') && !hasHashTag(prefix) ? `{${prefix}}` : prefix;
}

/** Fill in Horizon's defaults and check the values. */
export function resolveHorizonOptions(options: Partial<HorizonOptions> = {}): HorizonOptions {
  const trim = { ...DEFAULT_HORIZON_TRIM, ...options.trim };
  for (const [name, minutes] of Object.entries(trim)) {
    if (!Number.isInteger(minutes) || minutes <= 0)
      throw new InvalidOptionError(
        `horizon.trim.${name}`,
        `must be a positive whole number of minutes, got ${String(minutes)}`,
      );
  }
  const prefix = options.prefix ?? horizonPrefix();
  if (typeof prefix !== 'string' || prefix === '')
    throw new InvalidOptionError('horizon.prefix', 'must be a non-empty string');
  return { prefix, trim, silenced: options.silenced ?? [], tags: options.tags };
}
