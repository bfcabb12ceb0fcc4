// Options of a RedisQueue: Laravel's connection config (`config/queue.php` `redis`, 13.x) plus the peers' line and prefix,
// with Laravel's defaults, validated in one place.
import Redis, { Cluster, type RedisOptions } from 'ioredis';
import { type Clock, systemClock } from './clock';
import { InvalidOptionError } from './errors';
import { LaravelRelease, type LaravelVersion } from './LaravelLine';
import { Encrypter } from './php/Encrypter';
import { laravelPrefix } from './redis/keys';

/** How to reach Redis: a URL, ioredis options, or a client the caller owns (larq never quits it). */
export type RedisConnection = string | RedisOptions | Redis | Cluster;

/** Options of a {@link RedisQueue}; every one is optional, see {@link DEFAULT_REDIS_QUEUE_OPTIONS}. */
export interface RedisQueueOptions {
  /** Redis to use. Must not carry an ioredis `keyPrefix`: larq applies `prefix` itself. */
  connection?: RedisConnection;
  /** The queue connection's name as PHP knows it (`queue.connections` key). */
  connectionName?: string;
  /** The default queue name. */
  queue?: string;
  /** Seconds a reservation lasts; null = never requeue expired reservations. */
  retryAfter?: number | null;
  /** Seconds to BLPOP on the notify list when the queue is empty; null = never block, 0 = forever. */
  blockFor?: number | null;
  /** Most jobs moved per migration; negative = all, 0 = none (Laravel's `migration_batch_size`). */
  migrationBatchSize?: number;
  /** The key prefix, exactly as the PHP peers' Redis connection has it; null = derive from appName/laravel. */
  prefix?: string | null;
  /** APP_NAME, to derive the default prefix when `prefix` is null. */
  appName?: string;
  /**
   * The PHP peers' Laravel version: a major (8 to 13: the newest release of that line) or a `'major.minor'`
   * string such as `'12.11'`, as `larq --laravel` takes it. It picks the payload's fields (12.11
   * `createdAt`/`delay`, 12.51 `data.batchId`, 13.0 `deleteWhenMissingModels`), the default prefix and the
   * cluster key form (13.5). Default 13 (13.26).
   */
  laravel?: LaravelVersion;
  /** Whether the PHP peers use a cluster connection (13.x then wraps queue names in `{}`). */
  cluster?: boolean;
  /** Source of "now" for scores. */
  clock?: Clock;
  /** Encrypts and decrypts ShouldBeEncrypted commands; usually `new Encrypter(APP_KEY)`. Default none. */
  encrypter?: Encrypter | null;
  /**
   * Traces and metrics for this queue's pushes, and for the worker createWorker makes over it. Default
   * none: nothing is traced or counted, and @opentelemetry/api and prom-client are never loaded.
   */
  telemetry?: QueueTelemetry | null;
  /**
   * Seconds to wait for Redis to answer before taking the connection for dead and reconnecting (phpredis'
   * `read_timeout`): a write left unanswered then rejects with UnconfirmedWriteError. Applies to the
   * connections larq opens (a URL or options, and a blocking pop's own connection; a blocking pop is cut
   * into waits of at most half of it); a client you pass in keeps its own ioredis `socketTimeout`.
   * At least 2; null = wait forever. Default 30.
   */
  readTimeout?: number | null;
}

/**
 * What {@link RedisQueueOptions.telemetry} takes: a JobTracing, a JobMetrics, or both (typed here by what
 * the queue itself calls; createWorker gives the worker to the same objects).
 */
export interface QueueTelemetry {
  /** A JobTracing: each push runs inside its `send` span. */
  tracing?: {
    send<T>(queue: string, count: number, push: (keys: Record<string, string> | undefined) => Promise<T>): Promise<T>;
  };
  /**
   * A JobMetrics: each job Redis took is counted as sent, and each reservation a pop's migration found
   * older than retry_after (moved back onto its queue) as expired.
   */
  metrics?: { sent(queue: string, count: number): void; reservationsExpired(queue: string, count: number): void };
}

/** The options in force after validation. */
export type ResolvedRedisQueueOptions = Required<Omit<RedisQueueOptions, 'prefix' | 'laravel'>> & {
  prefix: string;
  laravel: LaravelRelease;
};

/** Laravel's defaults for a Redis queue connection (and the 13.x skeleton's APP_NAME). */
export const DEFAULT_REDIS_QUEUE_OPTIONS: Readonly<Required<RedisQueueOptions>> = Object.freeze({
  connection: 'redis://127.0.0.1:6379',
  connectionName: 'redis',
  queue: 'default',
  retryAfter: 60,
  blockFor: null,
  migrationBatchSize: -1,
  prefix: null,
  appName: 'Laravel',
  laravel: 13 as LaravelVersion,
  cluster: false,
  clock: systemClock,
  encrypter: null,
  telemetry: null,
  readTimeout: 30,
});

/**
 * How a client larq opens itself reconnects: at once, then backing off to at most half a second between
 * attempts, forever, so a worker is back within a second of Redis. A connection given as options may
 * set its own retryStrategy.
 */
export function reconnectDelay(attempt: number): number {
  return Math.min(attempt * 50, 500);
}

/**
 * ioredis' `reconnectOnError` for the clients larq opens itself: a READONLY reply means the connection is
 * to a replica, typically a demoted primary that a connection stayed on across a failover (through a name
 * or proxy that now points elsewhere, or an operator's REPLICAOF), so the client reconnects, and finds the
 * primary (through the sentinels, or the name). 2 makes ioredis send the refused command again after
 * reconnecting: Redis did not run it, so that is safe for a read or an acknowledgement. A queue write
 * (push, pop, release: an AtMostOnceCommand) is not resent all the same; it rejects with
 * UnconfirmedWriteError when its connection closes, as any queue write whose connection closes does.
 */
export function reconnectOnReadOnly(error: Error): 2 | false {
  return error.message.startsWith('READONLY') ? 2 : false;
}

/** Whether `c` is an ioredis client (or cluster) the caller owns. */
export function isClient(c: unknown): c is Redis | Cluster {
  if (c instanceof Redis || c instanceof Cluster) return true;
  const o = c as { defineCommand?: unknown; duplicate?: unknown } | null;
  return (
    typeof o === 'object' && o !== null && typeof o.defineCommand === 'function' && typeof o.duplicate === 'function'
  );
}

// larq prefixes every key itself (redis/keys.ts); an ioredis keyPrefix on top would prefix twice.
/** The ioredis `keyPrefix` a connection would apply, if any (larq refuses one: it prefixes keys itself). */
export function ioredisKeyPrefix(c: string | object): string | null | undefined {
  if (typeof c === 'string') return URL.canParse(c) ? new URL(c).searchParams.get('keyPrefix') : null;
  const o = (isClient(c) ? c.options : c) as { keyPrefix?: string; redisOptions?: { keyPrefix?: string } };
  return o.keyPrefix ?? o.redisOptions?.keyPrefix;
}

/**
 * What is wrong with a `retry_after` value, or null when nothing is. Laravel's meaning: whole seconds a
 * reservation lasts; 0 lets the next pop take the job back at once; null never takes it back. The Worker
 * checks its `retryAfter` option with this too, so the two never disagree.
 */
export function retryAfterProblem(value: unknown): string | null {
  return value === null || (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0)
    ? null
    : 'must be a whole number of seconds >= 0, or null';
}

// Every option is checked here and only here; the message names the offending option.
/** Merge `given` over the defaults and validate every option. */
export function resolveOptions(given: RedisQueueOptions): ResolvedRedisQueueOptions {
  if (given === null || typeof given !== 'object') throw new InvalidOptionError('options', 'must be an object');
  for (const key of Object.keys(given)) {
    if (!Object.hasOwn(DEFAULT_REDIS_QUEUE_OPTIONS, key))
      throw new InvalidOptionError(key, 'is not a RedisQueue option');
  }
  const defined = Object.fromEntries(Object.entries(given).filter(([, v]) => v !== undefined));
  const o: Required<RedisQueueOptions> = { ...DEFAULT_REDIS_QUEUE_OPTIONS, ...defined };
  const fail = (option: string, why: string): never => {
    throw new InvalidOptionError(option, why);
  };
  const c = o.connection as unknown;
  if (typeof c !== 'string' && (typeof c !== 'object' || c === null))
    fail('connection', 'must be a URL, ioredis options or an ioredis client');
  if (ioredisKeyPrefix(c as string | object))
    fail('connection', 'must not set an ioredis keyPrefix; use the prefix option');
  if (
    typeof c === 'object' &&
    ((isClient(c) ? c.options : c) as RedisOptions).autoResendUnfulfilledCommands === false
  ) {
    fail(
      'connection',
      'must not turn off autoResendUnfulfilledCommands: ioredis would then drop the commands a closed connection left unanswered without settling them (larq keeps its queue writes from being resent itself)',
    );
  }
  if (typeof o.connectionName !== 'string' || o.connectionName === '')
    fail('connectionName', 'must be a non-empty string');
  if (typeof o.queue !== 'string' || o.queue === '') fail('queue', 'must be a non-empty string');
  const retryAfter = retryAfterProblem(o.retryAfter);
  if (retryAfter !== null) fail('retryAfter', retryAfter);
  if (o.blockFor !== null && !(Number.isFinite(o.blockFor) && o.blockFor >= 0))
    fail('blockFor', 'must be a number of seconds >= 0, or null');
  if (!Number.isInteger(o.migrationBatchSize)) fail('migrationBatchSize', 'must be an integer (negative = unlimited)');
  if (o.prefix !== null && typeof o.prefix !== 'string') fail('prefix', 'must be a string or null');
  if (typeof o.appName !== 'string') fail('appName', 'must be a string');
  const laravel = LaravelRelease.of(o.laravel, 'laravel');
  if (typeof o.cluster !== 'boolean') fail('cluster', 'must be a boolean');
  if (typeof o.clock !== 'object' || o.clock === null || typeof o.clock.nowMs !== 'function')
    fail('clock', 'must have nowMs()');
  if (
    o.readTimeout !== null &&
    !(typeof o.readTimeout === 'number' && Number.isFinite(o.readTimeout) && o.readTimeout >= 2)
  )
    fail('readTimeout', 'must be a number of seconds >= 2, or null to wait forever');
  if (o.encrypter !== null && !(o.encrypter instanceof Encrypter))
    fail('encrypter', 'must be an Encrypter (new Encrypter(APP_KEY)) or null');
  if (o.telemetry !== null) {
    const t = o.telemetry as unknown;
    if (typeof t !== 'object' || t === null)
      fail('telemetry', 'must be { tracing?: JobTracing, metrics?: JobMetrics } or null');
    const { tracing, metrics } = o.telemetry;
    if (tracing !== undefined && typeof (tracing as { send?: unknown } | null)?.send !== 'function')
      fail('telemetry', 'tracing must be a JobTracing');
    if (
      metrics !== undefined &&
      (typeof (metrics as { sent?: unknown } | null)?.sent !== 'function' ||
        typeof (metrics as { reservationsExpired?: unknown }).reservationsExpired !== 'function')
    )
      fail('telemetry', 'metrics must be a JobMetrics');
  }
  return { ...o, laravel, prefix: o.prefix ?? laravelPrefix(o.appName, laravel.line) };
}
