// A private redis-server for the test run: started on a free port, stopped after. Nothing here touches
// the machine's shared Redis. In CI a missing redis-server is a failure, never a skip.
import { mkdtempSync, rmSync } from 'fs';
import { createServer, connect, type Socket } from 'net';
import { tmpdir } from 'os';
import { join } from 'path';
import { randomBytes } from 'crypto';
import Redis from 'ioredis';
import { hasBinary, inCI, startOnFreePort, type RedisProcess } from './redisProcess';

export { freePort, hasBinary, inCI } from './redisProcess';

let server: { process: RedisProcess; dir: string } | undefined;
let starting: Promise<number> | undefined;

async function start(): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'larq-redis-'));
  const process = await startOnFreePort(['--appendonly', 'no'], dir);
  server = { process, dir };
  return process.port;
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
      const flat = await client.zrange(key, 0, '-1', 'WITHSCORES');
      const items = [];
      for (let i = 0; i < flat.length; i += 2) items.push({ member: flat[i], score: Number(flat[i + 1]) });
      out[key] = { type, items };
    } else if (type === 'string') out[key] = { type, value: await client.get(key) };
    else if (type === 'hash') out[key] = { type, value: await client.hgetall(key) };
    else out[key] = { type };
  }
  return out;
}

/**
 * Resolves once `monitor` (a client in MONITOR mode) has reported every command the server ran before
 * this call: MONITOR reports commands in the order the server runs them, so once it shows a marker sent
 * through `client`, everything before has arrived. A fixed sleep instead loses commands under load.
 */
export async function monitorCaughtUp(monitor: Redis, client: Redis, timeoutMs = 10000): Promise<void> {
  const marker = `larq-monitor-${randomBytes(6).toString('hex')}`;
  let onMonitor: ((time: string, args: string[]) => void) | undefined;
  let timer: NodeJS.Timeout | undefined;
  const shown = new Promise<void>((resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`MONITOR did not report ${marker} within ${timeoutMs} ms`)), timeoutMs);
    onMonitor = (_time, args) => {
      if (args[1] === marker) resolve();
    };
    monitor.on('monitor', onMonitor);
  });
  try {
    await client.echo(marker);
    await shown;
  } finally {
    clearTimeout(timer);
    monitor.off('monitor', onMonitor!);
  }
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

export async function stopRedis(): Promise<void> {
  const stopping = server;
  server = undefined;
  starting = undefined;
  if (stopping === undefined) return;
  await stopping.process.stop();
  rmSync(stopping.dir, { recursive: true, force: true });
}
