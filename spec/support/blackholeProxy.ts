// A TCP proxy between a client and a real redis-server that can go silent without closing anything: what a
// NAT or firewall dropping its state, or a hung proxy, does to a connection. While it is a black hole no
// byte crosses it either way, the sockets stay open, and new connections are accepted but never reach
// Redis. heal() lets what was held back through, as TCP's retransmissions would once the path is back.
import { createConnection, createServer, type Server, type Socket } from 'net';

export class BlackholeProxy {
  private readonly pairs = new Set<[Socket, Socket | undefined]>();
  private silent = false;
  private readonly held: Socket[] = [];

  private constructor(
    private readonly server: Server,
    private readonly targetPort: number,
  ) {
    server.on('connection', (client) => this.accept(client));
  }

  /** Starts a proxy on a free port of 127.0.0.1 in front of the redis-server on `targetPort`. */
  static async start(targetPort: number): Promise<BlackholeProxy> {
    const server = createServer({ pauseOnConnect: true });
    const proxy = new BlackholeProxy(server, targetPort);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return proxy;
  }

  /** The port clients connect to. */
  get port(): number {
    const address = this.server.address();
    if (address === null || typeof address === 'string') throw new Error('the proxy is not listening');
    return address.port;
  }

  /** How many client connections are open through it now. */
  get connections(): number {
    return this.pairs.size + this.held.length;
  }

  /** Stop forwarding, both ways, on every connection and every new one; close nothing. */
  blackhole(): void {
    this.silent = true;
    for (const [client, upstream] of this.pairs) {
      client.pause();
      upstream?.pause();
    }
  }

  /** Forward again: held bytes flow, held connections reach Redis. */
  heal(): void {
    this.silent = false;
    for (const [client, upstream] of this.pairs) {
      client.resume();
      upstream?.resume();
    }
    for (const client of this.held.splice(0)) this.connect(client);
  }

  /** Closes every connection and the listener. */
  async stop(): Promise<void> {
    for (const [client, upstream] of this.pairs) {
      client.destroy();
      upstream?.destroy();
    }
    for (const client of this.held.splice(0)) client.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(client: Socket): void {
    client.on('error', () => undefined);
    if (this.silent) {
      this.held.push(client);
      client.once('close', () => {
        const at = this.held.indexOf(client);
        if (at >= 0) this.held.splice(at, 1);
      });
      return;
    }
    this.connect(client);
  }

  private connect(client: Socket): void {
    const upstream = createConnection({ host: '127.0.0.1', port: this.targetPort });
    const pair: [Socket, Socket | undefined] = [client, upstream];
    this.pairs.add(pair);
    upstream.on('error', () => undefined);
    const close = () => {
      this.pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.once('close', close);
    upstream.once('close', close);
    client.pipe(upstream);
    upstream.pipe(client);
    if (this.silent) {
      client.pause();
      upstream.pause();
    } else {
      client.resume();
    }
  }
}
