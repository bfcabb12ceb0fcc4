// The one way specs start a redis-server: the shared test server, a spec's own server, a node of a test
// topology (cluster node, Sentinel primary, replica or sentinel). Each process is started with the
// arguments it keeps, so a stopped or killed one can come back as the same server, and logs to a file in
// its temp dir so a failed start says why. Every process started here is killed when the test run's Node
// process exits, even when a spec forgot to stop it.
import { execFileSync, spawn, type ChildProcess } from 'child_process';
import { existsSync, readFileSync } from 'fs';
import { createServer } from 'net';
import { join } from 'path';
import Redis, { type RedisOptions } from 'ioredis';

export const inCI = process.env.CI === 'true' || process.env.CI === '1';

/** A TCP port nothing listened on a moment ago (another process may still take it: see startOnFreePort). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.unref();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const addr = s.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      s.close(() => resolve(port));
    });
  });
}

export function hasBinary(name: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${name}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const running = new Set<ChildProcess>();
process.on('exit', () => {
  for (const proc of running) proc.kill('SIGKILL');
});

/** Polls `check` until it returns a value other than undefined, or throws naming `what` at the deadline. */
export async function waitFor<T>(
  what: string,
  timeoutMs: number,
  check: () => Promise<T | undefined>,
  intervalMs = 50,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (e) {
      lastError = e; // a node still starting or just killed refuses: expected, polled again below
    }
    if (Date.now() > deadline) {
      const cause = lastError instanceof Error ? ` (last error: ${lastError.message})` : '';
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${cause}`);
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/**
 * Skips the suite locally and fails it in CI when a binary a topology needs is missing. Sentinel mode
 * needs no binary of its own: it is `redis-server --sentinel`.
 */
export function requireBinaries(ctx: Mocha.Context, names: readonly string[]): void {
  const missing = names.filter((n) => !hasBinary(n));
  if (missing.length === 0) return;
  if (inCI) throw new Error(`${missing.join(', ')} not installed; CI must install them (scripts/setup)`);
  ctx.skip();
}

/** A redis-server process on a fixed port that can be killed and started again with the same arguments. */
export class RedisProcess {
  private proc: ChildProcess | undefined;
  private exited: Promise<void> = Promise.resolve();

  /**
   * `args` come after the binary; `dir` holds the process's log (and whatever its args put there);
   * `connection` is how a client reaches it when plain TCP on 127.0.0.1:`port` does not (a unix socket,
   * TLS only).
   */
  constructor(
    readonly port: number,
    private readonly args: readonly string[],
    private readonly dir: string,
    private readonly connection: RedisOptions = {},
  ) {}

  get logFile(): string {
    return join(this.dir, `redis-${this.port}.log`);
  }

  get alive(): boolean {
    return this.proc !== undefined;
  }

  /**
   * Starts the process and resolves once it answers PING. `extraArgs` override its own arguments for
   * this start only (later arguments win in redis-server's command line).
   */
  async start(extraArgs: readonly string[] = [], timeoutMs = 10000): Promise<void> {
    if (this.proc) throw new Error(`redis-server on port ${this.port} is already running`);
    const proc = spawn('redis-server', [...this.args, ...extraArgs, '--logfile', this.logFile], { stdio: 'ignore' });
    this.proc = proc;
    running.add(proc);
    this.exited = new Promise((resolve) =>
      proc.once('exit', () => {
        running.delete(proc);
        if (this.proc === proc) this.proc = undefined;
        resolve();
      }),
    );
    try {
      await waitFor(`redis-server on port ${this.port} to answer PING`, timeoutMs, async () => {
        if (this.proc !== proc) throw new Error(`redis-server on port ${this.port} exited: ${this.logTail()}`);
        // the process id, not PING: a server of another test run that took this port would answer PING
        const id = /^process_id:(\d+)/m.exec(String(await this.command(['INFO', 'server'])))?.[1];
        if (id !== undefined && Number(id) !== proc.pid)
          throw new Error(`port ${this.port} is taken by another redis-server`);
        return id === undefined ? undefined : true;
      });
    } catch (e) {
      await this.kill();
      throw e;
    }
  }

  /**
   * Holds this primary's new writes (CLIENT PAUSE WRITE, for at most `timeoutMs`: a write that arrives
   * meanwhile waits, unrun) until one of `replicas` has every write it ran (its offset equals this one's).
   * Redis replicates asynchronously, so a crash right after an acknowledged write may otherwise lose it;
   * a WAIT cannot stand in here, as it counts only the writes of the connection it is sent on.
   */
  async holdWritesUntilReplicated(replicas: readonly RedisProcess[], timeoutMs: number): Promise<void> {
    await this.command(['CLIENT', 'PAUSE', timeoutMs, 'WRITE']);
    await waitFor(`a replica to have every write of the primary on port ${this.port}`, timeoutMs, async () => {
      const offset = Number((await this.info('replication')).master_repl_offset);
      for (const replica of replicas)
        if (Number((await replica.info('replication')).slave_repl_offset) === offset) return true;
      return undefined;
    });
  }

  /** Resolves once the process has exited (at once when it is not running). */
  whenExited(): Promise<void> {
    return this.exited;
  }

  /** Kills the process at once (SIGKILL: a crash, not a shutdown) and resolves when it has exited. */
  async kill(): Promise<void> {
    this.proc?.kill('SIGKILL');
    await this.exited;
  }

  /** Shuts the server down (SIGTERM: with appendfsync always every acknowledged write is on disk). */
  async stop(): Promise<void> {
    this.proc?.kill('SIGTERM');
    await this.exited;
  }

  /** Options for a client of this server (merge your own after them). */
  clientOptions(): RedisOptions {
    return { port: this.port, host: '127.0.0.1', ...this.connection };
  }

  /** Sends one command on a short-lived connection and returns its reply. */
  async command(args: readonly (string | number)[]): Promise<unknown> {
    const client = new Redis({
      ...this.clientOptions(),
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
      connectTimeout: 2000,
    });
    client.on('error', () => undefined); // a refused connection rejects the command below
    try {
      await client.connect();
      const [name, ...rest] = args;
      return await client.call(String(name), ...rest.map(String));
    } finally {
      client.disconnect();
    }
  }

  /** INFO `section` as a field map. */
  async info(section: string): Promise<Record<string, string>> {
    const text = String(await this.command(['INFO', section]));
    const fields: Record<string, string> = {};
    for (const line of text.split('\r\n')) {
      const colon = line.indexOf(':');
      if (colon > 0 && !line.startsWith('#')) fields[line.slice(0, colon)] = line.slice(colon + 1);
    }
    return fields;
  }

  /** The last `lines` lines of the server's log, to explain a start or a sync that failed. */
  logTail(lines = 10): string {
    if (!existsSync(this.logFile)) return 'no log';
    return readFileSync(this.logFile, 'utf8').split('\n').slice(-lines).join('\n');
  }
}

/**
 * Starts a redis-server with `args` on a free port (`--port` and `--bind` are added), logging into `dir`.
 * Between freePort() and the server's bind another process may take the port: a start that fails is
 * tried again on another port, so that race never fails a spec.
 */
export async function startOnFreePort(args: readonly string[], dir: string, attempts = 3): Promise<RedisProcess> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const server = new RedisProcess(port, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', ...args], dir);
    try {
      await server.start();
      return server;
    } catch (e) {
      if (attempt >= attempts) throw e;
    }
  }
}
