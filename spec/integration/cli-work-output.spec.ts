// `larq work`'s job lines as a supervisor's pipe receives them: the worker a process of its own, its
// stdout a pipe this spec reads. Whatever way the worker stops (the queue empty, --max-jobs, SIGTERM,
// process.exit in a handler, an uncaught exception) every job that ran has its RUNNING and DONE lines, in
// the order artisan prints them, with a handler's console.log between them; and a reader that stops
// reading for a while slows the worker down instead of losing lines or letting them pile up in memory.
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import type Redis from 'ioredis';
import { MAX_BUFFERED } from '../../lib/cli/StreamOutput';
import { RedisQueue } from '../../lib/RedisQueue';
import { compileCli, type CompiledCli } from '../support/compiled';
import { startLarq, writeRedisEnv, type LarqProcess } from '../support/larqProcess';
import { ChainStep } from '../support/phpJobs';
import { randomPrefix, rawClient, requireRedis } from '../support/redis';

interface JobLine {
  id: string;
  status: string;
}

describe('larq work: job lines on a pipe', function () {
  this.timeout(120000);
  let port: number;
  let client: Redis;
  let dir: string;
  let cli: CompiledCli | undefined;
  let handlers = '';
  let prefix: string;
  let env: string;
  const running: LarqProcess[] = [];

  before(async function () {
    port = await requireRedis(this);
    client = rawClient(port);
    dir = mkdtempSync(join(tmpdir(), 'larq-output-'));
    cli = compileCli(['spec/support/cli/outputHandlers.ts']);
    handlers = `--handlers=${cli.compiled('spec/support/cli/outputHandlers.ts')}`;
  });
  after(() => {
    for (const run of running) if (run.child.exitCode === null) run.child.kill('SIGKILL');
    client?.disconnect();
    cli?.remove();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(() => {
    prefix = randomPrefix();
    env = join(dir, `${prefix}.env`);
    writeRedisEnv(env, port, prefix, ['APP_NAME=Shop']);
  });

  // n ChainStep jobs (steps 1..n); their ids in the order the worker takes them.
  async function push(n: number): Promise<string[]> {
    const q = new RedisQueue({ connection: { port }, prefix, laravel: 13 });
    const ids: string[] = [];
    for (let i = 0; i < n; i += 1000)
      ids.push(
        ...(await q.bulk(Array.from({ length: Math.min(1000, n - i) }, (_, k) => ChainStep.make({ step: i + k + 1 })))),
      );
    await q.close();
    return ids;
  }

  function work(args: string[], extraEnv: Record<string, string> = {}): LarqProcess {
    const run = startLarq(cli!.main, ['work', `--env=${env}`, handlers, '-v', '--sleep=0', ...args], {
      env: extraEnv,
    });
    running.push(run);
    return run;
  }

  // The job lines (-v: `  <date> <time> <name> <id> <connection> <queue> ... STATUS`) and the handler's
  // lines, in the order printed.
  function jobLines(stdout: string): JobLine[] {
    const lines: JobLine[] = [];
    for (const line of stdout.split('\n')) {
      const job = /^ {2}\S+ \S+ App\\Jobs\\ChainStep (\S+) \S+ \S+ .* (RUNNING|DONE|FAIL)$/.exec(line);
      if (job) lines.push({ id: job[1], status: job[2] });
      const logged = /^handler step (\d+)$/.exec(line);
      if (logged) lines.push({ id: `step ${logged[1]}`, status: 'LOG' });
    }
    return lines;
  }

  // What artisan prints for the first `count` jobs at concurrency 1: RUNNING, (the handler's line), DONE.
  function expected(ids: string[], count: number, logged: boolean): JobLine[] {
    return ids
      .slice(0, count)
      .flatMap((id, i) => [
        { id, status: 'RUNNING' },
        ...(logged ? [{ id: `step ${i + 1}`, status: 'LOG' }] : []),
        { id, status: 'DONE' },
      ]);
  }

  const left = async () => client.llen(`${prefix}queues:default`);

  async function until(what: string, check: () => boolean | Promise<boolean>, ms = 60000): Promise<void> {
    const deadline = Date.now() + ms;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  it('--stop-when-empty: every job has its lines, a console.log of the handler between them', async () => {
    const ids = await push(3000);
    const run = work(['--stop-when-empty'], { LARQ_SPEC_LOG: '1' });
    expect(await run.done, run.stderr).to.equal(0);
    expect(jobLines(run.stdout)).to.deep.equal(expected(ids, 3000, true));
  });

  it('--max-jobs: the lines of exactly the jobs it ran', async () => {
    const ids = await push(3000);
    const run = work(['--max-jobs=1000']);
    expect(await run.done, run.stderr).to.equal(0);
    expect(jobLines(run.stdout)).to.deep.equal(expected(ids, 1000, false));
    expect(await left()).to.equal(2000);
  });

  it('SIGTERM: the lines of every job it ran before it stopped, and no other', async () => {
    const ids = await push(20000);
    const run = work([]);
    await until('500 jobs done', async () => (await left()) <= 19500);
    run.child.kill('SIGTERM');
    expect(await run.done, run.stderr).to.equal(0);
    const ran = 20000 - (await left());
    expect(await client.zcard(`${prefix}queues:default:reserved`)).to.equal(0);
    expect(jobLines(run.stdout)).to.deep.equal(expected(ids, ran, false));
  });

  it('process.exit() in a handler: the lines up to that job are all written', async () => {
    const ids = await push(3000);
    const run = work([], { LARQ_SPEC_CRASH: 'exit:2000' });
    expect(await run.done, run.stderr).to.equal(3);
    expect(jobLines(run.stdout)).to.deep.equal([...expected(ids, 1999, false), { id: ids[1999], status: 'RUNNING' }]);
  });

  it('an uncaught exception: the lines up to the crash are all written', async () => {
    const ids = await push(3000);
    const run = work([], { LARQ_SPEC_CRASH: 'throw:2000' });
    expect(await run.done).to.equal(1);
    expect(run.stderr).to.include('a crash outside any job');
    const lines = jobLines(run.stdout);
    // the crash comes in the turn after the job's handler returned: its DONE line may or may not be out
    const upTo = [...expected(ids, 1999, false), { id: ids[1999], status: 'RUNNING' }];
    expect(lines.slice(0, upTo.length)).to.deep.equal(upTo);
    expect(lines.slice(upTo.length)).to.deep.equal(
      lines.length > upTo.length ? [{ id: ids[1999], status: 'DONE' }] : [],
    );
  });

  it('a reader that stops reading: the worker waits for it, and no line is lost', async () => {
    const ids = await push(10000);
    const run = work(['--stop-when-empty']);
    // Nothing is read from the start: a reader paused only once it saw a line would let the worker run as
    // many jobs as a busy host took to notice that line.
    run.child.stdout!.pause();
    // The pipe and the buffers on either side fill up; then the worker waits. How long filling them takes
    // depends on how busy the host is (a fixed 1.5 s was too short in a CI run): wait until the jobs left
    // hold still for a second, for at most 30 s, then check that they stay so.
    const second = () => new Promise((r) => setTimeout(r, 1000));
    let before = await left();
    for (const deadline = Date.now() + 30000; ;) {
      await second();
      const now = await left();
      if (now === before) break;
      if (Date.now() > deadline) expect.fail(`the worker never waited for its reader (${now} jobs left)`);
      before = now;
    }
    await second();
    expect(await left(), 'jobs taken while nobody read the lines').to.equal(before);
    expect(before, 'jobs left once the pipe was full').to.be.lessThan(10000);
    run.child.stdout!.resume();
    expect(await run.done, run.stderr).to.equal(0);
    // What the jobs taken while nobody read printed fits in the buffers between the two processes, each of
    // at most 64 KiB: the worker's own (MAX_BUFFERED), the pipe, the reader's stream and the chunk it read
    // last, plus one more for the lines of the job in flight. Without backpressure it would be all 2 MB.
    const bytesPerJob = Buffer.byteLength(run.stdout) / 10000;
    expect((10000 - before) * bytesPerJob, 'bytes printed while nobody read').to.be.at.most(5 * MAX_BUFFERED);
    expect(jobLines(run.stdout)).to.deep.equal(expected(ids, 10000, false));
  });
});
