// Crash safety and graceful shutdown with real worker processes on a real redis-server: a `kill -9`
// loses no job, and SIGTERM lets every job in flight finish before the worker exits 0.
import { expect } from 'chai';
import { spawn, type ChildProcess } from 'child_process';
import { existsSync, readFileSync } from 'fs';
import { join } from 'path';
import { RedisQueue } from '../../lib/RedisQueue';
import { ChainStep } from '../support/phpJobs';
import { randomPrefix } from '../support/redis';
import { compileCli, type CompiledCli } from '../support/compiled';
import { useRedisQueue } from '../support/useRedisQueue';
import { useTempDir } from '../support/useTempDir';

interface Line {
  pid: number;
  event: string;
  step?: number;
  id?: string;
  attempts?: number;
  status?: number;
  reason?: string;
}

// Run compiled, not through ts-node: see spec/support/compiled.ts.
let compiled: CompiledCli | undefined;

describe('worker processes: crash safety and graceful shutdown', function () {
  this.timeout(60000);
  const redis = useRedisQueue();
  const temp = useTempDir('proc', 'all');
  const children: ChildProcess[] = [];

  before(async function () {
    compiled = compileCli(['spec/support/workerProcess.ts']);
  });
  after(() => {
    for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
    compiled?.remove();
  });

  function startWorker(env: Record<string, string>): { proc: ChildProcess; exited: Promise<number | null> } {
    const proc = spawn(process.execPath, [compiled!.compiled('spec/support/workerProcess.ts')], {
      env: { ...process.env, LARQ_REDIS_PORT: String(redis.port), ...env },
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    children.push(proc);
    const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
    return { proc, exited };
  }

  function lines(file: string): Line[] {
    if (!existsSync(file)) return [];
    return readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Line);
  }

  async function until(what: string, check: () => boolean | Promise<boolean>, ms = 20000): Promise<void> {
    const deadline = Date.now() + ms;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  async function pushSteps(prefix: string, n: number): Promise<string[]> {
    const q = new RedisQueue({ connection: { port: redis.port }, prefix, laravel: 8 });
    try {
      // tries = 3: a job that comes back after a crash may run again (with tries = 1 it would fail first)
      return await q.bulk(
        Array.from({ length: n }, (_, i) => ({ command: ChainStep.make({ step: i + 1 }), maxTries: 3 })),
      );
    } finally {
      await q.close();
    }
  }

  it('kill -9 while holding jobs: each comes back after retryAfter with attempts + 1 and runs once more', async function () {
    const prefix = randomPrefix();
    const record = join(temp.path, `${prefix}kill.jsonl`);
    const ids = await pushSteps(prefix, 5);

    const first = startWorker({
      LARQ_PREFIX: prefix,
      LARQ_RECORD: record,
      LARQ_CONCURRENCY: '5',
      LARQ_JOB_MS: '60000',
      LARQ_RETRY_AFTER: '2',
    });
    await until('5 jobs started', () => lines(record).filter((l) => l.event === 'start').length === 5);
    first.proc.kill('SIGKILL');
    await first.exited;
    expect(await redis.client.zcard(`${prefix}queues:default:reserved`)).to.equal(5);

    // The second worker polls until the dead worker's reservations expire, then takes the jobs back.
    const second = startWorker({
      LARQ_PREFIX: prefix,
      LARQ_RECORD: record,
      LARQ_CONCURRENCY: '5',
      LARQ_RETRY_AFTER: '2',
    });
    await until(
      '5 jobs finished by the second worker',
      () => lines(record).filter((l) => l.event === 'end' && l.pid === second.proc.pid).length === 5,
    );
    second.proc.kill('SIGTERM');
    expect(await second.exited).to.equal(0);

    const reruns = lines(record).filter((l) => l.pid === second.proc.pid && l.event === 'end');
    expect(reruns.map((l) => l.id).sort()).to.deep.equal([...ids].sort());
    expect(reruns.every((l) => l.attempts === 2)).to.equal(true);
    expect(lines(record).filter((l) => l.event === 'end' && l.pid === first.proc.pid)).to.have.length(0);
    expect(await redis.client.keys(`${prefix}*`)).to.deep.equal([]);
  });

  it('SIGTERM with 50 jobs in flight: all 50 finish, the worker exits 0, none is left reserved', async function () {
    const prefix = randomPrefix();
    const record = join(temp.path, `${prefix}term.jsonl`);
    const ids = await pushSteps(prefix, 50);

    const worker = startWorker({
      LARQ_PREFIX: prefix,
      LARQ_RECORD: record,
      LARQ_CONCURRENCY: '50',
      LARQ_JOB_MS: '1500',
    });
    await until('50 jobs started', () => lines(record).filter((l) => l.event === 'start').length === 50);
    worker.proc.kill('SIGTERM');
    expect(await worker.exited).to.equal(0);

    const ends = lines(record).filter((l) => l.event === 'end');
    expect(ends.map((l) => l.id).sort()).to.deep.equal([...ids].sort());
    expect(lines(record).find((l) => l.event === 'exit')).to.include({ status: 0, reason: 'interrupted' });
    expect(await redis.client.zcard(`${prefix}queues:default:reserved`)).to.equal(0);
    expect(await redis.client.keys(`${prefix}*`)).to.deep.equal([]);
  });
});
