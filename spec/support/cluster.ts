// A real local Redis Cluster for the test run: 3 primaries and 3 replicas, each a `redis-server
// --cluster-enabled yes` on free ports in a temp dir, joined with `redis-cli --cluster create`, stopped
// and removed after. Helpers kill the primary owning a key's slot and wait for its replica's promotion,
// every wait bounded. In CI a missing redis-server or redis-cli is a failure, never a skip.
import { execFile } from 'child_process';
import { mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { promisify } from 'util';
import { Cluster, type ClusterOptions } from 'ioredis';
import { freePort } from './redis';
import { RedisProcess, requireBinaries, waitFor } from './redisProcess';

const run = promisify(execFile);

/** Every hash slot of a Redis Cluster: 0..16383. */
export const CLUSTER_SLOTS = 16384;

/** One line of CLUSTER NODES, as one node sees the cluster. */
export interface ClusterNodeView {
  id: string;
  port: number;
  /** `master` or `replica`, as the viewing node believes. */
  role: 'master' | 'replica';
  /** The node is flagged `fail` (or `fail?`) by the viewing node. */
  failing: boolean;
  /** The primary's id for a replica, undefined for a primary. */
  primaryId: string | undefined;
  /** Slot ranges the node serves, inclusive. */
  slots: [number, number][];
}

export interface LocalClusterOptions {
  /** `cluster-node-timeout`: how long a node may be unreachable before it is failed over. Default 1000 ms. */
  nodeTimeoutMs?: number;
  /** Bound on start-up (processes, join, every node agreeing). Default 30000 ms. */
  startTimeoutMs?: number;
}

/** What killing a slot's primary did. */
export interface ClusterFailover {
  slot: number;
  /** The port of the primary that was killed. */
  killedPort: number;
  /** The port of the replica that now serves the slot. */
  promotedPort: number;
  /** Milliseconds from the kill until every surviving node saw the replica as the slot's primary. */
  failoverMs: number;
}

/** A running local cluster. Stop it in an `after` hook. */
export class LocalCluster {
  private readonly clients: Cluster[] = [];
  private startedInMs = 0;

  private constructor(
    private readonly nodes: RedisProcess[],
    private readonly dir: string,
  ) {}

  /** Milliseconds start-up took, from creating the temp dir to every node agreeing. */
  get startMs(): number {
    return this.startedInMs;
  }

  /** Starts a cluster. Call from a `before` hook (skips locally, fails in CI, without the binaries). */
  static async start(ctx: Mocha.Context, options: LocalClusterOptions = {}): Promise<LocalCluster> {
    requireBinaries(ctx, ['redis-server', 'redis-cli']);
    const nodeTimeoutMs = options.nodeTimeoutMs ?? 1000;
    const startTimeoutMs = options.startTimeoutMs ?? 30000;
    const began = Date.now();
    const dir = mkdtempSync(join(tmpdir(), 'larq-cluster-'));
    const ports = await distinctFreePorts(12);
    const nodes = ports.slice(0, 6).map((port, i) => {
      const busPort = ports[6 + i];
      return new RedisProcess(
        port,
        [
          '--port',
          String(port),
          '--bind',
          '127.0.0.1',
          '--dir',
          dir,
          '--cluster-enabled',
          'yes',
          '--cluster-config-file',
          `nodes-${port}.conf`,
          '--cluster-port',
          String(busPort),
          '--cluster-node-timeout',
          String(nodeTimeoutMs),
          // A replica may always stand in for its primary, however long the primary went unheard:
          // tests kill primaries on purpose and want the promotion every time.
          '--cluster-replica-validity-factor',
          '0',
          '--save',
          '',
          '--appendonly',
          'no',
        ],
        dir,
      );
    });
    const cluster = new LocalCluster(nodes, dir);
    try {
      await Promise.all(nodes.map((n) => n.start()));
      await run(
        'redis-cli',
        [
          '--cluster',
          'create',
          ...ports.slice(0, 6).map((p) => `127.0.0.1:${p}`),
          '--cluster-replicas',
          '1',
          '--cluster-yes',
        ],
        {
          timeout: startTimeoutMs,
        },
      );
      await cluster.waitUntilHealthy(Math.max(0, began + startTimeoutMs - Date.now()));
    } catch (e) {
      await cluster.stop();
      throw e;
    }
    cluster.startedInMs = Date.now() - began;
    return cluster;
  }

  /** The client port of every node started, primaries and replicas, killed or not. */
  get ports(): number[] {
    return this.nodes.map((n) => n.port);
  }

  /** The ports of the nodes now running. */
  get alivePorts(): number[] {
    return this.nodes.filter((n) => n.alive).map((n) => n.port);
  }

  /**
   * A new ioredis Cluster client seeded with every node, closed by stop(). `options` are passed to
   * ioredis as they are.
   */
  client(options: ClusterOptions = {}): Cluster {
    const client = new Cluster(
      this.ports.map((port) => ({ host: '127.0.0.1', port })),
      options,
    );
    // A killed node refuses the client's connections until the map is refreshed; ioredis reports each
    // as an `error` event (and crashes the run when nobody listens) while its commands retry or reject.
    client.on('error', () => undefined);
    this.clients.push(client);
    return client;
  }

  /** The node processes' handles by port, for a test that wants to run commands on one node. */
  node(port: number): RedisProcess {
    const node = this.nodes.find((n) => n.port === port);
    if (!node) throw new Error(`no cluster node on port ${port}`);
    return node;
  }

  /** CLUSTER NODES as the node on `port` (default: the first one running) sees the cluster. */
  async view(port = this.alivePorts[0]): Promise<ClusterNodeView[]> {
    return parseClusterNodes(String(await this.node(port).command(['CLUSTER', 'NODES'])));
  }

  /** The hash slot of `key` (hash tags honoured), as the server computes it. */
  async slotOf(key: string): Promise<number> {
    return Number(await this.node(this.alivePorts[0]).command(['CLUSTER', 'KEYSLOT', key]));
  }

  /** The port of the primary serving `key`'s slot now. */
  async primaryPortOf(key: string): Promise<number> {
    const slot = await this.slotOf(key);
    const owner = (await this.view()).find((n) => n.role === 'master' && !n.failing && servesSlot(n, slot));
    if (!owner) throw new Error(`no live primary serves slot ${slot} (key ${key})`);
    return owner.port;
  }

  /**
   * Kills (SIGKILL) the primary owning `key`'s slot once one of its replicas has every write it ran, and
   * waits until that replica has been promoted and every surviving node agrees it serves the slot, with
   * cluster_state:ok everywhere.
   *
   * Redis Cluster replicates asynchronously: a write the primary acknowledged an instant before a crash may
   * never reach a replica, whatever the client does. So the primary first holds new writes (CLIENT PAUSE
   * WRITE: a write that arrives meanwhile waits, unrun, and dies with it) until a replica's offset equals
   * its own. A spec then counts larq's losses, not Redis'. (A WAIT sent for that on a connection of its own
   * waits for nothing: WAIT counts only the writes of the connection it is sent on.)
   */
  async killPrimaryOf(key: string, timeoutMs = 20000): Promise<ClusterFailover> {
    const slot = await this.slotOf(key);
    const view = await this.view();
    const primary = view.find((n) => n.role === 'master' && !n.failing && servesSlot(n, slot));
    if (!primary) throw new Error(`no live primary serves slot ${slot}`);
    const replicaPorts = view.filter((n) => n.primaryId === primary.id && !n.failing).map((n) => n.port);
    if (replicaPorts.length === 0) throw new Error(`the primary on port ${primary.port} has no replica to promote`);
    const primaryNode = this.node(primary.port);
    await primaryNode.holdWritesUntilReplicated(
      replicaPorts.map((port) => this.node(port)),
      timeoutMs,
    );
    const killedAt = Date.now();
    await primaryNode.kill();
    const promotedPort = await waitFor(
      `a replica of port ${primary.port} to serve slot ${slot}`,
      timeoutMs,
      async () => {
        for (const port of replicaPorts) {
          if ((await this.node(port).info('replication')).role === 'master') return port;
        }
        return undefined;
      },
    );
    await this.waitUntilAgreed(
      (views) =>
        views.every((v) => v.some((n) => n.port === promotedPort && n.role === 'master' && servesSlot(n, slot))),
      Math.max(0, killedAt + timeoutMs - Date.now()),
    );
    return { slot, killedPort: primary.port, promotedPort, failoverMs: Date.now() - killedAt };
  }

  /**
   * Starts a killed node again with its own nodes.conf: it rejoins, and as its slots went to another
   * node with a newer epoch, it comes back as that node's replica. Resolves once it is synced.
   */
  async restart(port: number, timeoutMs = 20000): Promise<void> {
    const node = this.node(port);
    await node.start();
    await waitFor(`the restarted node on port ${port} to sync as a replica`, timeoutMs, async () => {
      const info = await node.info('replication');
      return info.role === 'slave' && info.master_link_status === 'up' ? true : undefined;
    });
    await this.waitUntilAgreed(
      (views) => views.every((v) => v.some((n) => n.port === port && n.role === 'replica' && !n.failing)),
      timeoutMs,
    );
  }

  /** Closes every client made by client(), kills every node and removes the temp dir. */
  async stop(): Promise<void> {
    await Promise.all(this.clients.splice(0).map((c) => c.quit().catch(() => c.disconnect())));
    await Promise.all(this.nodes.map((n) => n.kill()));
    rmSync(this.dir, { recursive: true, force: true });
  }

  /** Waits until every running node sees 3 primaries with all slots, their replicas synced, state ok. */
  private async waitUntilHealthy(timeoutMs: number): Promise<void> {
    await this.waitUntilAgreed(
      (views) =>
        views.every((v) => {
          const primaries = v.filter((n) => n.role === 'master' && !n.failing && n.slots.length > 0);
          const covered = primaries.flatMap((n) => n.slots).reduce((sum, [from, to]) => sum + to - from + 1, 0);
          return (
            primaries.length === 3 &&
            covered === CLUSTER_SLOTS &&
            v.filter((n) => n.role === 'replica' && !n.failing).length === 3
          );
        }),
      timeoutMs,
    );
    await waitFor('every replica to finish its sync', timeoutMs, async () => {
      for (const node of this.nodes.filter((n) => n.alive)) {
        const info = await node.info('replication');
        if (info.role === 'slave' && info.master_link_status !== 'up') return undefined;
      }
      return true;
    });
  }

  /** Waits until every running node reports cluster_state:ok and `agreed` holds for their views. */
  private async waitUntilAgreed(agreed: (views: ClusterNodeView[][]) => boolean, timeoutMs: number): Promise<void> {
    await waitFor('every cluster node to agree and report cluster_state:ok', timeoutMs, async () => {
      const alive = this.nodes.filter((n) => n.alive);
      for (const node of alive) {
        const info = String(await node.command(['CLUSTER', 'INFO']));
        if (!info.includes('cluster_state:ok')) return undefined;
      }
      const views = await Promise.all(alive.map((n) => this.view(n.port)));
      return agreed(views) ? true : undefined;
    });
  }
}

function servesSlot(node: ClusterNodeView, slot: number): boolean {
  return node.slots.some(([from, to]) => slot >= from && slot <= to);
}

/** Parses CLUSTER NODES (`id ip:port@bus flags primary ping pong epoch link slot...`). */
export function parseClusterNodes(text: string): ClusterNodeView[] {
  return text
    .trim()
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => {
      const [id, address, flags, primary, , , , , ...slotFields] = line.trim().split(' ');
      const flagList = flags.split(',');
      const slots: [number, number][] = slotFields
        .filter((f) => !f.startsWith('[')) // slots being migrated or imported: `[slot->-id]`
        .map((f) => {
          const [from, to] = f.split('-').map(Number);
          return [from, to ?? from];
        });
      return {
        id,
        port: Number(/:(\d+)@/.exec(address)?.[1]),
        role: flagList.includes('master') ? 'master' : 'replica',
        failing: flagList.includes('fail') || flagList.includes('fail?'),
        primaryId: primary === '-' ? undefined : primary,
        slots,
      };
    });
}

/** `count` distinct free ports (the cluster bus needs its own port per node, beside the client one). */
async function distinctFreePorts(count: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < count) ports.add(await freePort());
  return [...ports];
}
