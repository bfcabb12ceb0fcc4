// A redis-server of a spec's own, for the specs that break connections, flush scripts, stop and restart
// the server, or speak TLS: none of that may disturb the shared test server other specs use.
import { spawn, type ChildProcess } from 'child_process';
import Redis, { type RedisOptions } from 'ioredis';
import { freePort } from './redis';

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

/** Start redis-server with `extra` arguments on a free port (`--port` and `--bind` are added). */
export async function ownRedis(extra: string[] = [], tlsOptions?: RedisOptions): Promise<OwnRedis> {
  const port = await freePort();
  let proc: ChildProcess | undefined;
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', ...extra];
  const server: OwnRedis = {
    port,
    admin: () => new Redis({ port, host: '127.0.0.1', maxRetriesPerRequest: 1, ...tlsOptions }),
    async stop() {
      const p = proc;
      proc = undefined;
      if (p === undefined || p.exitCode !== null) return;
      await new Promise<void>((resolve) => {
        p.once('exit', () => resolve());
        p.kill('SIGTERM');
      });
    },
    async start() {
      proc = spawn('redis-server', args, { stdio: 'ignore' });
      const deadline = Date.now() + 10000;
      for (;;) {
        const probe = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
        probe.on('error', () => undefined); // refused while the server is still starting: retried below
        try {
          await probe.connect();
          await probe.ping();
          probe.disconnect();
          return;
        } catch {
          probe.disconnect();
          if (Date.now() > deadline) throw new Error(`redis-server did not start on port ${port}`);
          await new Promise((r) => setTimeout(r, 25));
        }
      }
    },
  };
  await server.start();
  return server;
}
