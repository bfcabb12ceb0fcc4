// Laravel's database cache store (`Illuminate\Cache\DatabaseStore` + `DatabaseLock`, as in 8.83): rows
// of the `cache` table hold `key` = cache prefix + key (no separator in any version), `value` =
// PHP-serialized value (ints too: `i:1767225600;`), `expiration` = Unix seconds. Locks live in
// `cache_locks`. Laravel 11+ made this the skeleton's default store, so restart and pause signals may
// live here instead of in Redis (docs/protocol.md, "Cache keys").
import { type Clock, systemClock, unixSeconds } from '../clock';
import { CacheValueError, InvalidOptionError } from '../errors';
import { connectSql, isUniqueViolation, type SqlClient, type SqlConnectionConfig, type SqlDialect } from '../sql';
import {
  type CacheLock,
  type CacheStore,
  getEach,
  integerStep,
  rejectUnknownOptions,
  wholeSeconds,
} from './CacheStore';
import { Lock } from './Lock';
import { checkLaravelVersion, laravelCachePrefix, type CacheLaravelVersion } from './prefix';
import { type CacheValue, isPhpNumeric, phpIntCast, serializeScalar, unserializeScalar } from './scalar';

/** What `forever` means to the database store: ten years, 315 360 000 s (all versions). */
export const FOREVER_SECONDS = 315360000;

/** Options of a {@link DatabaseCacheStore}. */
export interface DatabaseCacheStoreOptions {
  /**
   * The database (required), the same shape as the failed-job store's: `{ driver: 'sqlite', database }`,
   * `{ driver: 'mysql' | 'mariadb' | 'pgsql', host, port, user, password, database }`, a driver client of
   * yours as `{ driver, client }`, or a SqlClient. larq closes only what it opened from settings.
   */
  connection: SqlConnectionConfig | SqlClient;
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

const DATABASE_OPTIONS = [
  'connection',
  'table',
  'lockTable',
  'cachePrefix',
  'appName',
  'laravel',
  'lockLottery',
  'clock',
];

/** The statements of the store and its locks, written once for the connection's dialect. */
type Statements = ReturnType<typeof statements>;

function statements(sql: SqlClient, table: string, lockTable: string) {
  const q = (name: string) => sql.quote(name);
  const p = (n: number) => sql.param(n);
  const [cache, locks, key, value, expiration, owner] = [
    q(table),
    q(lockTable),
    q('key'),
    q('value'),
    q('expiration'),
    q('owner'),
  ];
  const select = `select ${value}, ${expiration} from ${cache} where ${key} = ${p(1)}`;
  return {
    /** [key] */
    select,
    /** [key]; the row stays locked until the transaction ends (SQLite's BEGIN IMMEDIATE locks it all). */
    selectForUpdate: sql.dialect === 'sqlite' ? select : `${select} for update`,
    /** [key, value, expiration] */
    insert: `insert into ${cache} (${key}, ${value}, ${expiration}) values (${p(1)}, ${p(2)}, ${p(3)})`,
    /** [value, expiration, key] */
    update: `update ${cache} set ${value} = ${p(1)}, ${expiration} = ${p(2)} where ${key} = ${p(3)}`,
    /** [value, key] */
    updateValue: `update ${cache} set ${value} = ${p(1)} where ${key} = ${p(2)}`,
    /** [key] */
    delete: `delete from ${cache} where ${key} = ${p(1)}`,
    /** [key, owner, expiration] */
    lockInsert: `insert into ${locks} (${key}, ${owner}, ${expiration}) values (${p(1)}, ${p(2)}, ${p(3)})`,
    /** [owner, expiration, key, owner, now]. Re-acquires our own lock, or takes over an expired one. */
    lockTakeOver: `update ${locks} set ${owner} = ${p(1)}, ${expiration} = ${p(2)} where ${key} = ${p(3)} and (${owner} = ${p(4)} or ${expiration} <= ${p(5)})`,
    /** [now] */
    lockSweep: `delete from ${locks} where ${expiration} <= ${p(1)}`,
    /** [key] */
    lockOwner: `select ${owner}, ${expiration} from ${locks} where ${key} = ${p(1)}`,
    /** [key, owner] */
    lockRelease: `delete from ${locks} where ${key} = ${p(1)} and ${owner} = ${p(2)}`,
    /** [key] */
    lockDelete: `delete from ${locks} where ${key} = ${p(1)}`,
  };
}

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
  /** The store's statements (for its locks). */
  readonly statements: Statements;
  private readonly clock: Clock;
  private readonly lottery: readonly [number, number];

  constructor(options: DatabaseCacheStoreOptions) {
    if (typeof options !== 'object' || options === null || options.connection === undefined)
      throw new InvalidOptionError('connection', 'is required');
    rejectUnknownOptions(options, DATABASE_OPTIONS, 'DatabaseCacheStore');
    const laravel = checkLaravelVersion(options.laravel ?? 13);
    const cachePrefix = options.cachePrefix ?? laravelCachePrefix(options.appName ?? 'Laravel', laravel);
    if (typeof cachePrefix !== 'string') throw new InvalidOptionError('cachePrefix', 'must be a string or null');
    const lottery = options.lockLottery ?? [2, 100];
    if (
      !Array.isArray(lottery) ||
      lottery.length !== 2 ||
      !lottery.every((n) => Number.isInteger(n) && n >= 0) ||
      lottery[1] < 1
    ) {
      throw new InvalidOptionError('lockLottery', 'must be [chances, outOf] with whole numbers, outOf >= 1');
    }
    this.cachePrefix = cachePrefix;
    this.lottery = lottery;
    this.clock = options.clock ?? systemClock;
    this.sql = connectSql(options.connection, { option: 'connection', feature: 'The database cache store' });
    this.tableNames = { cache: options.table ?? 'cache', locks: options.lockTable ?? 'cache_locks' };
    this.tables = { cache: this.sql.quote(this.tableNames.cache), locks: this.sql.quote(this.tableNames.locks) };
    this.statements = statements(this.sql, this.tableNames.cache, this.tableNames.locks);
  }

  private now(): number {
    return unixSeconds(this.clock);
  }

  /** The row's value, or null when missing; an expired row is deleted and reads as null. */
  async get(key: string): Promise<CacheValue> {
    const rows = await this.sql.select(this.statements.select, [this.cachePrefix + key]);
    if (rows.length === 0) return null;
    if (this.now() >= Number(rows[0].expiration)) {
      await this.forget(key);
      return null;
    }
    return decodeRow(this.sql.dialect, rows[0].value);
  }

  /** `get` for each key (Laravel's RetrievesMultipleKeys). */
  async many(keys: readonly string[]): Promise<Map<string, CacheValue>> {
    return getEach(this, keys);
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
    const [prefixed, encoded, expiration] = [
      this.cachePrefix + key,
      encodeRow(this.sql.dialect, value),
      this.now() + seconds,
    ];
    try {
      await this.sql.execute(this.statements.insert, [prefixed, encoded, expiration]);
      return true;
    } catch (e) {
      if (!isUniqueViolation(e)) throw e;
      return (await this.sql.execute(this.statements.update, [encoded, expiration, prefixed])) > 0;
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
    const s = this.statements;
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.sql.transaction(async (tx) => {
          const rows = await tx.select(s.selectForUpdate, [prefixed]);
          const now = this.now();
          if (rows.length === 0 || now >= Number(rows[0].expiration)) {
            const [encoded, expiration] = [encodeRow(this.sql.dialect, step), now + FOREVER_SECONDS];
            if (rows.length === 0) await tx.execute(s.insert, [prefixed, encoded, expiration]);
            else await tx.execute(s.update, [encoded, expiration, prefixed]);
            return step;
          }
          const current = decodeRow(this.sql.dialect, rows[0].value);
          if (typeof current !== 'number' && !(typeof current === 'string' && isPhpNumeric(current))) {
            throw new CacheValueError(key, 'cannot increment a value that is not numeric');
          }
          const next = phpIntCast(current) + step;
          await tx.execute(s.updateValue, [encodeRow(this.sql.dialect, next), prefixed]);
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
    await this.sql.execute(this.statements.delete, [this.cachePrefix + key]);
    return true;
  }

  /** A DatabaseLock on the lock table; `seconds` 0 means one day here, not forever (8.83). */
  lock(name: string, seconds = 0, owner: string | null = null): CacheLock {
    return new DatabaseCacheLock(this, name, seconds, owner);
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
class DatabaseCacheLock extends Lock {
  private readonly key: string;

  constructor(
    private readonly store: DatabaseCacheStore,
    name: string,
    seconds: number,
    owner: string | null,
  ) {
    super(name, seconds, owner);
    this.key = store.cachePrefix + name;
  }

  async acquire(): Promise<boolean> {
    const { sql, statements: s } = this.store;
    const now = this.store.nowSeconds();
    const expiresAt = this.seconds > 0 ? now + this.seconds : now + 86400;
    let acquired: boolean;
    try {
      await sql.execute(s.lockInsert, [this.key, this.owner, expiresAt]);
      acquired = true;
    } catch (e) {
      if (!isUniqueViolation(e)) throw e;
      // Taken: ours again (re-acquire), or expired and free to take over.
      acquired = (await sql.execute(s.lockTakeOver, [this.owner, expiresAt, this.key, this.owner, now])) >= 1;
    }
    if (this.store.winsLottery()) await sql.execute(s.lockSweep, [now]);
    return acquired;
  }

  async release(): Promise<boolean> {
    // DatabaseLock checks the row's owner whether or not it expired.
    const { sql, statements: s } = this.store;
    const rows = await sql.select(s.lockOwner, [this.key]);
    if (rows.length === 0 || String(rows[0].owner) !== this.owner) return false;
    await sql.execute(s.lockRelease, [this.key, this.owner]);
    return true;
  }

  async forceRelease(): Promise<void> {
    await this.store.sql.execute(this.store.statements.lockDelete, [this.key]);
  }

  /** The owner of an unexpired lock row. */
  async currentOwner(): Promise<string | null> {
    const rows = await this.store.sql.select(this.store.statements.lockOwner, [this.key]);
    if (rows.length === 0 || Number(rows[0].expiration) <= this.store.nowSeconds()) return null;
    return String(rows[0].owner);
  }
}

/** DatabaseStore::serialize: PHP serialize(); PostgreSQL gets base64 when the text holds a NUL byte. */
function encodeRow(dialect: SqlDialect, value: CacheValue): string {
  const text = serializeScalar(value);
  return dialect === 'pgsql' && text.includes('\0') ? Buffer.from(text, 'utf8').toString('base64') : text;
}

/** DatabaseStore::unserialize: scalars decoded; anything else (arrays, objects) as the stored text. */
function decodeRow(dialect: SqlDialect, raw: unknown): CacheValue {
  let bytes = Buffer.isBuffer(raw) ? raw : Buffer.from(String(raw), 'utf8');
  // PostgreSQL rows without ':' and ';' are base64 (see encodeRow).
  if (dialect === 'pgsql' && !bytes.includes(':') && !bytes.includes(';'))
    bytes = Buffer.from(bytes.toString('latin1'), 'base64');
  const read = unserializeScalar(bytes);
  return read.ok ? read.value : bytes.toString('utf8');
}
