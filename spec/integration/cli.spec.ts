// The `larq` command as a new user would try it: a Laravel-style .env, a handlers module, real processes
// on a private redis-server, failed jobs in a SQLite failed_jobs table.
import { expect } from 'chai';
import { spawn, type ChildProcess } from 'child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import Redis from 'ioredis';
import { createFailedJobsTable } from '../../lib/failed';
import { RedisQueue } from '../../lib/RedisQueue';
import { ChainStep } from '../support/phpJobs';
import { randomPrefix, rawClient, requireRedis } from '../support/redis';

const ROOT = join(__dirname, '..', '..');

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function start(args: string[]): { child: ChildProcess; done: Promise<Run> } {
  // The .env file decides; variables of the same name in this process would win over it, as in Laravel.
  const env = { ...process.env };
  for (const name of ['REDIS_URL', 'REDIS_PREFIX', 'REDIS_PORT', 'DB_CONNECTION', 'DB_DATABASE', 'CACHE_STORE', 'CACHE_DRIVER', 'QUEUE_CONNECTION', 'LARQ_LARAVEL']) delete env[name];
  const child = spawn(process.execPath, ['-r', 'ts-node/register/transpile-only', join(ROOT, 'lib', 'cli', 'main.ts'), ...args], { cwd: ROOT, env });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => (stdout += d));
  child.stderr!.on('data', (d) => (stderr += d));
  const done = new Promise<Run>((resolve) => child.on('exit', (code) => resolve({ code, stdout, stderr })));
  return { child, done };
}

const larq = (...args: string[]) => start(args).done;

describe('the larq command', function () {
  this.timeout(60000);
  let port: number;
  let client: Redis;
  let dir: string;
  let env: string;
  let prefix: string;
  let sqlite: string;

  before(async function () {
    port = await requireRedis(this);
    client = rawClient(port);
    dir = mkdtempSync(join(tmpdir(), 'larq-cli-'));
  });
  after(() => {
    client?.disconnect();
    rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(async () => {
    prefix = randomPrefix();
    sqlite = join(dir, `${prefix}.sqlite`);
    env = join(dir, `${prefix}.env`);
    // A Laravel 8 app's .env, as a user would point larq at it.
    writeFileSync(
      env,
      [
        'APP_NAME="My Shop"',
        'APP_KEY=base64:a2tra2tra2tra2tra2tra2tra2tra2tra2tra2tra2s=',
        'QUEUE_CONNECTION=redis',
        `REDIS_HOST=127.0.0.1`,
        `REDIS_PORT=${port}`,
        `REDIS_PREFIX=${prefix}`,
        'DB_CONNECTION=sqlite',
        `DB_DATABASE=${sqlite}`,
        'CACHE_DRIVER=redis',
        'LARQ_LARAVEL=8',
        '',
      ].join('\n'),
    );
    await createFailedJobsTable({ driver: 'sqlite', database: sqlite });
  });

  async function push(...steps: number[]): Promise<void> {
    const q = new RedisQueue({ connection: { port }, prefix, laravel: 8 });
    for (const step of steps) await q.push(ChainStep.make({ step }));
    await q.close();
  }

  it('--help lists the commands, and each command lists its flags', async function () {
    const top = await larq('--help');
    expect(top.code).to.equal(0);
    for (const c of ['work', 'size', 'monitor', 'clear', 'failed', 'retry', 'forget', 'flush', 'restart']) expect(top.stdout).to.include(`  ${c} `);
    const work = await larq('work', '--help');
    for (const flag of ['--queue', '--tries', '--backoff', '--timeout', '--sleep', '--memory', '--max-jobs', '--max-time', '--stop-when-empty', '--once', '--rest', '--concurrency', '--handlers']) {
      expect(work.stdout).to.include(flag);
    }
  });

  it('a wrong flag or value exits 2 with one line naming it', async function () {
    const wrong = await larq('work', '--tires=3', `--env=${env}`);
    expect(wrong.code).to.equal(2);
    expect(wrong.stderr.trim()).to.equal('larq work: unknown option --tires (see larq work --help)');
    const bad = await larq('work', '--handlers=x', '--timeout=soon');
    expect(bad.code).to.equal(2);
    expect(bad.stderr.trim()).to.equal('larq work: --timeout must be a whole number >= 0, got "soon"');
    expect((await larq('frobnicate')).stderr.trim()).to.equal('larq: unknown command "frobnicate" (larq --help lists the commands)');
  });

  it('work runs the jobs, fails the failing one into failed_jobs; failed, retry, size and clear manage them', async function () {
    await push(1, 2, 13);
    const run = await larq('work', `--env=${env}`, '--handlers=spec/support/cli/handlers.ts', '--stop-when-empty', '--sleep=0');
    expect(run.code, run.stderr).to.equal(0);
    expect(run.stdout.match(/App\\Jobs\\ChainStep \.+ \d+ms DONE/g)).to.have.length(2);
    expect(run.stdout.match(/App\\Jobs\\ChainStep \.+ \d+ms FAIL/g)).to.have.length(1);

    const failed = await larq('failed', `--env=${env}`);
    expect(failed.stdout.trim().split('\n')).to.have.length(1);
    expect(failed.stdout).to.match(/  redis  default  App\\Jobs\\ChainStep/);

    const retry = await larq('retry', 'all', `--env=${env}`);
    expect(retry.stdout).to.match(/The failed job \[[0-9a-f-]{36}\] has been pushed back onto the queue!/);
    expect((await larq('failed', `--env=${env}`)).stdout.trim()).to.equal('No failed jobs found.');
    const [pushed] = await client.lrange(`${prefix}queues:default`, 0, -1);
    expect(JSON.parse(pushed)).to.include({ attempts: 0, displayName: 'App\\Jobs\\ChainStep' });

    const sizes = await larq('size', `--env=${env}`);
    expect(sizes.stdout).to.match(/default\s+1\s+1\s+0\s+0\s+OK/);
    const monitor = await larq('monitor', 'redis:default', '--max=1', `--env=${env}`);
    expect(monitor.code).to.equal(1);
    expect(monitor.stdout).to.include('ALERT');
    expect((await larq('clear', '--force', `--env=${env}`)).stdout.trim()).to.equal('Cleared 1 jobs from the [default] queue');
    expect(await client.keys(`${prefix}*`)).to.deep.equal([]);
  });

  it('restart makes a running larq work exit 0, through the cache as queue:restart does', async function () {
    const worker = start(['work', `--env=${env}`, '--handlers=spec/support/cli/handlers.ts', '--sleep=0.1']);
    await new Promise((r) => setTimeout(r, 1500)); // started and has read the restart key
    await push(1); // proves it is working, not stuck
    await new Promise((r) => setTimeout(r, 500));
    const restart = await larq('restart', `--env=${env}`);
    expect(restart.stdout.trim()).to.equal('Broadcasting queue restart signal.');
    const exit = await Promise.race([worker.done, new Promise<null>((r) => setTimeout(() => r(null), 10000))]);
    if (exit === null) worker.child.kill('SIGKILL');
    expect(exit?.code).to.equal(0);
    expect(exit?.stdout).to.match(/ChainStep \.+ \d+ms DONE/);
    // The signal sits where Laravel 8's cache keeps it: cache db 1, Redis prefix + "my_shop_cache" + ':' + key.
    const cacheDb = new Redis({ port, db: 1 });
    const stamp = await cacheDb.get(`${prefix}my_shop_cache:illuminate:queue:restart`);
    cacheDb.disconnect();
    expect(Number(stamp)).to.be.closeTo(Date.now() / 1000, 60);
  });
});
