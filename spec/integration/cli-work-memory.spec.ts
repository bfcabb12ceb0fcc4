// `larq work --memory` as PHP's memory_get_usage means it: the memory a worker keeps. A worker whose
// memory is stable runs 200,000 jobs under --memory=128 with V8 tuned for throughput (a young generation
// of up to 64 MB a semi-space, whose garbage alone takes V8's heap past 128 MB above the start) and is not
// stopped; one that keeps 128 kB a job is stopped with status 12 (later than PHP would stop it: see
// lib/cli/RetainedMemory.ts). The worker is `larq work` as a user
// starts it, so the flags it chooses for itself apply as well; LARQ_SPEC_NODE_FLAGS replaces the tuning
// flags given here (space-separated).
import { expect } from 'chai';
import { spawn } from 'child_process';
import { mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import type Redis from 'ioredis';
import { RedisQueue } from '../../lib/RedisQueue';
import { compileCli, type CompiledCli } from '../support/compiled';
import { appFreeEnv, writeRedisEnv } from '../support/larqProcess';
import { ChainStep } from '../support/phpJobs';
import { randomPrefix, rawClient, requireRedis } from '../support/redis';

const NODE_FLAGS = (process.env.LARQ_SPEC_NODE_FLAGS ?? '--max-semi-space-size=64').split(' ').filter(Boolean);

describe('larq work --memory: the memory that stays', function () {
  this.timeout(600000);
  let port: number;
  let client: Redis;
  let dir: string;
  let cli: CompiledCli | undefined;
  let prefix: string;
  let env: string;

  before(async function () {
    port = await requireRedis(this);
    client = rawClient(port);
    dir = mkdtempSync(join(tmpdir(), 'larq-memory-'));
    cli = compileCli(['spec/support/cli/memoryHandlers.ts']);
  });
  after(() => {
    client?.disconnect();
    cli?.remove();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(() => {
    prefix = randomPrefix();
    env = join(dir, `${prefix}.env`);
    writeRedisEnv(env, port, prefix);
  });

  async function push(n: number): Promise<void> {
    const q = new RedisQueue({ connection: { port }, prefix, laravel: 13 });
    for (let i = 0; i < n; i += 1000)
      await q.bulk(Array.from({ length: Math.min(1000, n - i) }, (_, k) => ChainStep.make({ step: i + k + 1 })));
    await q.close();
  }

  function work(extraEnv: Record<string, string> = {}): Promise<{ code: number | null; stderr: string }> {
    const args = [
      ...NODE_FLAGS,
      cli!.main,
      'work',
      `--env=${env}`,
      `--handlers=${cli!.compiled('spec/support/cli/memoryHandlers.ts')}`,
      '--memory=128',
      '--concurrency=50',
      '--quiet',
      '--stop-when-empty',
      '--sleep=0',
    ];
    const child = spawn(process.execPath, args, { env: appFreeEnv(extraEnv), stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    return new Promise((resolve) => child.on('exit', (code) => resolve({ code, stderr })));
  }

  const left = async () =>
    (await client.llen(`${prefix}queues:default`)) + (await client.zcard(`${prefix}queues:default:reserved`));

  it('does not stop a worker whose memory is stable: 200,000 jobs, no status 12', async () => {
    await push(200000);
    const { code, stderr } = await work();
    expect(code, stderr).to.equal(0);
    expect(await left()).to.equal(0);
  });

  it('stops a worker that leaks, with status 12, before its jobs run out', async () => {
    await push(20000);
    const { code, stderr } = await work({ LARQ_SPEC_LEAK_KB: '128' });
    expect(code, stderr).to.equal(12);
    // 128 MB at 128 kB a job is 1,024 jobs; the leak is seen at the next full collection, which V8 puts off
    // while the old generation grows (by up to 4 times what it kept at the last one): 3,000 to 4,000 jobs
    expect(await left()).to.be.greaterThan(20000 - 8000);
  });
});
