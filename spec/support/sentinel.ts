// A real local Sentinel set-up for the test run: a primary, its replica and 3 sentinels (`redis-server
// --sentinel`, the same binary as redis-server) monitoring the primary under a name, each on a free port
// with its own config file in a temp dir, stopped and removed after. Helpers kill the primary and wait
// for the failover, every wait bounded. In CI a missing redis-server is a failure, never a skip.
import { writeFileSync, mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import Redis, { type RedisOptions } from 'ioredis';
import { freePort } from './redis';
import { RedisProcess, requireBinaries, waitFor } from './redisProcess';

export interface LocalSentinelOptions {
  /** The name the sentinels monitor the primary under. Default `larq-primary`. */
  name?: string;
  /** `down-after-milliseconds`: how long the primary may not answer before it is down. Default 1000. */
  downAfterMs?: number;
  /** `failover-timeout`, in milliseconds. Default 3000 (a retry may start after twice that). */
  failoverTimeoutMs?: number;
  /** Bound on start-up (processes, sync, sentinels finding each other). Default 30000 ms. */
  startTimeoutMs?: number;
}

/** What killing the primary did. */
export interface SentinelFailover {
  /** The port of the primary that was killed. */
  killedPort: number;
  /** The port of the replica the sentinels promoted. */
  promotedPort: number;
  /** Milliseconds the primary held writes before the kill, until its replica had them all. */
  heldMs: number;
  /** Milliseconds from the kill until every sentinel named the new primary and it took writes. */
  failoverMs: number;
}

/** A running Sentinel set-up. Stop it in an `after` hook. */
export class LocalSentinel {
  private readonly clients: Redis[] = [];
  private startedInMs = 0;

  private constructor(
    /** The monitored name a Sentinel client asks for. */
    readonly name: string,
    private readonly dataNodes: RedisProcess[],
    private readonly sentinelNodes: RedisProcess[],
    private readonly dir: string,
  ) {}

  /** Starts the set-up. Call from a `before` hook (skips locally, fails in CI, without redis-server). */
  static async start(ctx: Mocha.Context, options: LocalSentinelOptions = {}): Promise<LocalSentinel> {
    requireBinaries(ctx, ['redis-server']);
    const name = options.name ?? 'larq-primary';
    const startTimeoutMs = options.startTimeoutMs ?? 30000;
    const began = Date.now();
    const dir = mkdtempSync(join(tmpdir(), 'larq-sentinel-'));
    const ports = await distinctFreePorts(5);
    const [primaryPort, replicaPort] = ports;
    const dataArgs = (port: number) => [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--dir',
      dir,
      '--dbfilename',
      `dump-${port}.rdb`,
      '--save',
      '',
      '--appendonly',
      'no',
    ];
    const primary = new RedisProcess(primaryPort, dataArgs(primaryPort), dir);
    const replica = new RedisProcess(
      replicaPort,
      [...dataArgs(replicaPort), '--replicaof', '127.0.0.1', String(primaryPort)],
      dir,
    );
    const sentinels = ports.slice(2).map((port) => {
      // A sentinel rewrites its config file as it learns the set-up, so each has its own.
      const config = join(dir, `sentinel-${port}.conf`);
      writeFileSync(
        config,
        [
          `port ${port}`,
          'bind 127.0.0.1',
          `dir ${dir}`,
          `sentinel monitor ${name} 127.0.0.1 ${primaryPort} 2`,
          `sentinel down-after-milliseconds ${name} ${options.downAfterMs ?? 1000}`,
          `sentinel failover-timeout ${name} ${options.failoverTimeoutMs ?? 3000}`,
          `sentinel parallel-syncs ${name} 1`,
          '',
        ].join('\n'),
      );
      return new RedisProcess(port, [config, '--sentinel'], dir);
    });
    const setup = new LocalSentinel(name, [primary, replica], sentinels, dir);
    try {
      await Promise.all([primary, replica, ...sentinels].map((n) => n.start()));
      await setup.waitUntilHealthy(primaryPort, Math.max(0, began + startTimeoutMs - Date.now()));
    } catch (e) {
      await setup.stop();
      throw e;
    }
    setup.startedInMs = Date.now() - began;
    return setup;
  }

  /** Milliseconds start-up took, from creating the temp dir to the sentinels knowing each other. */
  get startMs(): number {
    return this.startedInMs;
  }

  /** The ports of the primary and the replica as started (roles change with failovers). */
  get dataPorts(): number[] {
    return this.dataNodes.map((n) => n.port);
  }

  /** The sentinels' ports. */
  get sentinelPorts(): number[] {
    return this.sentinelNodes.map((n) => n.port);
  }

  /** The sentinels as ioredis' `sentinels` option wants them. */
  get sentinels(): { host: string; port: number }[] {
    return this.sentinelPorts.map((port) => ({ host: '127.0.0.1', port }));
  }

  /** A new ioredis client that finds the primary through the sentinels, closed by stop(). */
  client(options: RedisOptions = {}): Redis {
    const client = new Redis({ sentinels: this.sentinels, name: this.name, ...options });
    // A failover refuses the client's connections for a while; ioredis reports each as an `error`
    // event (and crashes the run when nobody listens) while its commands wait and retry or reject.
    client.on('error', () => undefined);
    this.clients.push(client);
    return client;
  }

  /** A data node's or sentinel's handle by port, for a test that wants to run commands on it. */
  node(port: number): RedisProcess {
    const node = [...this.dataNodes, ...this.sentinelNodes].find((n) => n.port === port);
    if (!node) throw new Error(`no node of the Sentinel set-up on port ${port}`);
    return node;
  }

  /** The primary's port as the sentinel on `sentinelPort` (default: the first running) names it. */
  async primaryPort(sentinelPort = this.sentinelNodes.find((n) => n.alive)?.port ?? 0): Promise<number> {
    const reply = (await this.node(sentinelPort).command(['SENTINEL', 'GET-MASTER-ADDR-BY-NAME', this.name])) as
      [string, string] | null;
    if (!reply) throw new Error(`sentinel on port ${sentinelPort} does not know ${this.name}`);
    return Number(reply[1]);
  }

  /**
   * Kills (SIGKILL) the current primary once its replica has every write it ran, and waits until every
   * running sentinel names the replica as the primary and the replica reports itself primary.
   *
   * Redis replicates asynchronously: a write the primary acknowledged an instant before a crash may never
   * reach the replica, whatever the client does (Redis' Sentinel documentation says acknowledged writes
   * can be lost in a failover). So the primary first holds new writes (CLIENT PAUSE WRITE: a write that
   * arrives meanwhile waits, unrun, and dies with it) until the replica's offset equals its own. A spec
   * then counts larq's losses, not Redis'.
   */
  async killPrimary(timeoutMs = 30000): Promise<SentinelFailover> {
    const killedPort = await this.primaryPort();
    const candidates = this.dataNodes.filter((n) => n.alive && n.port !== killedPort);
    if (candidates.length === 0) throw new Error('the primary has no running replica to promote');
    const primary = this.node(killedPort);
    const heldAt = Date.now();
    await primary.holdWritesUntilReplicated(candidates, timeoutMs);
    const killedAt = Date.now();
    await primary.kill();
    const promotedPort = await waitFor(
      `the sentinels to promote a replica of port ${killedPort}`,
      timeoutMs,
      async () => {
        const named = await Promise.all(this.sentinelNodes.filter((n) => n.alive).map((s) => this.primaryPort(s.port)));
        const port = named[0];
        if (port === killedPort || named.some((p) => p !== port)) return undefined;
        return (await this.node(port).info('replication')).role === 'master' ? port : undefined;
      },
    );
    return { killedPort, promotedPort, heldMs: killedAt - heldAt, failoverMs: Date.now() - killedAt };
  }

  /**
   * Starts a killed data node again as a replica of the current primary, as an operator brings a node
   * back (the sentinels would convert a returning old primary too, but only at their next periodic
   * INFO). Resolves once it has synced from that primary and every sentinel lists it as a replica.
   */
  async restart(port: number, timeoutMs = 30000): Promise<void> {
    const node = this.node(port);
    const primaryPort = await this.primaryPort();
    await node.start(['--replicaof', '127.0.0.1', String(primaryPort)]);
    try {
      await waitFor(
        `the restarted node on port ${port} to sync from the primary on port ${primaryPort}`,
        timeoutMs,
        async () => {
          const info = await node.info('replication');
          return info.role === 'slave' && info.master_port === String(primaryPort) && info.master_link_status === 'up'
            ? true
            : undefined;
        },
      );
    } catch (e) {
      // Seen once in CI (a sync that took more than 30 s; it usually takes about 8): say where it stood.
      throw new Error(`${(e as Error).message}\n${await this.describeSync(node, primaryPort)}`);
    }
    await waitFor(
      `every sentinel to list port ${port} as a replica that is up`,
      timeoutMs,
      async () => {
        for (const sentinel of this.sentinelNodes.filter((n) => n.alive)) {
          if (!(await this.listsReplica(sentinel, port))) return undefined;
        }
        return true;
      },
      100,
    );
  }

  /** What a replica and its primary say of their link: their replication fields and their logs' ends. */
  private async describeSync(replica: RedisProcess, primaryPort: number): Promise<string> {
    const fields = async (n: RedisProcess) =>
      n
        .info('replication')
        .then((i) =>
          Object.entries(i)
            .filter(([k]) => !/^slave\d|^(master_replid2|second_repl_offset|repl_backlog)/.test(k))
            .map(([k, v]) => `${k}:${v}`)
            .join(' '),
        )
        .catch((e: Error) => `INFO failed: ${e.message}`);
    const primary = this.node(primaryPort);
    const sentinels = await Promise.all(
      this.sentinelNodes.filter((s) => s.alive).map((s) => this.primaryPort(s.port).catch(() => 'unknown')),
    );
    return [
      `the sentinels name as primary: ${sentinels.join(', ')}`,
      `replica ${replica.port}: ${await fields(replica)}`,
      `primary ${primaryPort}: ${await fields(primary)}`,
      `replica ${replica.port}'s log:\n${replica.logTail(20)}`,
      `primary ${primaryPort}'s log:\n${primary.logTail(20)}`,
    ].join('\n');
  }

  /** Whether `sentinel` lists the node on `port` as a replica it does not consider down. */
  private async listsReplica(sentinel: RedisProcess, port: number): Promise<boolean> {
    const replicas = (await sentinel.command(['SENTINEL', 'REPLICAS', this.name])) as string[][];
    return replicas.some(
      (fields) => fieldOf(fields, 'port') === String(port) && !/down|disconnected/.test(fieldOf(fields, 'flags') ?? ''),
    );
  }

  /** Closes every client made by client(), kills every process and removes the temp dir. */
  async stop(): Promise<void> {
    await Promise.all(this.clients.splice(0).map((c) => c.quit().catch(() => c.disconnect())));
    await Promise.all([...this.sentinelNodes, ...this.dataNodes].map((n) => n.kill()));
    rmSync(this.dir, { recursive: true, force: true });
  }

  /**
   * Waits until the replica has synced and every sentinel names the primary, lists the replica and
   * knows the 2 other sentinels: without that, a failover could not gather its quorum and majority.
   */
  private async waitUntilHealthy(primaryPort: number, timeoutMs: number): Promise<void> {
    const replica = this.dataNodes[1];
    await waitFor('the replica to sync from the primary', timeoutMs, async () =>
      (await replica.info('replication')).master_link_status === 'up' ? true : undefined,
    );
    await waitFor(
      'every sentinel to know the primary, its replica and the other sentinels',
      timeoutMs,
      async () => {
        for (const sentinel of this.sentinelNodes) {
          if ((await this.primaryPort(sentinel.port)) !== primaryPort) return undefined;
          if (!(await this.listsReplica(sentinel, replica.port))) return undefined;
          const others = (await sentinel.command(['SENTINEL', 'SENTINELS', this.name])) as string[][];
          if (others.length < this.sentinelNodes.length - 1) return undefined;
        }
        return true;
      },
      100,
    );
  }
}

/** A field of a SENTINEL REPLICAS / SENTINELS entry (a flat name, value, name, value list). */
function fieldOf(fields: string[], name: string): string | undefined {
  const i = fields.indexOf(name);
  return i >= 0 && i % 2 === 0 ? fields[i + 1] : undefined;
}

async function distinctFreePorts(count: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < count) ports.add(await freePort());
  return [...ports];
}
