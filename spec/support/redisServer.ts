// A redis-server of a spec's own, for the specs that break connections, flush scripts, stop and restart
// the server, or speak TLS: none of that may disturb the shared test server other specs use.
import { mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import Redis, { type RedisOptions } from 'ioredis';
import { startOnFreePort } from './redisProcess';

export interface OwnRedis {
  /** The plain TCP port (always the same, across restarts). */
  readonly port: number;
  /** A client that never reconnects by itself (for assertions and CLIENT KILL). */
  admin(): Redis;
  /** Stop the server (SIGTERM: with appendfsync always every acknowledged write is on disk). */
  stop(): Promise<void>;
  /** Start it again on the same port(s) with the same arguments. */
  start(): Promise<void>;
}

// The logs of every own server of this test run, removed when it ends.
let logs: string | undefined;
function logDir(): string {
  if (logs === undefined) {
    const dir = (logs = mkdtempSync(join(tmpdir(), 'larq-own-redis-')));
    process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  }
  return logs;
}

/** Start redis-server with `extra` arguments on a free port (`--port` and `--bind` are added). */
export async function ownRedis(extra: string[] = [], tlsOptions?: RedisOptions): Promise<OwnRedis> {
  const server = await startOnFreePort(extra, logDir());
  return {
    port: server.port,
    admin: () => new Redis({ port: server.port, host: '127.0.0.1', maxRetriesPerRequest: 1, ...tlsOptions }),
    stop: () => server.stop(),
    start: () => server.start(),
  };
}
