// The `larq` command as a user runs it: a real process, a Laravel-style .env, a handlers module, a
// private redis-server, and failed jobs in a SQLite failed_jobs table.
import { expect } from 'chai';
import { spawn, type ChildProcess } from 'child_process';
import { readFileSync, writeFileSync, appendFileSync } from 'fs';
import { join } from 'path';
import Redis from 'ioredis';
import { createCacheTables } from '../../lib/cache';
import { createFailedJobsTable } from '../../lib/failed';
import { Encrypter } from '../../lib/php/Encrypter';
import { compileCli, type CompiledCli } from '../support/compiled';
import { ChainStep, SecretJob } from '../support/phpJobs';
import { useRedisQueue } from '../support/useRedisQueue';
import { useTempDir } from '../support/useTempDir';

const ROOT = join(__dirname, '..', '..');
const APP_KEY = 'base64:a2tra2tra2tra2tra2tra2tra2tra2tra2tra2tra2s=';

/** A running larq process and what it printed so far. */
interface Larq {
  child: ChildProcess;
  stdout: string;
  stderr: string;
  done: Promise<{ code: number | null; stdout: string; stderr: string }>;
}

// lib/ and the specs' handlers module, transpiled once for this file (see spec/support/compiled.ts).
let cli: CompiledCli | undefined;
let HANDLERS = '';

function start(args: string[], extraEnv: Record<string, string> = {}): Larq {
  // The .env file decides: variables of the same names in this process would win over it, as in Laravel.
  const env: Record<string, string | undefined> = { ...process.env, ...extraEnv };
  for (const name of Object.keys(env))
    if (/^(APP|REDIS|DB|CACHE|QUEUE|LARQ)_/.test(name) && !(name in extraEnv)) delete env[name];
  const child = spawn(process.execPath, [cli!.main, ...args], { cwd: ROOT, env });
  const run = { child, stdout: '', stderr: '' } as Larq;
  child.stdout!.on('data', (d) => (run.stdout += d));
  child.stderr!.on('data', (d) => (run.stderr += d));
  run.done = new Promise((resolve) =>
    child.on('exit', (code) => resolve({ code, stdout: run.stdout, stderr: run.stderr })),
  );
  return run;
}

const larq = (...args: string[]) => start(args).done;

async function waitFor(run: Larq, pattern: RegExp, ms = 15000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!pattern.test(run.stdout)) {
    if (Date.now() > deadline) throw new Error(`no ${pattern} in larq's output:\n${run.stdout}\n${run.stderr}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('the larq command', function () {
  this.timeout(60000);
  const redis = useRedisQueue();
  const temp = useTempDir('cli', 'all');
  let env: string;
  let sqlite: string;
  let out: string;

  before(async function () {
    cli = compileCli();
    HANDLERS = `--handlers=${cli.handlers}`;
  });
  after(() => {
    cli?.remove();
  });
  beforeEach(async () => {
    sqlite = join(temp.path, `${redis.prefix}.sqlite`);
    env = join(temp.path, `${redis.prefix}.env`);
    out = join(temp.path, `${redis.prefix}.out`);
    // A Laravel 13 app's .env as a user would point larq at it; the cache is the skeleton's database store.
    writeFileSync(
      env,
      [
        'APP_NAME="My Shop"',
        `APP_KEY=${APP_KEY}`,
        'QUEUE_CONNECTION=redis',
        'REDIS_HOST=127.0.0.1',
        'REDIS_PASSWORD=null',
        `REDIS_PORT=${redis.port}`,
        `REDIS_PREFIX=${redis.prefix}`,
        'DB_CONNECTION=sqlite',
        `DB_DATABASE=${sqlite}`,
        'QUEUE_FAILED_DRIVER=database-uuids',
        'CACHE_STORE=database',
        '',
      ].join('\n'),
    );
    writeFileSync(out, '');
    await createFailedJobsTable({ driver: 'sqlite', database: sqlite });
    await createCacheTables({ driver: 'sqlite', database: sqlite });
  });

  async function push(...steps: number[]): Promise<void> {
    await pushAs(13, ...steps);
  }

  async function pushAs(laravel: 8 | 13, ...steps: number[]): Promise<void> {
    const q = redis.open({ laravel, encrypter: new Encrypter(APP_KEY) });
    for (const step of steps)
      await q.push(
        step === 0 ? { command: SecretJob.make({ card: '4242' }), encrypt: true } : ChainStep.make({ step }),
      );
    await q.close();
  }

  it('--help lists the commands, and larq work --help its flags', async function () {
    const top = await larq('--help');
    expect(top.code).to.equal(0);
    for (const c of [
      'work',
      'size',
      'monitor',
      'clear',
      'failed',
      'retry',
      'forget',
      'flush',
      'prune-failed',
      'restart',
      'types',
    ])
      expect(top.stdout).to.include(`\n  ${c} `);
    const work = await larq('work', '--help');
    expect(work.code).to.equal(0);
    const flags = [
      '--handlers',
      '--queue',
      '--tries',
      '--backoff',
      '--timeout',
      '--sleep',
      '--rest',
      '--memory',
      '--max-jobs',
      '--max-time',
      '--stop-when-empty',
      '--once',
      '--force',
      '--concurrency',
      '--env',
      '--app',
    ];
    for (const flag of flags) expect(work.stdout).to.include(`  ${flag}`);
    expect(work.stdout).to.include('npm install --save-dev tsx');
  });

  it('a wrong flag, value or command exits 2 with one line naming it', async function () {
    expect(await larq('work', '--tires=3', `--env=${env}`)).to.deep.include({
      code: 2,
      stderr: 'larq work: unknown option --tires; did you mean --tries? (see larq work --help)\n',
    });
    expect(await larq('work', '--handlers=x', '--timeout=soon')).to.deep.include({
      code: 2,
      stderr: 'larq work: --timeout must be a whole number >= 0, got "soon"\n',
    });
    expect(await larq('frobnicate')).to.deep.include({
      code: 2,
      stderr: 'larq: unknown command "frobnicate" (larq --help lists the commands)\n',
    });
  });

  it('work runs the jobs and fails the failing one into failed_jobs; failed, retry, size, monitor and clear manage them', async function () {
    await push(1, 0, 2, 13);
    const run = await start(['work', `--env=${env}`, HANDLERS, '--stop-when-empty', '--sleep=0'], {
      LARQ_SPEC_OUT: out,
    }).done;
    expect(run.code, run.stderr).to.equal(0);
    expect(
      run.stdout.match(/^ {2}\d{4}-\d\d-\d\d \d\d:\d\d:\d\d App\\Jobs\\ChainStep \.+ [\d.]+m?s DONE$/gm),
    ).to.have.length(2);
    expect(run.stdout.match(/App\\Jobs\\SecretJob \.+ [\d.]+m?s DONE/g)).to.have.length(1);
    expect(run.stdout.match(/App\\Jobs\\ChainStep \.+ [\d.]+m?s FAIL/g)).to.have.length(1);
    expect(run.stdout).to.include('Worker stopped: empty (status 0)');
    // the failure's fate, reason and uuid on stderr, for larq failed / larq retry
    expect(run.stderr).to.match(
      /^larq work: App\\Jobs\\ChainStep \[[0-9a-f-]{36}\] \(attempt 1\) failed for good \(Error\): unlucky step\n$/,
    );
    expect(readFileSync(out, 'utf8')).to.equal('4242\n');

    const failed = await larq('failed', `--env=${env}`);
    const lines = failed.stdout.trim().split('\n');
    expect(lines).to.have.length(2);
    expect(lines[0]).to.match(/^ID +Connection +Queue +Class +Failed At$/);
    expect(lines[1]).to.match(/^[0-9a-f-]{36} +redis +default +App\\Jobs\\ChainStep +\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);

    const retry = await larq('retry', 'all', `--env=${env}`);
    expect(retry.code).to.equal(0);
    expect(retry.stdout).to.match(/^The failed job \[[0-9a-f-]{36}\] has been pushed back onto the queue!$/m);
    expect((await larq('failed', `--env=${env}`)).stdout.trim()).to.equal('No failed jobs found.');
    const [pushed] = await redis.client.lrange(`${redis.prefix}queues:default`, 0, -1);
    expect(JSON.parse(pushed)).to.include({ attempts: 0, displayName: 'App\\Jobs\\ChainStep' });

    const sizes = await larq('size', `--env=${env}`);
    expect(sizes.stdout).to.match(/^redis:default +1 +1 +0 +0$/m);
    const monitor = await larq('monitor', 'redis:default,emails', '--max=1', `--env=${env}`);
    expect(monitor.code).to.equal(1);
    expect(monitor.stdout).to.match(/^Queue +Size +Pending +Delayed +Reserved +Oldest pending +Status$/m);
    // the oldest pending job's age, from its 12.11+ createdAt, as queue:monitor shows it
    expect(monitor.stdout)
      .to.match(/^redis:default +1 +1 +0 +0 +\d+ seconds? ago +ALERT$/m)
      .and.match(/^redis:emails +0 +0 +0 +0 +N\/A +OK$/m);
    const json = JSON.parse((await larq('monitor', '--json', `--env=${env}`)).stdout) as { oldest_pending: number }[];
    expect(json[0].oldest_pending).to.be.closeTo(Date.now() / 1000, 60);

    const refused = await larq('clear', `--env=${env}`); // stdin is a pipe: no one to confirm
    expect(refused.code).to.equal(1);
    expect(refused.stderr).to.include('without --force');
    expect((await larq('clear', '--force', `--env=${env}`)).stdout.trim()).to.equal(
      'Cleared 1 jobs from the [default] queue',
    );
    expect(await redis.client.keys(`${redis.prefix}*`)).to.deep.equal([]);
  });

  it('work --once runs one job and exits 0', async function () {
    await push(1, 2);
    const run = await larq('work', `--env=${env}`, HANDLERS, '--once');
    expect(run.code, run.stderr).to.equal(0);
    expect(run.stdout.match(/DONE/g)).to.have.length(1);
    expect(await redis.client.llen(`${redis.prefix}queues:default`)).to.equal(1);
    expect(await redis.client.zcard(`${redis.prefix}queues:default:reserved`)).to.equal(0); // nothing popped and left behind
  });

  it('SIGTERM lets the running job finish, then work exits 0', async function () {
    const worker = start(['work', `--env=${env}`, HANDLERS, '--sleep=0.1']);
    await waitFor(worker, /Processing jobs from the \[default\] queue/);
    await push(99);
    await waitFor(worker, /RUNNING/);
    worker.child.kill('SIGTERM');
    const exit = await worker.done;
    expect(exit.code).to.equal(0);
    expect(exit.stdout)
      .to.match(/ChainStep \.+ [\d.]+m?s DONE/)
      .and.include('Worker stopped: interrupted (status 0)');
  });

  // Laravel 13's skeleton reads CACHE_STORE and keys the cache slug(APP_NAME)-cache-; Laravel 8's reads CACHE_DRIVER
  // (CACHE_STORE=database above is then ignored) and keys it slug(APP_NAME,'_')_cache + ':'.
  const restartCases: [8 | 13, string, string][] = [
    [13, 'CACHE_STORE=redis\n', 'my-shop-cache-illuminate:queue:restart'],
    [8, 'LARQ_LARAVEL=8\nCACHE_DRIVER=redis\n', 'my_shop_cache:illuminate:queue:restart'],
  ];
  for (const [laravel, lines, key] of restartCases) {
    it(`restart makes a running larq work exit 0, through the Redis cache as Laravel ${laravel}'s queue:restart does`, async function () {
      appendFileSync(env, lines); // a later line wins, as in Laravel's dotenv
      const worker = start(['work', `--env=${env}`, HANDLERS, '--sleep=0.1']);
      await waitFor(worker, /Processing jobs/);
      await pushAs(laravel, 1); // proves it is working, not stuck
      await waitFor(worker, /ChainStep \.+ [\d.]+m?s DONE/);
      const restart = await larq('restart', `--env=${env}`);
      expect(restart.stdout.trim()).to.equal('Broadcasting queue restart signal.');
      const exit = await Promise.race([worker.done, new Promise<null>((r) => setTimeout(() => r(null), 10000))]);
      if (exit === null) worker.child.kill('SIGKILL');
      expect(exit?.code).to.equal(0);
      expect(exit?.stdout).to.include('Worker stopped: restart_signal (status 0)');
      // Where that version's Redis cache keeps it: cache db 1, Redis prefix + cache prefix + key.
      const cacheDb = new Redis({ port: redis.port, db: 1 });
      const stamp = await cacheDb.get(`${redis.prefix}${key}`);
      cacheDb.disconnect();
      expect(Number(stamp)).to.be.closeTo(Date.now() / 1000, 60);
    });
  }
});
