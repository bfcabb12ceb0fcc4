// How the CLI reaches the app's Redis, as Laravel's redis config reads the environment: REDIS_URL, else
// REDIS_HOST, REDIS_PORT, REDIS_USERNAME, REDIS_PASSWORD and the database. A REDIS_HOST that is a path
// (or `unix:///path`) is a Unix socket, as phpredis takes it; REDIS_SCHEME=tls (or a rediss:// or tls://
// URL) is TLS, verified against the system's CAs or LARQ_REDIS_CA, with LARQ_REDIS_CERT/LARQ_REDIS_KEY
// for a client certificate and LARQ_REDIS_SERVERNAME when the certificate names another host.
// A connection is kept as one string (redis://, rediss:// or unix://), which messages show without the
// password, and turned into ioredis options only when a client is made.
import { readFileSync } from 'fs';
import type { RedisOptions } from 'ioredis';
import type { ConnectionOptions } from 'tls';
import { InvalidOptionError } from '../errors';

/** TLS settings beyond the scheme: PEM files. */
export interface CliRedisTls {
  ca?: string;
  cert?: string;
  key?: string;
  servername?: string;
}

/** Where a connection string points, without its password: `redis://host:6379/0`, `unix:/run/redis.sock (db 0)`. */
export function describeRedis(connection: string): string {
  const multi = parseMultiHost(connection);
  if (multi?.kind === 'cluster') return `${multi.tls ? 'rediss' : 'redis'} cluster ${hostList(multi.nodes)}`;
  if (multi?.kind === 'sentinel') {
    const sentinels = multi.sentinelTls
      ? multi.nodes.map((n) => `tls://${hostList([n])}`).join(',')
      : hostList(multi.nodes);
    return `sentinels ${sentinels}, primary "${multi.name}" (db ${multi.db})${multi.tls ? ' over TLS' : ''}`;
  }
  const u = new URL(connection);
  if (u.protocol === 'unix:') return `unix:${decodeURIComponent(u.pathname)} (db ${u.searchParams.get('db') ?? '0'})`;
  return `${u.protocol}//${u.host}${u.pathname}`;
}

/** A connection string for a Unix socket: `unix://[user:password@]localhost/path?db=N`. */
export function socketConnection(path: string, db: number, username: string, password: string): string {
  const auth =
    username || password ? `${encodeURIComponent(username)}${password ? `:${encodeURIComponent(password)}` : ''}@` : '';
  return `unix://${auth}localhost${encodeURI(path)}?db=${db}`;
}

/** The ioredis options for a connection string (see socketConnection), with `tls` for rediss://. */
export function redisClientOptions(connection: string, tls: CliRedisTls = {}): RedisOptions {
  const multi = parseMultiHost(connection);
  if (multi?.kind === 'cluster')
    throw new InvalidOptionError('connection', 'a cluster connection needs a Cluster client (redisClusterNodes)');
  if (multi?.kind === 'sentinel') {
    const options: RedisOptions = {
      sentinels: multi.nodes,
      name: multi.name,
      db: multi.db,
      ...(multi.username ? { username: multi.username } : {}),
      ...(multi.password ? { password: multi.password } : {}),
    };
    // ioredis talks plaintext to the primary and replicas a sentinel names unless told both `tls` and
    // `enableTLSForSentinelMode`; the sentinels themselves take `sentinelTLS`.
    if (multi.tls) Object.assign(options, { tls: tlsOptions(tls), enableTLSForSentinelMode: true });
    if (multi.sentinelTls) options.sentinelTLS = tlsOptions(tls);
    return options;
  }
  const u = new URL(connection);
  const auth = {
    ...(u.username ? { username: decodeURIComponent(u.username) } : {}),
    ...(u.password ? { password: decodeURIComponent(u.password) } : {}),
  };
  if (u.protocol === 'unix:')
    return { path: decodeURIComponent(u.pathname), db: Number(u.searchParams.get('db') ?? 0), ...auth };
  const options: RedisOptions = {
    host: u.hostname.replace(/^\[|\]$/g, ''),
    port: Number(u.port || 6379),
    db: Number(u.pathname.slice(1) || 0),
    ...auth,
  };
  if (u.protocol === 'rediss:') options.tls = tlsOptions(tls);
  return options;
}

/** Whether a connection string speaks TLS anywhere: to Redis, or to the sentinels that name it. */
export function usesTls(connection: string): boolean {
  const multi = parseMultiHost(connection);
  return multi ? multi.tls || multi.sentinelTls : connection.startsWith('rediss:');
}

// Node's TLS options from the LARQ_REDIS_* files.
function tlsOptions(tls: CliRedisTls): ConnectionOptions {
  return {
    ...(tls.ca ? { ca: pem(tls.ca, 'LARQ_REDIS_CA') } : {}),
    ...(tls.cert ? { cert: pem(tls.cert, 'LARQ_REDIS_CERT') } : {}),
    ...(tls.key ? { key: pem(tls.key, 'LARQ_REDIS_KEY') } : {}),
    ...(tls.servername ? { servername: tls.servername } : {}),
  };
}

/** What the CLI gives ioredis' Cluster: the seed nodes, each node connection's options, and the host lookup. */
export interface CliClusterSettings {
  nodes: HostPort[];
  redisOptions: RedisOptions;
  /**
   * With TLS, node names are connected to as given rather than resolved to addresses first (ioredis'
   * default): a managed cluster's certificate names its host names (ElastiCache's configuration
   * endpoint), so a connection made to a bare address would fail the certificate check.
   */
  dnsLookup?: (address: string, callback: (error: Error | null, address: string) => void) => void;
}

/** A cluster connection's seed nodes and the options each node connection takes, or null for another kind. */
export function redisClusterNodes(connection: string, tls: CliRedisTls = {}): CliClusterSettings | null {
  const multi = parseMultiHost(connection);
  if (multi?.kind !== 'cluster') return null;
  const redisOptions: RedisOptions = {
    ...(multi.username ? { username: multi.username } : {}),
    ...(multi.password ? { password: multi.password } : {}),
  };
  if (!multi.tls) return { nodes: multi.nodes, redisOptions };
  redisOptions.tls = tlsOptions(tls);
  return { nodes: multi.nodes, redisOptions, dnsLookup: (address, callback) => callback(null, address) };
}

function pem(file: string, variable: string): Buffer {
  try {
    return readFileSync(file);
  } catch (e) {
    throw new InvalidOptionError(variable, `cannot read ${file}: ${(e as Error).message}`);
  }
}

/** One host:port of a cluster seed list or a Sentinel list. */
export interface HostPort {
  host: string;
  port: number;
}

/** Parse `host:port,host:port` (LARQ_REDIS_CLUSTER, LARQ_REDIS_SENTINELS); `variable` names it in errors. */
export function hostPorts(text: string, variable: string): HostPort[] {
  const list = text
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)
    .map((part) => {
      const m = /^\[?([^\]]+?)\]?:(\d{1,5})$/.exec(part);
      if (!m || Number(m[2]) > 65535)
        throw new InvalidOptionError(variable, `must be host:port pairs separated by commas, got "${part}"`);
      return { host: m[1], port: Number(m[2]) };
    });
  if (list.length === 0) throw new InvalidOptionError(variable, 'names no host:port');
  return list;
}

const auth = (username: string, password: string) =>
  username || password ? `${encodeURIComponent(username)}${password ? `:${encodeURIComponent(password)}` : ''}@` : '';
const hostList = (nodes: HostPort[]) =>
  nodes.map((n) => `${n.host.includes(':') ? `[${n.host}]` : n.host}:${n.port}`).join(',');

/** A connection string for a Redis Cluster, from its seed nodes: `redis-cluster://[user:password@]h:p,h:p`. */
export function clusterConnection(nodes: HostPort[], username: string, password: string, tls: boolean): string {
  return `${tls ? 'rediss' : 'redis'}-cluster://${auth(username, password)}${hostList(nodes)}`;
}

/**
 * A connection string for a Sentinel-managed primary: `redis-sentinel://[user:password@]h:p,h:p/name?db=N`,
 * `rediss-sentinel://` when the primary speaks TLS, with `&sentinels=tls` when the sentinels do.
 */
export function sentinelConnection(
  sentinels: HostPort[],
  name: string,
  db: number,
  username: string,
  password: string,
  tls = { primary: false, sentinels: false },
): string {
  return `${tls.primary ? 'rediss' : 'redis'}-sentinel://${auth(username, password)}${hostList(sentinels)}/${encodeURIComponent(name)}?db=${db}${tls.sentinels ? '&sentinels=tls' : ''}`;
}

/** The parts of a cluster or Sentinel connection string, or null for a plain one. */
export function parseMultiHost(connection: string): {
  kind: 'cluster' | 'sentinel';
  tls: boolean;
  sentinelTls: boolean;
  username: string;
  password: string;
  nodes: HostPort[];
  name: string;
  db: number;
} | null {
  const m =
    /^(redis|rediss)-(cluster|sentinel):\/\/(?:([^:@/]*)(?::([^@/]*))?@)?([^/?]+)(?:\/([^?]*))?(?:\?db=(\d+)(&sentinels=tls)?)?$/.exec(
      connection,
    );
  if (!m) return null;
  return {
    kind: m[2] as 'cluster' | 'sentinel',
    tls: m[1] === 'rediss',
    sentinelTls: m[8] !== undefined,
    username: decodeURIComponent(m[3] ?? ''),
    password: decodeURIComponent(m[4] ?? ''),
    nodes: hostPorts(m[5], 'connection'),
    name: decodeURIComponent(m[6] ?? ''),
    db: Number(m[7] ?? 0),
  };
}
