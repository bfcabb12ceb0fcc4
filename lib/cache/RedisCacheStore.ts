// Laravel's Redis cache store (`Illuminate\Cache\RedisStore` + `RedisLock`, 8.x-13.x): the physical key
// is Redis prefix + cache prefix (+ ':' in 8.x-10.x) + key; numbers are stored as plain digits and
// everything else PHP-serialized, so PHP's Cache facade and larq read each other's values
// (docs/protocol.md, "Cache keys"). The Redis prefix is applied here, explicitly, as in lib/redis/keys.ts: never by ioredis.
import Redis, { Cluster, type RedisOptions } from 'ioredis';
import { CacheValueError, InvalidOptionError } from '../errors';
import { MAX_COMMAND_ARGUMENTS, slices } from '../redis/argumentLimit';
import { defineScripts, scripts } from '../redis/scripts';
import { speakingResp2 } from '../redis/resp2';
import { ioredisKeyPrefix, isClient, type RedisConnection } from '../RedisQueueOptions';
import { type CacheLock, type CacheStore, integerStep, rejectUnknownOptions, wholeSeconds } from './CacheStore';
import { Lock } from './Lock';
import {
  checkLaravelVersion,
  laravelCachePrefix,
  laravelRedisPrefix,
  redisCacheKeyPrefix,
  type CacheLaravelVersion,
} from './prefix';
import { type CacheValue, isPhpNumeric, numericValue, serializeScalar, unserializeScalar } from './scalar';

/** Options of a {@link RedisCacheStore}; all optional. */
export interface RedisCacheStoreOptions {
  /** The cache connection: an ioredis client (caller-owned, never quit), a URL or ioredis options. Default redis://127.0.0.1:6379. */
  connection?: RedisConnection;
  /** The Redis connection prefix (`database.redis.options.prefix`). Default: the skeleton's, from appName + laravel. */
  prefix?: string | null;
  /** The cache prefix (`cache.prefix`). Default: the skeleton's, from appName + laravel. */
  cachePrefix?: string | null;
  /** APP_NAME, for the derived defaults. Default `Laravel`. */
  appName?: string;
  /** The PHP side's Laravel major version: key separator and derived defaults. Default 13. */
  laravel?: CacheLaravelVersion;
  /** Database index when larq opens the connection (REDIS_CACHE_DB). Default: the URL/options' own, else 1. A Cluster client: 0 only. */
  database?: number | null;
  /**
   * Where locks live (`lock_connection`). Default: the skeleton's `default` connection (REDIS_DB), i.e. the
   * cache connection's server at database 0, where Laravel's dispatch() takes unique-job locks. `null`:
   * the cache connection itself (a store config without `lock_connection`).
   */
  lockConnection?: RedisConnection | null;
}

/** The physical key layout in force after defaults: `prefix + keyPrefix + key`. */
export interface RedisCacheLayout {
  readonly prefix: string;
  readonly cachePrefix: string;
  readonly keyPrefix: string;
  readonly laravel: CacheLaravelVersion;
}

type Client = Redis | Cluster;

// Opens (or adopts) one connection. `database` (explicit) wins, then the URL's or options' own
// database, then `fallbackDb`; a caller's client is used as it is and only checked.
function connect(
  option: string,
  c: RedisConnection,
  database: number | null,
  fallbackDb: number,
): { client: Client; owned: boolean } {
  if (typeof c !== 'string' && (typeof c !== 'object' || c === null))
    throw new InvalidOptionError(option, 'must be a URL, ioredis options or an ioredis client');
  if (ioredisKeyPrefix(c))
    throw new InvalidOptionError(option, 'must not set an ioredis keyPrefix; use the prefix option');
  if (isClient(c) && c.isCluster) {
    // A cluster has database 0 only and refuses SELECT: ioredis would send one on every node connection.
    const nodeDb = (c.options as { redisOptions?: { db?: number } }).redisOptions?.db ?? 0;
    if (nodeDb !== 0)
      throw new InvalidOptionError(
        option,
        `selects database ${nodeDb} on its nodes, but a Redis Cluster has only database 0`,
      );
    if (database !== null && database !== 0)
      throw new InvalidOptionError(
        'database',
        `is ${database}, but the given client is a Redis Cluster, and a cluster has only database 0`,
      );
    return { client: c, owned: false };
  }
  if (isClient(c)) {
    const db = (c.options as { db?: number }).db ?? 0;
    if (database !== null && db !== database)
      throw new InvalidOptionError('database', `is ${database} but the given client uses database ${db}`);
    return { client: c, owned: false };
  }
  if (typeof c === 'string') {
    // ioredis lets a URL's /db win over an options object, so a conflicting pair is refused instead.
    const urlDb = /^\/(\d+)/.exec(URL.canParse(c) ? new URL(c).pathname : '');
    if (urlDb && database !== null && Number(urlDb[1]) !== database)
      throw new InvalidOptionError('database', `is ${database} but the URL selects database ${urlDb[1]}`);
    return {
      client: new Redis(c, speakingResp2({ db: database ?? (urlDb ? Number(urlDb[1]) : fallbackDb) })),
      owned: true,
    };
  }
  return {
    client: new Redis(speakingResp2({ ...(c as RedisOptions), db: database ?? (c as RedisOptions).db ?? fallbackDb })),
    owned: true,
  };
}

const REDIS_OPTIONS = ['connection', 'prefix', 'cachePrefix', 'appName', 'laravel', 'database', 'lockConnection'];

/** Laravel's RedisStore over ioredis. */
export class RedisCacheStore implements CacheStore {
  /** The key layout: Redis prefix, cache prefix, and what goes before every logical key. */
  readonly layout: RedisCacheLayout;
  private readonly client: Client;
  private readonly lockClient: Client;
  private readonly owned: Client[] = [];

  constructor(options: RedisCacheStoreOptions = {}) {
    rejectUnknownOptions(options, REDIS_OPTIONS, 'RedisCacheStore');
    const laravel = checkLaravelVersion(options.laravel ?? 13);
    const appName = options.appName ?? 'Laravel';
    if (typeof appName !== 'string') throw new InvalidOptionError('appName', 'must be a string');
    const prefix = options.prefix ?? laravelRedisPrefix(appName, laravel);
    const cachePrefix = options.cachePrefix ?? laravelCachePrefix(appName, laravel);
    if (typeof prefix !== 'string') throw new InvalidOptionError('prefix', 'must be a string or null');
    if (typeof cachePrefix !== 'string') throw new InvalidOptionError('cachePrefix', 'must be a string or null');
    const database = options.database ?? null;
    if (database !== null && !(Number.isInteger(database) && database >= 0))
      throw new InvalidOptionError('database', 'must be an integer >= 0');
    this.layout = Object.freeze({ prefix, cachePrefix, keyPrefix: redisCacheKeyPrefix(cachePrefix, laravel), laravel });

    // The cache connection defaults to database 1 (REDIS_CACHE_DB); locks to the skeleton's `default`
    // connection, database 0 (config/cache.php `lock_connection` => 'default': laravel/laravel 8.x since December 2020, 9.x-13.x).
    const main = connect('connection', options.connection ?? 'redis://127.0.0.1:6379', database, 1);
    this.client = main.client;
    if (main.owned) this.owned.push(main.client);
    const lockOption = options.lockConnection;
    if (lockOption === null) {
      this.lockClient = this.client;
    } else if (lockOption === undefined) {
      this.lockClient = this.defaultLockClient();
    } else {
      const lock = connect('lockConnection', lockOption, null, 0);
      this.lockClient = lock.client;
      if (lock.owned) this.owned.push(lock.client);
    }
  }

  // The skeleton's lock connection: the cache connection when it is on database 0 already (or a cluster,
  // which has no other), else a second connection to the same server on database 0.
  private defaultLockClient(): Client {
    if (this.client.isCluster || ((this.client.options as { db?: number }).db ?? 0) === 0) return this.client;
    const lock = (this.client as Redis).duplicate({ db: 0 });
    this.owned.push(lock);
    return lock;
  }

  /** The physical Redis key of a logical cache key (or lock name). */
  key(key: string): string {
    return this.layout.prefix + this.layout.keyPrefix + key;
  }

  /** GET; numeric text comes back as a number, serialized scalars unserialized. */
  async get(key: string): Promise<CacheValue> {
    return decode(await this.client.getBuffer(this.key(key)));
  }

  /**
   * MGET of every key, in slices that keep each command within the 3,999 arguments managed Redis accepts
   * (`MAX_COMMAND_ARGUMENTS`). On a cluster the keys hash to different slots, which one MGET may not span
   * (CROSSSLOT): one GET per key instead, sent together, as Laravel's RedisStore does over a predis cluster.
   */
  async many(keys: readonly string[]): Promise<Map<string, CacheValue>> {
    const physical = keys.map((k) => this.key(k));
    const values: (Buffer | null)[] = [];
    if (this.client.isCluster) values.push(...(await Promise.all(physical.map((k) => this.client.getBuffer(k)))));
    else
      for (const slice of slices(physical, MAX_COMMAND_ARGUMENTS - 1))
        values.push(...(await this.client.mgetBuffer(...slice)));
    return new Map(keys.map((k, i) => [k, decode(values[i] ?? null)]));
  }

  /** SETEX with the TTL; a TTL <= 0 forgets the key (Repository::put). */
  async put(key: string, value: CacheValue, ttlSeconds: number): Promise<boolean> {
    const seconds = wholeSeconds('ttlSeconds', ttlSeconds);
    if (seconds <= 0) return this.forget(key);
    return (await this.client.setex(this.key(key), seconds, encode(value))) === 'OK';
  }

  /**
   * Store `value` for `ttlSeconds` only when `key` is missing; true when it was stored. RedisStore::add's
   * script (EXISTS, then SETEX) as the one atomic SET NX EX; a TTL <= 0 stores nothing, as Repository::add.
   */
  async add(key: string, value: CacheValue, ttlSeconds: number): Promise<boolean> {
    const seconds = wholeSeconds('ttlSeconds', ttlSeconds);
    if (seconds <= 0) return false;
    return (await this.client.set(this.key(key), encode(value), 'EX', seconds, 'NX')) === 'OK';
  }

  /** SET with no expiry. */
  async forever(key: string, value: CacheValue): Promise<boolean> {
    return (await this.client.set(this.key(key), encode(value))) === 'OK';
  }

  /** INCRBY: a missing key starts at 0 and gets no TTL; an existing TTL is kept. */
  async increment(key: string, by = 1): Promise<number> {
    try {
      return await this.client.incrby(this.key(key), integerStep(by));
    } catch (e) {
      // Redis refuses anything but an integer (a serialized value, a float): same error as the other stores.
      if (e instanceof Error && /not an integer/.test(e.message))
        throw new CacheValueError(key, 'cannot increment a value that is not an integer', { cause: e });
      throw e;
    }
  }

  /** DEL; true when a key was deleted. */
  async forget(key: string): Promise<boolean> {
    return (await this.client.del(this.key(key))) > 0;
  }

  /** A RedisLock on the lock connection; `seconds` 0 = never expires. */
  lock(name: string, seconds = 0, owner: string | null = null): CacheLock {
    return new RedisCacheLock(this.lockClient, name, this.key(name), seconds, owner);
  }

  /** Quits the connections this store opened. */
  async close(): Promise<void> {
    await Promise.all(this.owned.splice(0).map((c) => c.quit().catch(() => c.disconnect())));
  }
}

/** Laravel's RedisLock (8.x-13.x): SET NX EX / SETNX to acquire, the owner-checked script to release. */
class RedisCacheLock extends Lock {
  constructor(
    private readonly client: Client,
    name: string,
    private readonly physicalKey: string,
    seconds: number,
    owner: string | null,
  ) {
    super(name, seconds, owner);
  }

  async acquire(): Promise<boolean> {
    if (this.seconds > 0)
      return (await this.client.set(this.physicalKey, this.owner, 'EX', this.seconds, 'NX')) === 'OK';
    return (await this.client.setnx(this.physicalKey, this.owner)) === 1;
  }

  async release(): Promise<boolean> {
    defineScripts(this.client);
    return scripts.releaseLock(this.client, this.physicalKey, this.owner);
  }

  async forceRelease(): Promise<void> {
    await this.client.del(this.physicalKey);
  }

  async currentOwner(): Promise<string | null> {
    return this.client.get(this.physicalKey);
  }
}

/** RedisStore::serialize: finite numbers (and numeric strings) as they are, the rest PHP-serialized. */
export function encode(value: CacheValue): string {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'string' && isPhpNumeric(value)) return value;
  return serializeScalar(value);
}

/** RedisStore::unserialize: numeric text as a number, serialized scalars decoded, anything else raw. */
export function decode(raw: Buffer | null): CacheValue {
  if (raw === null) return null;
  const text = raw.toString('latin1');
  if (isPhpNumeric(text)) return numericValue(text);
  const read = unserializeScalar(raw);
  return read.ok ? read.value : raw.toString('utf8');
}
