// The one place Redis key names are built. The PHP side never writes the prefix itself (its Redis client
// prepends it to every key argument: Laravel `PhpRedisConnector::createClient` sets phpredis' OPT_PREFIX,
// 8.x-13.x), so larq applies it here, explicitly, to every key: script KEYS, BLPOP, plain commands. ARGV
// values (payloads) are never prefixed.

// Lines differ in the default prefix (the skeleton's config/database.php) and the cluster key form
// (Laravel `RedisQueue::getQueueRedisKey`, 13.x).
import type { LaravelLine } from '../LaravelLine';
import { slug } from '../support/Str';
export type { LaravelLine };

/** Every key of one queue, prefix included, ready to send to Redis. */
export interface QueueKeys {
  /** Waiting list, e.g. `laravel_database_queues:default`. */
  readonly queue: string;
  /** Delayed sorted set: `<queue>:delayed`. */
  readonly delayed: string;
  /** Reserved sorted set: `<queue>:reserved`. */
  readonly reserved: string;
  /** Wake-up token list for blocking pops: `<queue>:notify`. */
  readonly notify: string;
  /** larq's quarantine list for payloads the pop script cannot decode: `<queue>:larq:invalid`. */
  readonly invalid: string;
  /** larq's list of failed jobs the failed-job store could not take, each with its reason: `<queue>:larq:failed`. */
  readonly failed: string;
}

/**
 * The default Redis prefix of a Laravel app named `appName` (the skeleton's `database.redis.options.prefix`):
 * `slug(name, '_') + '_database_'` for the 8.x and 12.x skeletons, `slug(name) + '-database-'` for 13.x. Existing apps keep whatever their
 * config says, so prefer an explicit prefix. Throws UntransliterableTitleError, naming `option`, for a name
 * larq cannot slug exactly.
 */
export function laravelPrefix(appName: string, line: LaravelLine, option = 'appName'): string {
  return line === 13 ? `${slug(appName, '-', option)}-database-` : `${slug(appName, '_', option)}_database_`;
}

/**
 * Whether a queue name carries a Redis Cluster hash tag: its first `{`, the first `}` after that, and at
 * least one character between (Laravel `Connection::hasHashTag`, 13.x, which follows Redis' own rule).
 */
export function hasHashTag(name: string): boolean {
  return /^[^{]*\{[^}]+\}/.test(name);
}

/**
 * The un-prefixed queue key: `queues:NAME`, or `queues:{NAME}` when a 13.x peer on a cluster connection
 * would wrap it (13.5+; the name has no hash tag of its own). Names are used as given, never trimmed.
 */
export function queueKey(name: string, line: LaravelLine, cluster: boolean): string {
  return cluster && line === 13 && !hasHashTag(name) ? `queues:{${name}}` : `queues:${name}`;
}

/** Builds prefixed keys for one connection: prefix, Laravel line and cluster mode fixed at construction. */
export class KeySpace {
  private readonly byName = new Map<string, QueueKeys>();

  constructor(
    readonly prefix: string,
    readonly line: LaravelLine,
    readonly cluster: boolean,
  ) {}

  /** Every key of the queue named `name`. */
  forQueue(name: string): QueueKeys {
    // Asked for on every pop, delete and release: the few queue names a process uses are kept.
    let keys = this.byName.get(name);
    if (keys === undefined) {
      keys = Object.freeze(this.forQueueKey(queueKey(name, this.line, this.cluster)));
      if (this.byName.size >= 1024) this.byName.clear();
      this.byName.set(name, keys);
    }
    return keys;
  }

  /** Every key derived from an un-prefixed queue key such as `queues:default`. */
  forQueueKey(key: string): QueueKeys {
    const queue = this.key(key);
    return {
      queue,
      delayed: `${queue}:delayed`,
      reserved: `${queue}:reserved`,
      notify: `${queue}:notify`,
      invalid: `${queue}:larq:invalid`,
      failed: `${queue}:larq:failed`,
    };
  }

  /** Any un-prefixed key (as Laravel's public methods take them) with the prefix applied. */
  key(unprefixed: string): string {
    return `${this.prefix}${unprefixed}`;
  }

  /** The notify list that belongs to an un-prefixed destination list (Laravel's `$to.':notify'`). */
  notifyOf(unprefixedList: string): string {
    return `${this.key(unprefixedList)}:notify`;
  }
}
