// What the commands share: opening the app's Redis queue, failed-job store and cache store from the
// configuration, with connection problems turned into one readable line, and closing them again.
import { existsSync } from 'fs';
import Redis, { Cluster } from 'ioredis';
import { createCacheStore, type CacheStore } from '../../cache';
import { LarqError } from '../../errors';
import { HorizonRedisQueue } from '../../horizon/RedisQueue';
import { createFailedJobProvider, type FailedJobProvider } from '../../failed';
import { RedisQueue } from '../../RedisQueue';
import {
  DEFAULT_REDIS_QUEUE_OPTIONS,
  reconnectDelay,
  reconnectOnReadOnly,
  type QueueTelemetry,
} from '../../RedisQueueOptions';
import { readTimeoutOptions } from '../../redis/readTimeout';
import { speakingResp2 } from '../../redis/resp2';
import type { SqlConnectionConfig } from '../../sql';
import { InvalidArgumentError, type Io } from '../args';
import { isUuid } from '../../uuid';
import type { CliConfig } from '../config';
import {
  describeRedis,
  parseMultiHost,
  redisClientOptions,
  redisClusterNodes,
  usesTls,
  type CliRedisTls,
} from '../redisConnection';

/** Closes what a command opened, last opened first, even when the command failed. */
export class Resources {
  private readonly closers: (() => Promise<unknown>)[] = [];

  /** Remember how to close something. */
  add(close: () => Promise<unknown>): void {
    this.closers.push(close);
  }

  /** Close everything; errors while closing are ignored (the command's own outcome matters). */
  async close(): Promise<void> {
    for (const close of this.closers.reverse()) await close().catch(() => undefined);
    this.closers.length = 0;
  }
}

/** Run `fn` with a fresh Resources, closing them afterwards whatever happens. */
export async function withResources<T>(fn: (resources: Resources) => Promise<T>): Promise<T> {
  const resources = new Resources();
  try {
    return await fn(resources);
  } finally {
    await resources.close();
  }
}

/** How openRedis connects (see there). */
export interface OpenRedisOptions {
  /** A worker's connection: it reconnects forever once it was up. Default false (a one-shot command). */
  persistent?: boolean;
  /** The queue connection of a worker: commands wait through an outage. Default false. */
  holdWrites?: boolean;
  /** TLS files for rediss:// connections (LARQ_REDIS_*). */
  tls?: CliRedisTls;
  /** Seconds to wait for a reply before taking the connection for dead (LARQ_REDIS_READ_TIMEOUT); null = forever. Default 30. */
  readTimeout?: number | null;
}

/**
 * Connect to Redis at `url` and fail with one line when it cannot be reached. A one-shot command gives up
 * on the first broken connection. A worker (`persistent`) that was connected reconnects forever, with a
 * backoff capped at half a second (so it resumes within a second of Redis coming back), and says once
 * that the connection was lost and once that it is back, rather than ioredis' "Unhandled error event" on
 * every retry. On the queue connection (`holdWrites`) a command issued during an outage waits for the
 * connection instead of failing (an acknowledgement then still reaches Redis, once); the worker's pops do
 * not wait in that queue (RedisQueue checks the connection first). On the cache connection a read fails
 * after one retry, so the worker's stop checks keep running through an outage.
 */
export async function openRedis(
  url: string,
  resources: Resources,
  io: Io,
  options: OpenRedisOptions = {},
): Promise<Redis | Cluster> {
  const {
    persistent = false,
    holdWrites = false,
    tls = {},
    readTimeout = DEFAULT_REDIS_QUEUE_OPTIONS.readTimeout,
  } = options;
  // A read in flight when the connection died waits, in ioredis, to be sent again once it is back, however
  // long that takes, whatever maxRetriesPerRequest says: on every connection but a worker's queue
  // connection (whose writes are meant to wait for Redis) it gives up after the read timeout instead.
  const silence = {
    ...readTimeoutOptions(readTimeout),
    ...(readTimeout === null || (persistent && holdWrites) ? {} : { commandTimeout: readTimeout * 1000 }),
  };
  let connected = false;
  let lostAt: number | null = null;
  let lostBecause = '';
  const retry = (times: number) => (persistent && connected ? reconnectDelay(times) : null);
  const maxRetriesPerRequest = persistent && holdWrites ? null : 1;
  const cluster = redisClusterNodes(url, tls);
  const client = cluster
    ? // No ready check: ioredis' asks a node for cluster_state, which says fail while any slot's primary is
      // down and its replica not yet promoted; ioredis then drops the connection and its connect() never
      // settles (the process ran out of work and exited 0, saying nothing). Without it the client is up
      // once it has the slot map; a command for the failing slot is retried and redirected by the Cluster
      // until the replica takes over, which the worker rides out as it does when the failover comes later.
      new Cluster(cluster.nodes, {
        lazyConnect: true,
        enableReadyCheck: false,
        clusterRetryStrategy: retry,
        redisOptions: speakingResp2({ ...cluster.redisOptions, maxRetriesPerRequest, ...silence }),
        ...(cluster.dnsLookup ? { dnsLookup: cluster.dnsLookup } : {}),
      })
    : // Through sentinels, ioredis asks them all again forever by default, in silence: a command that
      // cannot find its primary at start gives up instead (sentinelProblem says why), as without them.
      new Redis(
        speakingResp2({
          ...redisClientOptions(url, tls),
          lazyConnect: true,
          maxRetriesPerRequest,
          retryStrategy: retry,
          sentinelRetryStrategy: retry,
          reconnectOnError: reconnectOnReadOnly,
          ...silence,
        }),
      );
  let firstProblem: Error | undefined;
  const sentinelErrors: string[] = [];
  // ioredis' socketTimeout: the peer went silent without closing (see redis/readTimeout).
  const reason = (e: Error) =>
    e.message.startsWith('Socket timeout.') ? `no reply within ${readTimeout} s, LARQ_REDIS_READ_TIMEOUT` : e.message;
  client.on('error', (e: Error) => {
    firstProblem ??= e;
    lostBecause ||= reason(e);
  });
  let closing = false;
  client.on('sentinelError', (e: Error) => sentinelErrors.push(e.message));
  client.on('close', () => {
    // Closed by us on the way out (Resources.close): nothing was lost.
    if (closing || !connected || lostAt !== null || !persistent) return;
    lostAt = Date.now();
    // The socket's error (if any) comes just before the close: say it with the one line.
    setImmediate(() =>
      io.err(
        `larq: Redis ${describeRedis(url)}: connection lost${lostBecause ? ` (${lostBecause})` : ''}; reconnecting`,
      ),
    );
  });
  client.on('ready', () => {
    if (lostAt !== null)
      io.err(`larq: Redis ${describeRedis(url)}: connected again after ${((Date.now() - lostAt) / 1000).toFixed(1)} s`);
    lostAt = null;
    lostBecause = '';
  });
  try {
    // A connection the server closed or reset while it was being opened (a CLIENT KILL, a server going down
    // as it answered: no socket error, or ECONNRESET, or EPIPE on a write after it) is opened again, twice at
    // most; one refused or failing otherwise is reported at once.
    for (let attempt = 1; ; attempt++) {
      try {
        await client.connect();
        break;
      } catch (e) {
        if (attempt < 3 && closedByServer(firstProblem) && closedByServer(e as Error)) {
          firstProblem = undefined;
          lostBecause = '';
          await new Promise((r) => setTimeout(r, 100));
          continue;
        }
        throw e;
      }
    }
  } catch (e) {
    client.disconnect();
    const problem = firstProblem ?? (e as Error);
    const sentinels = parseMultiHost(url);
    if (sentinels?.kind === 'sentinel' && problem.message.startsWith('All sentinels are unreachable'))
      throw new LarqError(sentinelProblem(url, sentinelErrors, problem));
    // ioredis rejects with "Connection is closed."; the socket's own error says why. A server that does not
    // speak TLS leaves a TLS handshake unanswered until ioredis' connect timeout.
    const handshake =
      usesTls(url) && /ETIMEDOUT/.test(problem.message) ? ' (no TLS handshake: does the server speak TLS?)' : '';
    const why = reason(problem);
    throw new LarqError(
      `cannot reach Redis at ${describeRedis(url)}: ${why}${handshake}${AUTH_REFUSED.test(why) ? '; check REDIS_PASSWORD (and REDIS_USERNAME, or REDIS_URL)' : ''}`,
    );
  }
  connected = true;
  lostBecause = '';
  resources.add(() => {
    closing = true;
    return quitWithin(client, QUIT_WAIT_MS);
  });
  return client;
}

// Whether a connection being opened ended because the server closed it (no socket error: ioredis' own
// "Connection is closed.") or reset it, rather than refusing or failing it.
function closedByServer(error: Error | undefined): boolean {
  if (error === undefined || error.message === 'Connection is closed.') return true;
  const code = (error as { code?: unknown }).code;
  return code === 'ECONNRESET' || code === 'EPIPE';
}

// Redis refusing the credentials: a wrong password or user (WRONGPASS), none given (NOAUTH), or one
// given to a server that has none (AUTH ... called without any password configured).
const AUTH_REFUSED = /WRONGPASS|NOAUTH|\bAUTH\b/;

// Why no sentinel named a primary, naming the setting to fix: every sentinel answered but knows no primary
// of that name (ioredis calls a null reply "invalid"), or none could be asked.
function sentinelProblem(url: string, sentinelErrors: string[], problem: Error): string {
  const { name } = parseMultiHost(url)!;
  const list = describeRedis(url).replace(/^sentinels (.*), primary .*$/, '$1');
  // Sentinel 6.2+ answers an unknown name with an error, older ones with a null reply.
  if (
    sentinelErrors.length > 0 &&
    sentinelErrors.every((m) => /(No such master with that name|successfully, but got an invalid reply: null)$/.test(m))
  ) {
    return `LARQ_REDIS_SENTINEL_SERVICE: the sentinels ${list} know no primary named "${name}"`;
  }
  // ioredis' last error is mostly its own "Connection is closed.", which says nothing more.
  const last = / Last error: (.*)$/.exec(problem.message)?.[1];
  return `LARQ_REDIS_SENTINELS: no sentinel of ${list} answered${last && last !== 'Connection is closed.' ? ` (${last})` : ''}`;
}

// How long closing waits for QUIT's reply (which comes after every reply still owed, so acknowledgements
// in flight land) before it cuts the connection: a silent peer must not hold a stopping worker.
const QUIT_WAIT_MS = 1000;

function quitWithin(client: Redis | Cluster, ms: number): Promise<void> {
  // Reconnecting: nothing it owes can arrive on the connection being closed.
  if (client.status !== 'ready') {
    client.disconnect();
    return Promise.resolve();
  }
  return new Promise<void>((resolve) => {
    const cut = setTimeout(() => {
      client.disconnect();
      resolve();
    }, ms);
    client.quit().then(
      () => {
        clearTimeout(cut);
        resolve();
      },
      () => {
        clearTimeout(cut);
        client.disconnect();
        resolve();
      },
    );
  });
}

/** The app's Redis queue under the connection name `connectionName`. */
export async function openQueue(
  config: CliConfig,
  connectionName: string,
  resources: Resources,
  io: Io,
  persistent = false,
  telemetry: QueueTelemetry | null = null,
): Promise<RedisQueue> {
  const client = await openRedis(config.queue.connection, resources, io, {
    persistent,
    holdWrites: true,
    tls: config.redisTls,
    readTimeout: config.queue.readTimeout,
  });
  const options = { ...config.queue, connection: client, connectionName, telemetry };
  // Horizon mode: the same queue, also writing what Horizon's listeners write under its prefix.
  const queue = config.horizon
    ? new HorizonRedisQueue({ ...options, horizon: { prefix: config.horizon.prefix } })
    : new RedisQueue(options);
  resources.add(() => queue.close());
  return queue;
}

/** The app's failed-job store (QUEUE_FAILED_DRIVER). */
export function openFailedStore(config: CliConfig, resources: Resources): FailedJobProvider {
  if (config.failed.driver === 'database' || config.failed.driver === 'database-uuids')
    requireSqliteFile(config.failed.database as SqlConnectionConfig);
  const store = createFailedJobProvider(config.failed);
  resources.add(() => store.close());
  return store;
}

/** The app's cache store, or undefined when it is none larq can use (config.cacheNote says why). */
export async function openCache(
  config: CliConfig,
  resources: Resources,
  io: Io,
  persistent = false,
): Promise<CacheStore | undefined> {
  const cache = config.cache;
  if (cache === undefined) return undefined;
  let store: CacheStore;
  if (cache.driver === 'redis') {
    const url = cache.connection as string;
    const lockUrl = (cache.lockConnection as string | undefined) ?? url;
    const connection = await openRedis(url, resources, io, {
      persistent,
      tls: config.redisTls,
      readTimeout: config.queue.readTimeout,
    });
    const lockConnection =
      lockUrl === url
        ? connection
        : await openRedis(lockUrl, resources, io, {
            persistent,
            tls: config.redisTls,
            readTimeout: config.queue.readTimeout,
          });
    store = createCacheStore({ ...cache, connection, lockConnection });
  } else {
    if (cache.driver === 'database') requireSqliteFile(cache.connection as SqlConnectionConfig);
    store = createCacheStore(cache);
  }
  resources.add(() => store.close());
  return store;
}

/** Opening a missing SQLite file would create an empty database; Laravel refuses, and so does larq. */
export function requireSqliteFile(db: SqlConnectionConfig): void {
  if (db.driver === 'sqlite' && 'database' in db && db.database !== ':memory:' && !existsSync(db.database)) {
    throw new LarqError(
      `DB_DATABASE: the SQLite database ${db.database} does not exist (DB_CONNECTION=sqlite: point --app at the Laravel app, or set DB_DATABASE)`,
    );
  }
}

/**
 * Refuse an argument that cannot be a failed job's ID: the stores key records by UUID (file,
 * database-uuids) or by row number (database), and a quarantined payload without a uuid is listed as
 * `invalid-` and 12 hex digits, so anything else is a typo that would match nothing.
 */
export function checkFailedJobId(command: string, id: string): string {
  if (/^[0-9]+$/.test(id) || isUuid(id) || /^invalid-[0-9a-f]{12}$/.test(id)) return id;
  throw new InvalidArgumentError(
    id,
    `larq ${command}: "${id}" is not a failed job ID (a UUID, a row number or an invalid-… entry, as larq failed lists them)`,
  );
}
