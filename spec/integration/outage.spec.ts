// `larq work` through a Redis outage longer than ioredis' default retries last: the worker keeps
// running, says once per connection that it lost Redis and once that it is back, resumes by itself as
// soon as Redis returns, and still honours SIGTERM while Redis is down.
import { expect } from 'chai';
import { spawn, type ChildProcess } from 'child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { createFailedJobsTable } from '../../lib/failed';
import { Encrypter } from '../../lib/php/Encrypter';
import { RedisQueue } from '../../lib/RedisQueue';
import { compileCli, type CompiledCli } from '../support/compiled';
import { SecretJob } from '../support/phpJobs';
import { randomPrefix, requireRedis } from '../support/redis';
import { ownRedis, type OwnRedis } from '../support/redisServer';

const ROOT = join(__dirname, '..', '..');
const APP_KEY = 'base64:a2tra2tra2tra2tra2tra2tra2tra2tra2tra2tra2s=';
const OUTAGE_MS = 15000;

describe('larq work through a Redis outage', function () {
  this.timeout(120000);
  let server: OwnRedis;
  let cli: CompiledCli;
  let dir: string;
  let child: ChildProcess | undefined;

  before(async function () {
    await requireRedis(this);
    server = await ownRedis();
    cli = compileCli();
    dir = mkdtempSync(join(tmpdir(), 'larq-outage-'));
  });
  after(async () => {
    if (child?.exitCode === null) child.kill('SIGKILL');
    await server?.stop();
    cli?.remove();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('keeps running through a 15 s outage, resumes within a second or so of Redis returning, and exits on SIGTERM while Redis is down', async () => {
    const prefix = randomPrefix();
    const sqlite = join(dir, 'app.sqlite');
    const env = join(dir, '.env');
    const out = join(dir, 'ran');
    writeFileSync(out, '');
    writeFileSync(
      env,
      [
        `APP_KEY=${APP_KEY}`,
        'REDIS_HOST=127.0.0.1',
        `REDIS_PORT=${server.port}`,
        `REDIS_PREFIX=${prefix}`,
        `DB_DATABASE=${sqlite}`,
        'DB_CONNECTION=sqlite',
        'QUEUE_FAILED_DRIVER=database-uuids',
        'CACHE_STORE=redis',
        'REDIS_QUEUE_BLOCK_FOR=2',
        '',
      ].join('\n'),
    );
    await createFailedJobsTable({ driver: 'sqlite', database: sqlite });
    const vars: Record<string, string | undefined> = { ...process.env, LARQ_SPEC_OUT: out };
    for (const name of Object.keys(vars)) if (/^(APP|REDIS|DB|CACHE|QUEUE)_/.test(name)) delete vars[name];
    child = spawn(process.execPath, [cli.main, 'work', `--env=${env}`, `--handlers=${cli.handlers}`, '--sleep=0.1'], {
      cwd: ROOT,
      env: vars,
    });
    let stderr = '';
    child.stderr!.on('data', (d) => (stderr += d));
    child.stdout!.resume();
    const exited = new Promise<number | null>((resolve) => child!.on('exit', (code) => resolve(code)));

    const ran = () => readFileSync(out, 'utf8').split('\n').filter(Boolean);
    const push = async (cards: string[]) => {
      const q = new RedisQueue({
        connection: { port: server.port },
        prefix,
        laravel: 13,
        encrypter: new Encrypter(APP_KEY),
      });
      for (const card of cards) await q.push({ command: SecretJob.make({ card }), encrypt: true });
      await q.close();
    };
    const until = async (what: string, check: () => boolean, ms: number) => {
      const deadline = Date.now() + ms;
      while (!check()) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; stderr:\n${stderr}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    };

    await push(['a1', 'a2', 'a3']);
    await until('the first jobs', () => ran().length === 3, 20000);

    await server.stop();
    await new Promise((r) => setTimeout(r, OUTAGE_MS));
    expect(child.exitCode, `larq work exited during the outage; stderr:\n${stderr}`).to.equal(null);

    await server.start();
    const back = Date.now();
    await push(['b1', 'b2', 'b3']);
    await until('the jobs pushed after the outage', () => ran().length === 6, 20000);
    const resumedMs = Date.now() - back;
    console.log(`      jobs pushed after Redis returned ran within ${resumedMs} ms`);
    // Within a second of Redis returning on a quiet machine; the bound tolerates a loaded one.
    expect(resumedMs).to.be.below(5000);
    expect(ran()).to.deep.equal(['a1', 'a2', 'a3', 'b1', 'b2', 'b3']);

    // Said once per connection (queue, cache, cache lock, and the job middleware's Redis connection the
    // *WithRedis middleware and Redis::throttle use), not once per retry.
    const lost = stderr.split('\n').filter((l) => l.includes('connection lost'));
    const again = stderr.split('\n').filter((l) => l.includes('connected again'));
    expect(lost.length, stderr).to.be.within(1, 4);
    expect(again.length, stderr).to.equal(lost.length);
    // Besides those, only a pop (or the wait before it) in flight when Redis went away is reported: it may
    // have reserved a job, which then comes back after retry_after.
    const other = stderr.split('\n').filter((l) => l !== '' && !lost.includes(l) && !again.includes(l));
    expect(
      other.filter((l) => !/Redis did not answer the (pop|wait)/.test(l)),
      stderr,
    ).to.deep.equal([]);
    expect(other.length, stderr).to.be.at.most(2);

    // SIGTERM while Redis is down: honoured within a few seconds.
    await server.stop();
    await new Promise((r) => setTimeout(r, 2000));
    const signalled = Date.now();
    child.kill('SIGTERM');
    const code = await Promise.race([exited, new Promise<'hung'>((r) => setTimeout(() => r('hung'), 15000))]);
    console.log(`      SIGTERM during the outage: exited ${String(code)} after ${Date.now() - signalled} ms`);
    expect(code).to.equal(0);
    expect(Date.now() - signalled).to.be.below(8000);
    await server.start();
  });
});
