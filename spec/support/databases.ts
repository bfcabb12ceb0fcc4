// Throwaway databases for the specs of the SQL stores (failed jobs, cache): a temp SQLite file, and a
// fresh database on the machine's running MariaDB and PostgreSQL servers (dropped afterwards), so runs
// never share tables. Without a server the suite is skipped locally and fails in CI.
//
// Environment (defaults in brackets): LARQ_MYSQL_HOST [127.0.0.1], LARQ_MYSQL_PORT [3306],
// LARQ_MYSQL_SOCKET [/run/mysqld/mysqld.sock, tried when TCP fails], LARQ_MYSQL_USER [root],
// LARQ_MYSQL_PASSWORD [], LARQ_PG_HOST [127.0.0.1], LARQ_PG_PORT [5432], LARQ_PG_USER [postgres],
// LARQ_PG_PASSWORD [], LARQ_PG_DATABASE [test] (the database the fresh ones are created from).
import { randomBytes } from 'crypto';
import { existsSync, mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import * as mysql from 'mysql2/promise';
import Sqlite from 'better-sqlite3';
import { Client as PgClient, Pool as PgPool } from 'pg';
import type { SqlConnectionConfig } from '../../lib/sql';
import { inCI } from './redis';

/** The database kinds every store is tested on. */
export type DatabaseKind = 'sqlite' | 'mariadb' | 'pgsql';

/** All of them, in test order. */
export const DATABASE_KINDS: DatabaseKind[] = ['sqlite', 'mariadb', 'pgsql'];

/** One fresh database. */
export interface TestDatabase {
  kind: DatabaseKind;
  /** Settings larq opens itself. */
  config: SqlConnectionConfig;
  /** Path of the file (sqlite only). */
  file?: string;
  /** Drop the database (close every client on it first). */
  dispose(): Promise<void>;
}

/**
 * The database's own driver client, as a user would pass it in: a better-sqlite3 Database, or a mysql2
 * or pg pool (`single`: one mysql2 Connection or pg Client instead).
 */
export async function nativeClient(
  db: TestDatabase,
  opts: { single?: boolean } = {},
): Promise<{ config: SqlConnectionConfig; close(): Promise<void> }> {
  const c = db.config;
  if ('client' in c) throw new Error('nativeClient: the test database has settings, not a client');
  if (c.driver === 'sqlite') {
    const sqlite = new Sqlite(c.database);
    return { config: { driver: 'sqlite', client: sqlite }, close: async () => void sqlite.close() };
  }
  if (c.driver === 'pgsql') {
    const settings = { host: c.host, port: c.port, user: c.user, password: c.password, database: c.database };
    if (opts.single) {
      const client = new PgClient(settings);
      await client.connect();
      return { config: { driver: 'pgsql', client }, close: () => client.end() };
    }
    const pool = new PgPool(settings);
    return { config: { driver: 'pgsql', client: pool }, close: () => pool.end() };
  }
  const settings = {
    host: c.host,
    port: c.port,
    socketPath: c.socketPath,
    user: c.user,
    password: c.password,
    database: c.database,
    charset: 'utf8mb4_unicode_ci',
  };
  if (opts.single) {
    const conn = await mysql.createConnection(settings);
    return { config: { driver: c.driver, client: conn }, close: () => conn.end() };
  }
  const pool = mysql.createPool(settings);
  return { config: { driver: c.driver, client: pool }, close: () => pool.end() };
}

/** A table name no other test uses: `base` and a random suffix. */
export function freshTable(base = 'failed_jobs'): string {
  return `${base}_${randomBytes(4).toString('hex')}`;
}

/** Call from a `before` hook: a fresh database, or a skip (locally) / failure (CI) without a server. */
export async function openTestDatabase(ctx: Mocha.Context, kind: DatabaseKind): Promise<TestDatabase> {
  try {
    if (kind === 'sqlite') return openSqlite();
    if (kind === 'mariadb') return await openMariadb();
    return await openPgsql();
  } catch (e) {
    const why = `${kind} is not reachable: ${(e as Error).message}`;
    if (inCI) throw new Error(`${why} (CI must provide MariaDB and PostgreSQL)`);
    process.stderr.write(`      skipped: ${why}\n`);
    ctx.skip();
  }
}

function openSqlite(): TestDatabase {
  const dir = mkdtempSync(join(tmpdir(), 'larq-sql-'));
  const file = join(dir, 'database.sqlite');
  return {
    kind: 'sqlite',
    config: { driver: 'sqlite', database: file },
    file,
    async dispose() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function env(name: string, fallback: string): string {
  const v = process.env[name];
  return v === undefined || v === '' ? fallback : v;
}

async function openMariadb(): Promise<TestDatabase> {
  const user = env('LARQ_MYSQL_USER', 'root');
  const password = env('LARQ_MYSQL_PASSWORD', '');
  const tcp = { host: env('LARQ_MYSQL_HOST', '127.0.0.1'), port: Number(env('LARQ_MYSQL_PORT', '3306')) };
  const socket = env('LARQ_MYSQL_SOCKET', '/run/mysqld/mysqld.sock');
  let where: { host?: string; port?: number; socketPath?: string } = tcp;
  let admin: mysql.Connection;
  try {
    admin = await mysql.createConnection({ ...tcp, user, password, connectTimeout: 3000 });
  } catch (e) {
    if (!existsSync(socket)) throw e;
    where = { socketPath: socket };
    admin = await mysql.createConnection({ socketPath: socket, user, password, connectTimeout: 3000 });
  }
  const database = `larq_test_${randomBytes(6).toString('hex')}`;
  await admin.query(`CREATE DATABASE \`${database}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
  return {
    kind: 'mariadb',
    config: { driver: 'mariadb', ...where, user, password, database },
    async dispose() {
      try {
        await admin.query(`DROP DATABASE IF EXISTS \`${database}\``);
      } finally {
        await admin.end();
      }
    },
  };
}

async function openPgsql(): Promise<TestDatabase> {
  const settings = {
    host: env('LARQ_PG_HOST', '127.0.0.1'),
    port: Number(env('LARQ_PG_PORT', '5432')),
    user: env('LARQ_PG_USER', 'postgres'),
    password: process.env.LARQ_PG_PASSWORD || undefined,
  };
  const admin = new PgClient({ ...settings, database: env('LARQ_PG_DATABASE', 'test'), connectionTimeoutMillis: 3000 });
  await admin.connect();
  const database = `larq_test_${randomBytes(6).toString('hex')}`;
  try {
    await admin.query(`CREATE DATABASE "${database}" ENCODING 'UTF8' TEMPLATE template0`);
  } catch (e) {
    await admin.end();
    throw e;
  }
  return {
    kind: 'pgsql',
    config: { driver: 'pgsql', ...settings, database },
    async dispose() {
      try {
        // FORCE (PostgreSQL 13+) ends a connection a failed test left open.
        await admin.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
      } finally {
        await admin.end();
      }
    },
  };
}
