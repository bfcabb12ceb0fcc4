// A small HTTP server for Prometheus to scrape: GET /metrics answers with a registry's text format.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { InvalidOptionError } from '../errors';
import type { PrometheusRegistry } from './JobMetrics';

/** A running metrics server: where it listens, and how to stop it. */
export interface MetricsServer {
  readonly server: Server;
  /** The address it listens on (the port the system chose when asked for 0). */
  readonly address: AddressInfo;
  close(): Promise<void>;
}

/** Where to listen: `PORT` or `HOST:PORT` (`[::1]:9464` for IPv6), as `larq work --metrics` takes it. */
export function parseListenAddress(value: string): { host: string | undefined; port: number } {
  const match = /^(?:(\[[^\]]+\]|[^:]+):)?(\d+)$/.exec(value.trim());
  const port = match ? Number(match[2]) : NaN;
  if (!match || !Number.isInteger(port) || port < 0 || port > 65535) {
    throw new InvalidOptionError('metrics', `must be PORT or HOST:PORT (e.g. 9464 or 127.0.0.1:9464), got "${value}"`);
  }
  const host = match[1]?.replace(/^\[(.*)\]$/, '$1');
  return { host, port };
}

/** Serve `registry` on GET /metrics at `port` (and `host`; default every interface). */
export async function serveMetrics(
  registry: PrometheusRegistry,
  listen: { port: number; host?: string },
): Promise<MetricsServer> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' || path !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found: metrics are at GET /metrics\n');
      return;
    }
    registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': registry.contentType }).end(text),
      (e: unknown) =>
        res.writeHead(500, { 'content-type': 'text/plain' }).end(`${e instanceof Error ? e.message : String(e)}\n`),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(listen.port, listen.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    server,
    address: server.address() as AddressInfo,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
