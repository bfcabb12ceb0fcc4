// Private MariaDB and PostgreSQL servers for the database cache store specs, started like the private
// redis-server (spec/support/redis.ts): a temporary data directory and a free port, stopped after the
// file's specs. Missing binaries skip the suite locally and fail it in CI.
import { ChildProcess, execFileSync, spawn } from 'child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'fs';
import { tmpdir, userInfo } from 'os';
import { join } from 'path';
import { freePort, hasBinary, inCI } from '../../support/redis';

/** A running server: how to reach it, and how to stop it. */
export interface SqlServer {
  /** mysql://... or postgres://... for the `larq` database. */
  url: string;
  stop(): Promise<void>;
}

// Debian keeps PostgreSQL's server binaries off PATH (/usr/lib/postgresql/<version>/bin) and MariaDB's
// in /usr/sbin, which a non-root PATH may lack: look there too.
function findBinary(name: string): string | undefined {
  if (hasBinary(name)) return name;
  const dirs = ['/usr/sbin'];
  if (existsSync('/usr/lib/postgresql')) {
    const versions = readdirSync('/usr/lib/postgresql').filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(b) - Number(a));
    dirs.push(...versions.map((v) => `/usr/lib/postgresql/${v}/bin`));
  }
  return dirs.map((d) => join(d, name)).find((path) => existsSync(path));
}

// The binaries' paths, in order; locally a missing one skips the suite, in CI it fails it.
function requireBinaries(ctx: Mocha.Context, names: string[], what: string): string[] {
  const found = names.map(findBinary);
  const missing = names.filter((_, i) => found[i] === undefined);
  if (missing.length === 0) return found as string[];
  if (inCI) throw new Error(`${what} is required in CI (missing: ${missing.join(', ')})`);
  ctx.skip();
}

// PostgreSQL refuses to run as root: run it as the `postgres` user when there is one.
function serviceUser(name: string): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  try {
    const uid = Number(execFileSync('id', ['-u', name], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', name], { encoding: 'utf8' }).trim());
    return { uid, gid };
  } catch {
    throw new Error(`running as root, but there is no "${name}" user to run the server as`);
  }
}

async function waitUntil(ready: () => Promise<void>, proc: ChildProcess, what: string): Promise<void> {
  const deadline = Date.now() + 30000;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`${what} exited with ${proc.exitCode} while starting`);
    try {
      await ready();
      return;
    } catch (e) {
      if (Date.now() > deadline) throw new Error(`${what} did not start: ${(e as Error).message}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

// Servers still running when the test process exits (a failed hook skipped the stop) are killed then.
const running = new Set<ChildProcess>();
process.once('exit', () => running.forEach((p) => p.kill('SIGKILL')));

function stopper(proc: ChildProcess, dir: string, signal: NodeJS.Signals): () => Promise<void> {
  running.add(proc);
  proc.once('exit', () => running.delete(proc));
  return async () => {
    if (proc.exitCode === null) {
      const exited = new Promise((r) => proc.once('exit', r));
      proc.kill(signal);
      await Promise.race([exited, new Promise((r) => setTimeout(r, 10000))]);
    }
    rmSync(dir, { recursive: true, force: true });
  };
}

/** A private MariaDB (mariadbd) with an empty `larq` database; root without a password. */
export async function startMariaDb(ctx: Mocha.Context): Promise<SqlServer> {
  const [mariadbd, installDb] = requireBinaries(ctx, ['mariadbd', 'mariadb-install-db'], 'MariaDB (mariadb-server)');
  const dir = mkdtempSync(join(tmpdir(), 'larq-mariadb-'));
  const osUser = `--user=${userInfo().username}`; // mariadbd runs as whoever starts it, root included
  const data = join(dir, 'data');
  execFileSync(installDb, ['--no-defaults', `--datadir=${data}`, osUser, '--auth-root-authentication-method=normal', '--skip-test-db'], { stdio: 'ignore' });
  const port = await freePort();
  const proc = spawn(
    mariadbd,
    ['--no-defaults', `--datadir=${data}`, `--socket=${join(dir, 'sock')}`, `--port=${port}`, '--bind-address=127.0.0.1', osUser, '--skip-grant-tables', '--skip-log-bin', '--innodb-buffer-pool-size=16M', `--pid-file=${join(dir, 'pid')}`],
    { stdio: 'ignore' },
  );
  const stop = stopper(proc, dir, 'SIGTERM');
  try {
    const mysql = require('mysql2/promise') as typeof import('mysql2/promise');
    await waitUntil(async () => {
      const conn = await mysql.createConnection({ host: '127.0.0.1', port, user: 'root' });
      await conn.query('create database if not exists larq');
      await conn.end();
    }, proc, 'mariadbd');
  } catch (e) {
    await stop();
    throw e;
  }
  return { url: `mysql://root@127.0.0.1:${port}/larq`, stop };
}

/** A private PostgreSQL with trust authentication and a `larq` database. */
export async function startPostgres(ctx: Mocha.Context): Promise<SqlServer> {
  const [postgres, initdb] = requireBinaries(ctx, ['postgres', 'initdb'], 'PostgreSQL (postgresql)');
  const user = serviceUser('postgres');
  const dir = mkdtempSync(join(tmpdir(), 'larq-pg-'));
  if (user) chownSync(dir, user.uid, user.gid);
  const data = join(dir, 'data');
  execFileSync(initdb, ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync'], { stdio: 'ignore', ...user });
  const port = await freePort();
  const proc = spawn(postgres, ['-D', data, '-p', String(port), '-k', dir, '-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off'], { stdio: 'ignore', ...user });
  // SIGINT is PostgreSQL's fast shutdown: it does not wait for clients to disconnect.
  const stop = stopper(proc, dir, 'SIGINT');
  try {
    const pg = require('pg') as typeof import('pg');
    await waitUntil(async () => {
      const client = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', database: 'postgres' });
      client.on('error', () => undefined);
      await client.connect();
      try {
        const exists = await client.query("select 1 from pg_database where datname = 'larq'");
        if (exists.rowCount === 0) await client.query('create database larq');
      } finally {
        await client.end();
      }
    }, proc, 'postgres');
  } catch (e) {
    await stop();
    throw e;
  }
  return { url: `postgres://postgres@127.0.0.1:${port}/larq`, stop };
}
