// Laravel's database cache store (`Illuminate\Cache\DatabaseStore` + `DatabaseLock`, as in 8.83): rows
// of the `cache` table hold `key` = cache prefix + key (no separator in any version), `value` =
// PHP-serialized value (ints too: `i:1767225600;`), `expiration` = Unix seconds. Locks live in
// `cache_locks`. Laravel 11+ made this the skeleton's default store, so restart and pause signals may
// live here instead of in Redis (spec §2.5).
import { type Clock, systemClock, unixSeconds } from '../clock';
import { CacheValueError, InvalidOptionError } from '../errors';
import { type CacheLock, type CacheStore, integerStep, randomLockOwner, wholeSeconds } from './CacheStore';
import { checkLaravelVersion, laravelCachePrefix, type CacheLaravelVersion } from './prefix';
import { type CacheValue, isPhpNumeric, phpIntCast, serializeScalar, unserializeScalar } from './scalar';
import { isUniqueViolation, openSql, quoteIdent, type SqlClient, type SqlConnection, type SqlDialect } from './sql';

/** What `forever` means to the database store: ten years, 315 360 000 s (all versions). */
export const FOREVER_SECONDS = 315360000;

/** Options of a {@link DatabaseCacheStore}. */
export interface DatabaseCacheStoreOptions {
  /** The database (required): `{ client: 'sqlite', filename }`, `{ client: 'mysql', uri }`, `{ client: 'pg', pool }`... */
  connection: SqlConnection;
  /** The cache table (`stores.database.table`). Default `cache`. */
  table?: string;
  /** The lock table (`lock_table`). Default `cache_locks`. */
  lockTable?: string;
  /** The cache prefix (`cache.prefix`). Default: the skeleton's, from appName + laravel. */
  cachePrefix?: string | null;
  /** APP_NAME, for the derived cache prefix. Default `Laravel`. */
  appName?: string;
  /** The PHP side's Laravel major version, for the derived cache prefix. Default 13. */
  laravel?: CacheLaravelVersion;
  /** `[chances, outOf]`: how often acquiring a lock also deletes expired locks. Default [2, 100]. */
  lockLottery?: readonly [number, number];
  /** Source of "now" for expirations. Default the system clock. */
  clock?: Clock;
}

const DATABASE_OPTIONS = ['connection', 'table', 'lockTable', 'cachePrefix', 'appName', 'laravel', 'lockLottery', 'clock'];

/** Laravel's DatabaseStore over better-sqlite3, mysql2 or pg. */
export class DatabaseCacheStore implements CacheStore {
  /** The cache prefix in front of every key and lock name. */
  readonly cachePrefix: string;
  /** The SQL connection (exposed for createCacheTable and tests). */
  readonly sql: SqlClient;
  /** The table names as configured. */
  readonly tableNames: { readonly cache: string; readonly locks: string };
  /** The same, quoted for the dialect. */
  readonly tables: { readonly cache: string; readonly locks: string };
  private readonly clock: Clock;
  private readonly lottery: readonly [number, number];

  constructor(options: DatabaseCacheStoreOptions) {
    if (typeof options !== 'object' || options === null || options.connection === undefined) throw new InvalidOptionError('connection', 'is required');
    for (const name of Object.keys(options)) {
      if (!DATABASE_OPTIONS.includes(name)) throw new InvalidOptionError(name, 'is not a DatabaseCacheStore option');
    }
    const laravel = checkLaravelVersion(options.laravel ?? 13);
    const cachePrefix = options.cachePrefix ?? laravelCachePrefix(options.appName ?? 'Laravel', laravel);
    if (typeof cachePrefix !== 'string') throw new InvalidOptionError('cachePrefix', 'must be a string or null');
    const lottery = options.lockLottery ?? [2, 100];
    if (!Array.isArray(lottery) || lottery.length !== 2 || !lottery.every((n) => Number.isInteger(n) && n >= 0) || lottery[1] < 1) {
      throw new InvalidOptionError('lockLottery', 'must be [chances, outOf] with whole numbers, outOf >= 1');
    }
    this.cachePrefix = cachePrefix;
    this.lottery = lottery;
    this.clock = options.clock ?? systemClock;
    this.sql = openSql(options.connection);
    this.tableNames = { cache: options.table ?? 'cache', locks: options.lockTable ?? 'cache_locks' };
    this.tables = { cache: quoteIdent(this.sql.dialect, this.tableNames.cache), locks: quoteIdent(this.sql.dialect, this.tableNames.locks) };
  }

  private now(): number {
    return unixSeconds(this.clock);
  }

  private col(name: string): string {
    return quoteIdent(this.sql.dialect, name);
  }

  /** The row's value, or null when missing; an expired row is deleted and reads as null. */
  async get(key: string): Promise<CacheValue> {
    const rows = await this.sql.select(`select ${this.col('value')}, ${this.col('expiration')} from ${this.tables.cache} where ${this.col('key')} = ?`, [this.cachePrefix + key]);
    if (rows.length === 0) return null;
    if (this.now() >= Number(rows[0].expiration)) {
      await this.forget(key);
      return null;
    }
    return decodeRow(this.sql.dialect, rows[0].value);
  }

  /** `get` for each key (Laravel's RetrievesMultipleKeys). */
  async many(keys: readonly string[]): Promise<Map<string, CacheValue>> {
    const out = new Map<string, CacheValue>();
    for (const key of keys) out.set(key, await this.get(key));
    return out;
  }

  /** Insert, or update the existing row; expiration = now + TTL. A TTL <= 0 forgets the key. */
  async put(key: string, value: CacheValue, ttlSeconds: number): Promise<boolean> {
    const seconds = wholeSeconds('ttlSeconds', ttlSeconds);
    if (seconds <= 0) return this.forget(key);
    return this.write(key, value, seconds);
  }

  /** `put` for 315 360 000 seconds. */
  async forever(key: string, value: CacheValue): Promise<boolean> {
    return this.write(key, value, FOREVER_SECONDS);
  }

  // DatabaseStore::put: try the insert; when the key exists, update value and expiration instead.
  private async write(key: string, value: CacheValue, seconds: number): Promise<boolean> {
    const params = [this.cachePrefix + key, encodeRow(this.sql.dialect, value), this.now() + seconds];
    const c = (n: string) => this.col(n);
    try {
      await this.sql.run(`insert into ${this.tables.cache} (${c('key')}, ${c('value')}, ${c('expiration')}) values (?, ?, ?)`, params);
      return true;
    } catch (e) {
      if (!isUniqueViolation(e)) throw e;
      return (await this.sql.run(`update ${this.tables.cache} set ${c('value')} = ?, ${c('expiration')} = ? where ${c('key')} = ?`, [params[1], params[2], params[0]])) > 0;
    }
  }

  /**
   * In one transaction (row locked), `(int) current + by`, stored as `i:N;` with the expiration kept. A
   * missing or expired key starts from 0 and is kept forever, like Redis INCRBY (8.83 returns false
   * there instead). A non-numeric value throws CacheValueError (8.83 returns false).
   */
  async increment(key: string, by = 1): Promise<number> {
    const step = integerStep(by);
    const prefixed = this.cachePrefix + key;
    const c = (n: string) => this.col(n);
    const lock = this.sql.dialect === 'sqlite' ? '' : ' for update';
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.sql.transaction(async (tx) => {
          const rows = await tx.select(`select ${c('value')}, ${c('expiration')} from ${this.tables.cache} where ${c('key')} = ?${lock}`, [prefixed]);
          const now = this.now();
          if (rows.length === 0 || now >= Number(rows[0].expiration)) {
            const fresh = [encodeRow(this.sql.dialect, step), now + FOREVER_SECONDS, prefixed];
            if (rows.length === 0) await tx.run(`insert into ${this.tables.cache} (${c('value')}, ${c('expiration')}, ${c('key')}) values (?, ?, ?)`, fresh);
            else await tx.run(`update ${this.tables.cache} set ${c('value')} = ?, ${c('expiration')} = ? where ${c('key')} = ?`, fresh);
            return step;
          }
          const current = decodeRow(this.sql.dialect, rows[0].value);
          if (typeof current !== 'number' && !(typeof current === 'string' && isPhpNumeric(current))) {
            throw new CacheValueError(key, 'cannot increment a value that is not numeric');
          }
          const next = phpIntCast(current) + step;
          await tx.run(`update ${this.tables.cache} set ${c('value')} = ? where ${c('key')} = ?`, [encodeRow(this.sql.dialect, next), prefixed]);
          return next;
        });
      } catch (e) {
        // Two first increments raced to insert: the loser retries and finds the winner's row.
        if (!isUniqueViolation(e) || attempt >= 3) throw e;
      }
    }
  }

  /** Deletes the row; always true, as in 8.83. */
  async forget(key: string): Promise<boolean> {
    await this.sql.run(`delete from ${this.tables.cache} where ${this.col('key')} = ?`, [this.cachePrefix + key]);
    return true;
  }

  /** A DatabaseLock on the lock table; `seconds` 0 means one day here, not forever (8.83). */
  lock(name: string, seconds = 0, owner: string | null = null): CacheLock {
    return new DatabaseCacheLock(this, name, wholeSeconds('seconds', seconds), owner ?? randomLockOwner());
  }

  /** Whether this acquire should also sweep expired locks (Laravel's lock lottery). */
  winsLottery(): boolean {
    return Math.floor(Math.random() * this.lottery[1]) + 1 <= this.lottery[0];
  }

  /** Unix seconds now, as the locks see it. */
  nowSeconds(): number {
    return this.now();
  }

  /** Closes the connection if larq opened it. */
  async close(): Promise<void> {
    await this.sql.close();
  }
}

/** Laravel's DatabaseLock (8.83): a `cache_locks` row with owner and expiration. */
class DatabaseCacheLock implements CacheLock {
  private readonly key: string;

  constructor(
    private readonly store: DatabaseCacheStore,
    readonly name: string,
    readonly seconds: number,
    readonly owner: string,
  ) {
    this.key = store.cachePrefix + name;
  }

  private q(name: string): string {
    return quoteIdent(this.store.sql.dialect, name);
  }

  async acquire(): Promise<boolean> {
    const { sql, tables } = this.store;
    const now = this.store.nowSeconds();
    const expiresAt = this.seconds > 0 ? now + this.seconds : now + 86400;
    let acquired: boolean;
    try {
      await sql.run(`insert into ${tables.locks} (${this.q('key')}, ${this.q('owner')}, ${this.q('expiration')}) values (?, ?, ?)`, [this.key, this.owner, expiresAt]);
      acquired = true;
    } catch (e) {
      if (!isUniqueViolation(e)) throw e;
      // Taken: ours again (re-acquire), or expired and free to take over.
      const updated = await sql.run(
        `update ${tables.locks} set ${this.q('owner')} = ?, ${this.q('expiration')} = ? where ${this.q('key')} = ? and (${this.q('owner')} = ? or ${this.q('expiration')} <= ?)`,
        [this.owner, expiresAt, this.key, this.owner, now],
      );
      acquired = updated >= 1;
    }
    if (this.store.winsLottery()) await sql.run(`delete from ${tables.locks} where ${this.q('expiration')} <= ?`, [now]);
    return acquired;
  }

  async release(): Promise<boolean> {
    // DatabaseLock checks the row's owner whether or not it expired.
    const rows = await this.store.sql.select(`select ${this.q('owner')} from ${this.store.tables.locks} where ${this.q('key')} = ?`, [this.key]);
    if (rows.length === 0 || String(rows[0].owner) !== this.owner) return false;
    await this.store.sql.run(`delete from ${this.store.tables.locks} where ${this.q('key')} = ? and ${this.q('owner')} = ?`, [this.key, this.owner]);
    return true;
  }

  async forceRelease(): Promise<void> {
    await this.store.sql.run(`delete from ${this.store.tables.locks} where ${this.q('key')} = ?`, [this.key]);
  }

  /** The owner of an unexpired lock row. */
  async currentOwner(): Promise<string | null> {
    const rows = await this.store.sql.select(`select ${this.q('owner')}, ${this.q('expiration')} from ${this.store.tables.locks} where ${this.q('key')} = ?`, [this.key]);
    if (rows.length === 0 || Number(rows[0].expiration) <= this.store.nowSeconds()) return null;
    return String(rows[0].owner);
  }
}

/** DatabaseStore::serialize: PHP serialize(); PostgreSQL gets base64 when the text holds a NUL byte. */
function encodeRow(dialect: SqlDialect, value: CacheValue): string {
  const text = serializeScalar(value);
  return dialect === 'pg' && text.includes('\0') ? Buffer.from(text, 'utf8').toString('base64') : text;
}

/** DatabaseStore::unserialize: scalars decoded; anything else (arrays, objects) as the stored text. */
function decodeRow(dialect: SqlDialect, raw: unknown): CacheValue {
  let bytes = Buffer.isBuffer(raw) ? raw : Buffer.from(String(raw), 'utf8');
  // PostgreSQL rows without ':' and ';' are base64 (see encodeRow).
  if (dialect === 'pg' && !bytes.includes(':') && !bytes.includes(';')) bytes = Buffer.from(bytes.toString('latin1'), 'base64');
  const read = unserializeScalar(bytes);
  return read.ok ? read.value : bytes.toString('utf8');
}
