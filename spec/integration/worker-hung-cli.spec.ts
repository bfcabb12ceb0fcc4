// Issue 21's acceptance for a hung handler, as an operator sees it: `larq work` with a handler that
// ignores its AbortSignal and never settles exits with status 1 within timeout + grace (the default
// policy), after its other job in flight finished, and says so at start-up and at the end.
import { expect } from 'chai';
import { spawn } from 'child_process';
import { readFileSync, writeFileSync } from 'fs';
import { join } from 'path';
import { RedisQueue } from '../../lib/RedisQueue';
import { compileCli, type CompiledCli } from '../support/compiled';
import { ChainStep } from '../support/phpJobs';
import { randomPrefix } from '../support/redis';
import { useRedisQueue } from '../support/useRedisQueue';
import { useTempDir } from '../support/useTempDir';

const ROOT = join(__dirname, '..', '..');

describe('larq work with a hung handler', function () {
  this.timeout(60000);
  const redis = useRedisQueue();
  const temp = useTempDir('hung', 'all');
  let cli: CompiledCli | undefined;

  before(async function () {
    cli = compileCli(['spec/support/cli/hungHandlers.ts']);
  });
  after(() => {
    cli?.remove();
  });

  it('exits with status 1 within timeout + grace, after the other job in flight finished', async function () {
    const prefix = randomPrefix();
    const env = join(temp.path, `${prefix}.env`);
    const out = join(temp.path, `${prefix}.out`);
    writeFileSync(
      env,
      [
        'APP_NAME="My Shop"',
        'QUEUE_CONNECTION=redis',
        'REDIS_HOST=127.0.0.1',
        `REDIS_PORT=${redis.port}`,
        `REDIS_PREFIX=${prefix}`,
        'QUEUE_FAILED_DRIVER=null',
        'CACHE_STORE=array',
        '',
      ].join('\n'),
    );
    writeFileSync(out, '');
    const queue = new RedisQueue({ connection: { port: redis.port }, prefix, laravel: 13 });
    await queue.push(ChainStep.make({ step: 1 })); // hangs
    await queue.push({ command: ChainStep.make({ step: 2 }), timeout: 20 }); // running until after the hung one's timeout
    await queue.close();

    const childEnv: Record<string, string | undefined> = {
      ...process.env,
      LARQ_SPEC_OUT: out,
      LARQ_SPEC_STEP_MS: '4000',
    };
    // The .env file decides: variables of the same names in this process would win over it.
    for (const name of Object.keys(childEnv))
      if (/^(APP|REDIS|DB|CACHE|QUEUE|LARQ)_/.test(name) && !name.startsWith('LARQ_SPEC_')) delete childEnv[name];
    const started = Date.now();
    const child = spawn(
      process.execPath,
      [
        cli!.main,
        'work',
        `--env=${env}`,
        `--handlers=${cli!.compiled('spec/support/cli/hungHandlers.ts')}`,
        '--timeout=1',
        '--tries=3',
        '--concurrency=2',
        '--sleep=0.1',
      ],
      { cwd: ROOT, env: childEnv },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    const took = (Date.now() - started) / 1000;

    expect(code, stderr).to.equal(1);
    // timeout 1 + grace 5, with room for start-up on a loaded machine
    expect(took).to.be.within(5, 20);
    expect(readFileSync(out, 'utf8')).to.equal('done 2\n'); // the other job finished first
    expect(stdout).to.include(
      "A handler still running 5 s after its job's timeout makes the worker finish its other jobs and exit with status 1",
    );
    expect(stdout).to.include('Worker stopped: timed_out (status 1)');
    expect(stdout).to.match(/ChainStep \.+ [\d.]+s DONE/);
    expect(stderr).to.match(/ChainStep \(attempt 1\) is still running 5 s after its timeout/);
    // The hung attempt (not its last try) stays reserved, as a killed Laravel worker leaves it, and comes back after retry_after.
    expect(await redis.client.zcard(`${prefix}queues:default:reserved`)).to.equal(1);
  });
});
