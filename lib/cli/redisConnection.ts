// How the CLI reaches the app's Redis, as Laravel's redis config reads the environment: REDIS_URL, else
// REDIS_HOST, REDIS_PORT, REDIS_USERNAME, REDIS_PASSWORD and the database. A REDIS_HOST that is a path
// (or `unix:///path`) is a Unix socket, as phpredis takes it; REDIS_SCHEME=tls (or a rediss:// or tls://
// URL) is TLS, verified against the system's CAs or LARQ_REDIS_CA, with LARQ_REDIS_CERT/LARQ_REDIS_KEY
// for a client certificate and LARQ_REDIS_SERVERNAME when the certificate names another host.
// A connection is kept as one string (redis://, rediss:// or unix://), which messages show without the
// password, and turned into ioredis options only when a client is made.
import { readFileSync } from 'fs';
import type { RedisOptions } from 'ioredis';
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
  const u = new URL(connection);
  if (u.protocol === 'unix:') return `unix:${decodeURIComponent(u.pathname)} (db ${u.searchParams.get('db') ?? '0'})`;
  return `${u.protocol}//${u.host}${u.pathname}`;
}

/** A connection string for a Unix socket: `unix://[user:password@]localhost/path?db=N`. */
export function socketConnection(path: string, db: number, username: string, password: string): string {
  const auth = username || password ? `${encodeURIComponent(username)}${password ? `:${encodeURIComponent(password)}` : ''}@` : '';
  return `unix://${auth}localhost${encodeURI(path)}?db=${db}`;
}

/** The ioredis options for a connection string (see socketConnection), with `tls` for rediss://. */
export function redisClientOptions(connection: string, tls: CliRedisTls = {}): RedisOptions {
  const u = new URL(connection);
  const auth = { ...(u.username ? { username: decodeURIComponent(u.username) } : {}), ...(u.password ? { password: decodeURIComponent(u.password) } : {}) };
  if (u.protocol === 'unix:') return { path: decodeURIComponent(u.pathname), db: Number(u.searchParams.get('db') ?? 0), ...auth };
  const options: RedisOptions = { host: u.hostname.replace(/^\[|\]$/g, ''), port: Number(u.port || 6379), db: Number(u.pathname.slice(1) || 0), ...auth };
  if (u.protocol === 'rediss:') {
    options.tls = {
      ...(tls.ca ? { ca: pem(tls.ca, 'LARQ_REDIS_CA') } : {}),
      ...(tls.cert ? { cert: pem(tls.cert, 'LARQ_REDIS_CERT') } : {}),
      ...(tls.key ? { key: pem(tls.key, 'LARQ_REDIS_KEY') } : {}),
      ...(tls.servername ? { servername: tls.servername } : {}),
    };
  }
  return options;
}

function pem(file: string, variable: string): Buffer {
  try {
    return readFileSync(file);
  } catch (e) {
    throw new InvalidOptionError(variable, `cannot read ${file}: ${(e as Error).message}`);
  }
}
