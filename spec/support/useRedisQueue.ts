// Mocha hooks for a spec on the shared test redis-server, instead of a before/after block per file: the
// server's port, a raw client (no prefix) for assertions, a fresh key prefix per test, and queues opened
// through `open` and clients opened through `connect` closed after each test.
import Redis, { type RedisOptions } from 'ioredis';
import { RedisQueue, type RedisQueueOptions } from '../../lib/RedisQueue';
import { randomPrefix, rawClient, requireRedis } from './redis';

export interface RedisQueueFixture {
  /** The shared server's port (set in `before`). */
  readonly port: number;
  /** A plain client on the shared server. */
  readonly client: Redis;
  /** This test's key prefix. */
  readonly prefix: string;
  /** A RedisQueue on the shared server with `defaults`, then `options`; closed after the test. */
  open(options?: RedisQueueOptions): RedisQueue;
  /** Another plain client on the shared server (a MONITOR, a second connection); disconnected after the test. */
  connect(options?: RedisOptions): Redis;
}

/** Call inside a `describe`: registers the hooks and returns the fixture they fill. */
export function useRedisQueue(defaults: () => RedisQueueOptions = () => ({})): RedisQueueFixture {
  let port = 0;
  let client: Redis | undefined;
  let prefix = '';
  const opened: RedisQueue[] = [];
  const connected: Redis[] = [];
  before(async function () {
    port = await requireRedis(this);
    client = rawClient(port);
  });
  beforeEach(() => {
    prefix = randomPrefix();
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((q) => q.close()));
    for (const c of connected.splice(0)) c.disconnect();
  });
  after(async () => {
    await client?.quit();
  });
  return {
    get port() {
      return port;
    },
    get client() {
      if (client === undefined) throw new Error('useRedisQueue: the client exists from the before hook on');
      return client;
    },
    get prefix() {
      return prefix;
    },
    open(options: RedisQueueOptions = {}) {
      const queue = new RedisQueue({ connection: `redis://127.0.0.1:${port}`, prefix, ...defaults(), ...options });
      opened.push(queue);
      return queue;
    },
    connect(options: RedisOptions = {}) {
      const c = new Redis({ port, host: '127.0.0.1', ...options });
      connected.push(c);
      return c;
    },
  };
}
