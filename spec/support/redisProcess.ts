// One redis-server process of a test topology (a cluster node, a Sentinel primary or replica, a
// sentinel): started with the arguments it keeps, so a killed node can come back as the same node, and
// logged to a file in its topology's temp dir so a failed start says why. Every process started here is
// killed when the test run's Node process exits, even when a spec forgot to stop its topology.
import { spawn, type ChildProcess } from 'child_process';
import { existsSync, readFileSync } from 'fs';
import { join } from 'path';
import Redis from 'ioredis';
import { hasBinary, inCI } from './redis';

const running = new Set<ChildProcess>();
process.on('exit', () => {
  for (const proc of running) proc.kill('SIGKILL');
});

/** Polls `check` until it returns a value other than undefined, or throws naming `what` at the deadline. */
export async function waitFor<T>(what: string, timeoutMs: number, check: () => Promise<T | undefined>, intervalMs = 50): Promise<T> {
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

  /** `args` come after the binary; `dir` holds the process's log (and whatever its args put there). */
  constructor(
    readonly port: number,
    private readonly args: readonly string[],
    private readonly dir: string,
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
        return (await this.command(['PING'])) === 'PONG' ? true : undefined;
      });
    } catch (e) {
      await this.kill();
      throw e;
    }
  }

  /** Kills the process at once (SIGKILL: a crash, not a shutdown) and resolves when it has exited. */
  async kill(): Promise<void> {
    this.proc?.kill('SIGKILL');
    await this.exited;
  }

  /** Sends one command on a short-lived connection and returns its reply. */
  async command(args: readonly (string | number)[]): Promise<unknown> {
    const client = new Redis({ port: this.port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 2000 });
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

  private logTail(): string {
    if (!existsSync(this.logFile)) return 'no log';
    return readFileSync(this.logFile, 'utf8').split('\n').slice(-10).join('\n');
  }
}
