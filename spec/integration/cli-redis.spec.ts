// The larq command reaches Redis the ways a Laravel app's .env can say: a Unix socket in REDIS_HOST, and
// TLS with REDIS_SCHEME=tls (verified against LARQ_REDIS_CA). Real redis-servers of the spec's own.
import { expect } from 'chai';
import { execFileSync } from 'child_process';
import { runLarq } from '../support/larqProcess';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import Redis, { type RedisOptions } from 'ioredis';
import { RedisQueue } from '../../lib/RedisQueue';
import { compileCli, type CompiledCli } from '../support/compiled';
import { ChainStep } from '../support/phpJobs';
import { freePort, hasBinary, inCI } from '../support/redis';
import { RedisProcess } from '../support/redisProcess';

describe('the larq command over a Unix socket and over TLS', function () {
  this.timeout(60000);
  let cli: CompiledCli;
  let dir: string;
  const servers: RedisProcess[] = [];

  before(function () {
    if (!hasBinary('redis-server') || !hasBinary('openssl')) {
      if (inCI) throw new Error('redis-server and openssl are required in CI');
      this.skip();
    }
    cli = compileCli();
    dir = mkdtempSync(join(tmpdir(), 'larq-cli-redis-'));
  });
  after(async () => {
    for (const s of servers) await s.kill();
    cli?.remove();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  async function startServer(port: number, args: string[], connection: RedisOptions): Promise<void> {
    const server = new RedisProcess(port, ['--save', '', '--appendonly', 'no', ...args], dir, connection);
    servers.push(server);
    await server.start();
  }

  function larq(
    env: Record<string, string>,
    ...args: string[]
  ): Promise<{ code: number | null; stdout: string; stderr: string }> {
    const file = join(dir, `${Math.random().toString(36).slice(2)}.env`);
    writeFileSync(
      file,
      Object.entries({ APP_NAME: 'Shop', LARQ_LARAVEL: '12', ...env })
        .map(([k, v]) => `${k}=${v}`)
        .join('\n') + '\n',
    );
    return runLarq(cli.main, [...args, `--env=${file}`]);
  }

  it('reads the queue through the socket REDIS_HOST names', async function () {
    const socket = join(dir, 'redis.sock');
    await startServer(0, ['--port', '0', '--unixsocket', socket, '--unixsocketperm', '700'], { path: socket });
    const queue = new RedisQueue({ connection: { path: socket, db: 3 }, prefix: 'shop_database_', laravel: 12 });
    await queue.push(ChainStep.make({ step: 1 }));
    await queue.close();
    const run = await larq({ REDIS_HOST: socket, REDIS_DB: '3' }, 'size');
    expect(run.code, run.stderr).to.equal(0);
    expect(run.stdout).to.match(/^redis:default +1 +1 +0 +0$/m);
  });

  it('speaks TLS with REDIS_SCHEME=tls, verifying the server against LARQ_REDIS_CA', async function () {
    const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' });
    openssl(
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      'ca.key',
      '-out',
      'ca.crt',
      '-days',
      '1',
      '-subj',
      '/CN=larq-test-ca',
    );
    openssl(
      'req',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      'server.key',
      '-out',
      'server.csr',
      '-subj',
      '/CN=localhost',
    );
    writeFileSync(join(dir, 'ext.cnf'), 'subjectAltName=DNS:localhost,IP:127.0.0.1\n');
    openssl(
      'x509',
      '-req',
      '-in',
      'server.csr',
      '-CA',
      'ca.crt',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-out',
      'server.crt',
      '-days',
      '1',
      '-extfile',
      'ext.cnf',
    );
    const port = await freePort();
    const ca = join(dir, 'ca.crt');
    const tlsArgs = [
      '--port',
      '0',
      '--tls-port',
      String(port),
      '--tls-cert-file',
      join(dir, 'server.crt'),
      '--tls-key-file',
      join(dir, 'server.key'),
      '--tls-ca-cert-file',
      ca,
      '--tls-auth-clients',
      'no',
    ];
    const tlsClient = () =>
      new Redis({
        host: 'localhost',
        port,
        tls: { ca: readFileSync(ca) },
        lazyConnect: true,
        maxRetriesPerRequest: 0,
        retryStrategy: () => null,
      });
    await startServer(port, tlsArgs, { host: 'localhost', tls: { ca: readFileSync(ca) } });
    const queue = new RedisQueue({ connection: tlsClient(), prefix: 'shop_database_', laravel: 12 });
    await queue.push(ChainStep.make({ step: 1 }));
    await queue.push(ChainStep.make({ step: 2 }));
    await queue.close();
    const env = { REDIS_SCHEME: 'tls', REDIS_HOST: 'localhost', REDIS_PORT: String(port) };
    const run = await larq({ ...env, LARQ_REDIS_CA: ca }, 'size');
    expect(run.code, run.stderr).to.equal(0);
    expect(run.stdout).to.match(/^redis:default +2 +2 +0 +0$/m);
    const unverified = await larq(env, 'size');
    expect(unverified.code).to.equal(1);
    expect(unverified.stderr).to.match(/^larq size: cannot reach Redis at rediss:\/\/localhost:\d+\/0: .*certificate/);
  });
});
