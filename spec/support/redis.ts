// A private redis-server for the test run: started on a free port, stopped after. Nothing here touches
// the machine's shared Redis. In CI a missing redis-server is a failure, never a skip.
import { spawn, ChildProcess, execFileSync } from 'child_process';
import { createServer, connect, type Socket } from 'net';
import { randomBytes } from 'crypto';
import Redis from 'ioredis';

export const inCI = process.env.CI === 'true' || process.env.CI === '1';

let server: { proc: ChildProcess; port: number } | undefined;
let starting: Promise<number> | undefined;

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

async function start(): Promise<number> {
  const port = await freePort();
  const proc = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: 'ignore',
  });
  server = { proc, port };
  const deadline = Date.now() + 10000;
  for (;;) {
    const probe = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    probe.on('error', () => undefined); // refused while the server is still starting: expected, retried below
    try {
      await probe.connect();
      await probe.ping();
      probe.disconnect();
      return port;
    } catch {
      probe.disconnect();
      if (Date.now() > deadline) throw new Error(`redis-server did not start on port ${port}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

/**
 * The port of the test run's redis-server, starting it on first use. Call from a `before` hook:
 * without redis-server the suite is skipped locally and fails in CI.
 */
export async function requireRedis(ctx: Mocha.Context): Promise<number> {
  if (!hasBinary('redis-server')) {
    if (inCI) throw new Error('redis-server is not installed; CI must install it (.ci/run)');
    ctx.skip();
  }
  starting ??= start();
  return starting;
}

/** A fresh key prefix per test so tests never see each other's keys. */
export function randomPrefix(): string {
  return `larqtest_${randomBytes(4).toString('hex')}_`;
}

/** A plain client (no prefix) on the test server. */
export function rawClient(port: number): Redis {
  return new Redis({ port, host: '127.0.0.1' });
}

/** Every key under `prefix`, with its contents, in the fixtures' shape. */
export async function dumpKeys(client: Redis, prefix: string): Promise<Record<string, unknown>> {
  const keys = (await client.keys(`${prefix}*`)).sort();
  const out: Record<string, unknown> = {};
  for (const key of keys) {
    const type = await client.type(key);
    if (type === 'list') out[key] = { type, items: await client.lrange(key, 0, -1) };
    else if (type === 'zset') {
      const flat = await client.zrange(key, 0, -1, 'WITHSCORES');
      const items = [];
      for (let i = 0; i < flat.length; i += 2) items.push({ member: flat[i], score: Number(flat[i + 1]) });
      out[key] = { type, items };
    } else if (type === 'string') out[key] = { type, value: await client.get(key) };
    else if (type === 'hash') out[key] = { type, value: await client.hgetall(key) };
    else out[key] = { type };
  }
  return out;
}

/** How many times the server has run `command` so far (INFO commandstats; 0 before its first run). */
export async function commandCalls(client: Redis, command: string): Promise<number> {
  return Number(new RegExp(`cmdstat_${command}:calls=(\\d+)`).exec(await client.info('commandstats'))?.[1] ?? 0);
}

/**
 * A TCP relay in front of the test server that counts the bytes its clients send: how a test sees what
 * a connection asked of Redis (a request is bytes sent) without reading the protocol.
 */
export interface CountingRelay {
  readonly port: number;
  /** Bytes sent so far by every client of the relay, towards Redis. */
  sent(): number;
  close(): Promise<void>;
}

export function countingRelay(redisPort: number): Promise<CountingRelay> {
  let sent = 0;
  const sockets = new Set<Socket>();
  const server = createServer((inbound) => {
    const outbound = connect(redisPort, '127.0.0.1');
    for (const s of [inbound, outbound]) {
      sockets.add(s);
      s.on('error', () => undefined); // one side closing resets the other: expected when a test closes
      s.on('close', () => sockets.delete(s));
    }
    inbound.on('data', (chunk: Buffer) => {
      sent += chunk.length;
      outbound.write(chunk);
    });
    outbound.on('data', (chunk: Buffer) => inbound.write(chunk));
    inbound.on('close', () => outbound.destroy());
    outbound.on('close', () => inbound.destroy());
  });
  return new Promise((resolve, reject) => {
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const addr = server.address();
      resolve({
        port: typeof addr === 'object' && addr ? addr.port : 0,
        sent: () => sent,
        close: () =>
          new Promise<void>((done) => {
            for (const s of sockets) s.destroy();
            server.close(() => done());
          }),
      });
    });
  });
}

export function stopRedis(): void {
  server?.proc.kill('SIGTERM');
  server = undefined;
  starting = undefined;
}
