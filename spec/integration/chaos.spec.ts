// Chaos, bounded: 20,000 jobs through 3 `larq work` processes (concurrency 20, retry_after 5 s) on a real
// redis-server, while a driver SIGKILLs a random worker every few seconds and starts it again, kills the
// client connections (CLIENT KILL TYPE normal) every second, and pushes with bulk() and push() all along.
// Then the same with the redis-server restarted mid-run, and with Redis down for 30 s (both with
// --appendonly yes --appendfsync always). Every job is accounted for: each confirmed push ran at least
// once, none is left in Redis, and every time a job ran again, its earlier run is explained: its process
// was SIGKILLed while it ran or before its ack could reach Redis, or (Redis down) its ack was lost. A push whose reply was lost (UnconfirmedWriteError) may or may not have landed; one that
// was refused otherwise never runs.
import { expect } from 'chai';
import { spawn, type ChildProcess } from 'child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import type Redis from 'ioredis';
import { RedisQueue } from '../../lib/RedisQueue';
import { compileCli, type CompiledCli } from '../support/compiled';
import { ChainStep } from '../support/phpJobs';
import { randomPrefix, requireRedis } from '../support/redis';
import { ownRedis, type OwnRedis } from '../support/redisServer';

const ROOT = join(__dirname, '..', '..');
const JOBS = 20000;
const WORKERS = 3;
const SIGKILL_EVERY_MS = 3000;
const CLIENT_KILL_EVERY_MS = 1000;
// How long before Redis stopped a finished job's ZREM may still have been on its way (acks go out before
// the worker's next pop, normally within milliseconds).
const ACK_WINDOW_MS = 1000;
// The workers' retry_after: a run's handler takes 2 ms, so a run that wrote no end line was cut short by
// a SIGKILL within this long of its start, or it is unexplained.
const RETRY_AFTER_MS = 5000;
// How soon after Redis returns each worker that lived through the outage starts a job again (the bound).
const RESUME_WITHIN_MS = 1000;
// How long a `larq work` may take from its start to its first job, even on a busy host.
const WORKER_START_MS = 30000;

type Disruption = 'none' | 'restart' | 'outage';

interface Worker {
  proc: ChildProcess;
  exited: Promise<number | null>;
  stderr: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('chaos: 20,000 jobs, 3 worker processes, SIGKILLs, CLIENT KILLs and Redis going away', function () {
  this.timeout(600000);
  let cli: CompiledCli;
  let dir: string;

  before(async function () {
    await requireRedis(this);
    cli = compileCli(['spec/support/chaosHandlers.ts']);
    dir = mkdtempSync(join(tmpdir(), 'larq-chaos-'));
  });
  after(() => {
    cli?.remove();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  async function chaos(disruption: Disruption): Promise<void> {
    const server: OwnRedis = await ownRedis(
      disruption === 'none'
        ? []
        : ['--appendonly', 'yes', '--appendfsync', 'always', '--dir', mkdtempSync(join(dir, 'aof-'))],
    );
    const admin: Redis = server.admin();
    admin.on('error', () => undefined);
    const prefix = randomPrefix();
    const env = join(dir, `${prefix}.env`);
    const record = join(dir, `${prefix}.record`);
    writeFileSync(record, '');
    // Whether the process `pid` has started a job: its first line in the record.
    const hasStartedAJob = (pid: number) => new RegExp(`^start \\d+ ${pid} `, 'm').test(readFileSync(record, 'utf8'));
    writeFileSync(
      env,
      [
        'REDIS_HOST=127.0.0.1',
        `REDIS_PORT=${server.port}`,
        `REDIS_PREFIX=${prefix}`,
        'REDIS_QUEUE_RETRY_AFTER=5',
        'QUEUE_FAILED_DRIVER=null',
        'CACHE_STORE=array',
        '',
      ].join('\n'),
    );
    const vars: Record<string, string | undefined> = { ...process.env, LARQ_CHAOS_RECORD: record };
    for (const name of Object.keys(vars)) if (/^(APP|REDIS|DB|CACHE|QUEUE|LARQ_LARAVEL)/.test(name)) delete vars[name];

    const workers: Worker[] = [];
    // When each SIGKILLed worker process was killed (read after kill() returned: no line it writes is later).
    const killedAt = new Map<number, number>();
    const startWorker = (slot: number): void => {
      const proc = spawn(
        process.execPath,
        [
          cli.main,
          'work',
          `--env=${env}`,
          `--handlers=${cli.compiled('spec/support/chaosHandlers.ts')}`,
          '--concurrency=20',
          '--tries=0',
          '--sleep=0.1',
          '--memory=0',
          '--quiet',
        ],
        { cwd: ROOT, env: vars },
      );
      const worker: Worker = {
        proc,
        stderr: '',
        exited: new Promise((resolve) => proc.on('exit', (code) => resolve(code))),
      };
      proc.stderr!.on('data', (d) => (worker.stderr += d));
      proc.stdout!.resume();
      workers[slot] = worker;
    };
    for (let i = 0; i < WORKERS; i++) startWorker(i);

    const producer = new RedisQueue({
      connection: { host: '127.0.0.1', port: server.port },
      prefix,
      laravel: 13,
      retryAfter: 5,
    });
    const confirmed = new Set<number>();
    const unconfirmed = new Set<number>();
    const refused = new Set<number>();
    const settle = (steps: number[]) =>
      [
        () => steps.forEach((n) => confirmed.add(n)),
        (e: Error) => steps.forEach((n) => (e.name === 'UnconfirmedWriteError' ? unconfirmed : refused).add(n)),
      ] as const;
    const job = (n: number) => ({ command: ChainStep.make({ step: n }), ...(n % 25 === 0 ? { delay: 1 } : {}) });

    let redisUp = true;
    let disrupting = true;
    // No SIGKILL starts while this is set: around Redis going away (see redisEvents).
    let holdKills = false;
    // A SIGKILLed worker is being replaced.
    let replacing = false;
    let killsOfWorkers = 0;
    const exitedBeforeTheirKill: string[] = [];
    let killsOfClients = 0;
    const sigkills = (async () => {
      while (disrupting) {
        await sleep(SIGKILL_EVERY_MS);
        if (!disrupting || !redisUp || holdKills) continue;
        replacing = true;
        const slot = Math.floor(Math.random() * WORKERS);
        const victim = workers[slot];
        // One that exited by itself is replaced all the same, but not forgotten.
        if (victim.proc.exitCode !== null || victim.proc.signalCode !== null)
          exitedBeforeTheirKill.push(`${victim.proc.pid} (exit ${victim.proc.exitCode}): ${victim.stderr}`);
        victim.proc.kill('SIGKILL');
        killedAt.set(victim.proc.pid!, Date.now());
        await victim.exited;
        killsOfWorkers++;
        startWorker(slot);
        replacing = false;
      }
    })();
    const clientKills = (async () => {
      while (disrupting) {
        await sleep(CLIENT_KILL_EVERY_MS);
        if (disrupting && redisUp)
          await admin.client('KILL', 'TYPE', 'NORMAL').then(
            () => killsOfClients++,
            () => undefined,
          );
      }
    })();
    let resumedAt: number | null = null;
    let stoppedAt: number | null = null;
    let returningAt: number | null = null;
    let aliveAtReturn: number[] = [];
    const redisEvents = (async () => {
      if (disruption === 'none') return;
      await sleep(4000);
      // Redis goes away under workers at work: none is being replaced, and each has started a job, so it
      // has opened its connections. One still starting (a replacement, or any of them on a busy host: a
      // start can take seconds) would find Redis gone, and `larq work` refuses to start without Redis
      // (exit 1, "cannot reach Redis"): it would never resume, and its replacement would hide its exit code.
      // (For at most WORKER_START_MS: a worker that never starts a job is then left to the checks below.)
      holdKills = true;
      const startsBy = Date.now() + WORKER_START_MS;
      while (
        Date.now() < startsBy &&
        (replacing ||
          !workers.every((w) => w.proc.exitCode !== null || w.proc.signalCode !== null || hasStartedAJob(w.proc.pid!)))
      )
        await sleep(50);
      redisUp = false;
      stoppedAt = Date.now();
      await server.stop();
      if (disruption === 'outage') await sleep(30000);
      // workers may reconnect while start() still waits for the server to answer
      returningAt = Date.now();
      await server.start();
      resumedAt = Date.now();
      aliveAtReturn = workers.map((w) => w.proc.pid!);
      redisUp = true;
      // Nor is a survivor SIGKILLed before its first job after the return could be seen.
      if (disruption === 'outage') await sleep(RESUME_WITHIN_MS);
      holdKills = false;
    })();

    // The producer: bulks of 250 (one in 25 delayed by a second) and single pushes, all through the run.
    const started = Date.now();
    for (let next = 1; next <= JOBS;) {
      const bulk = Array.from({ length: Math.min(250, JOBS - next + 1) }, (_, i) => next + i);
      next += bulk.length;
      await producer.bulk(bulk.map(job)).then(...settle(bulk));
      for (let i = 0; i < 10 && next <= JOBS; i++, next++) await producer.push(job(next)).then(...settle([next]));
      await sleep(150);
    }
    const pushedIn = Date.now() - started;
    await redisEvents;
    await sleep(2000);
    disrupting = false;
    await Promise.all([sigkills, clientKills]);

    // Then let the workers finish: every confirmed job ran, and the queue's keys are empty.
    const keys = producer.keys.forQueue('default');
    const lines = () =>
      readFileSync(record, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => l.split(' ').map(Number));
    const inRedis = async () =>
      (await admin.llen(keys.queue)) + (await admin.zcard(keys.delayed)) + (await admin.zcard(keys.reserved));
    const deadline = Date.now() + 120000;
    for (;;) {
      const ran = new Set(lines().map((l) => l[1]));
      if ([...confirmed].every((n) => ran.has(n)) && (await inRedis()) === 0) break;
      if (Date.now() > deadline) break;
      await sleep(250);
    }
    for (const w of workers) w.proc.kill('SIGTERM');
    const codes = await Promise.all(workers.map((w) => w.exited));
    const left = await inRedis();
    await producer.close();
    admin.disconnect();
    await server.stop();

    // The accounts.
    const events = readFileSync(record, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => {
        const [event, step, pid, attempt] = l.split(' ');
        const [, , , , t] = l.split(' ');
        return { event, step: Number(step), pid: Number(pid), attempt: Number(attempt), t: Number(t) };
      });
    const starts = new Map<number, { step: number; pid: number; attempt: number; t: number }[]>();
    for (const e of events) if (e.event === 'start') starts.set(e.step, [...(starts.get(e.step) ?? []), e]);
    const lost = [...confirmed].filter((n) => !starts.has(n));
    const landedAfterRefusal = [...refused].filter((n) => starts.has(n));
    const duplicates = [...starts].filter(([, s]) => s.length > 1);
    // Each run before the last one of a job must be explained. By a SIGKILL: its process was killed after
    // the run started and before its end line plus the ack window (the ZREM may not have left yet); a run
    // without an end line was cut short by that kill, so the kill came within retry_after of its start.
    // Or by the outage: a run that ended just before Redis went down for longer than retry_after may not
    // have had its ZREM answered; its reservation then expires while Redis is away and whichever worker
    // pops first after the return runs it again, as Laravel's workers would. That needs an end line and
    // the next run after Redis came back. Anything else (no kill in the window, no end line without a
    // kill) is unexplained.
    type Run = { step: number; pid: number; attempt: number; t: number };
    const ends = new Map<string, number>();
    for (const e of events) if (e.event === 'end') ends.set(`${e.step} ${e.pid} ${e.attempt}`, e.t);
    const endOf = (run: Run) => ends.get(`${run.step} ${run.pid} ${run.attempt}`);
    const killedDuring = (run: Run) => {
      const killed = killedAt.get(run.pid);
      if (killed === undefined || killed < run.t) return false;
      const end = endOf(run);
      return killed <= (end === undefined ? run.t + RETRY_AFTER_MS : end + ACK_WINDOW_MS);
    };
    const ackLostInOutage = (run: Run, again: Run) => {
      const end = endOf(run);
      return (
        disruption === 'outage' &&
        stoppedAt !== null &&
        returningAt !== null &&
        end !== undefined &&
        end >= stoppedAt - ACK_WINDOW_MS &&
        again.t >= returningAt
      );
    };
    const unexplained = duplicates.filter(
      ([, s]) => !s.slice(0, -1).every((run, i) => killedDuring(run) || ackLostInOutage(run, s[i + 1])),
    );
    // After the outage: how soon each worker that lived through it started a job again.
    const resumedIn =
      disruption !== 'outage' || resumedAt === null
        ? []
        : aliveAtReturn.map(
            (pid) =>
              Math.min(
                ...events.filter((e) => e.event === 'start' && e.pid === pid && e.t >= resumedAt!).map((e) => e.t),
              ) - resumedAt!,
          );
    console.log(
      `      ${disruption}: ${confirmed.size} confirmed, ${unconfirmed.size} unconfirmed (${[...unconfirmed].filter((n) => starts.has(n)).length} of them ran), ` +
        `${refused.size} refused; pushed in ${pushedIn} ms; ${killsOfWorkers} SIGKILLs, ${killsOfClients} CLIENT KILLs; ` +
        `${starts.size} jobs ran, ${duplicates.length} more than once (all explained: ${unexplained.length === 0}); ${left} left in Redis; exit codes ${codes.join(',')}` +
        (resumedIn.length === 0
          ? ''
          : `; after Redis returned the surviving workers started jobs again within ${resumedIn.join(', ')} ms`),
    );
    expect(lost.slice(0, 10), `${lost.length} confirmed jobs never ran`).to.deep.equal([]);
    expect(left, 'jobs left in Redis').to.equal(0);
    expect(landedAfterRefusal, 'refused pushes that ran').to.deep.equal([]);
    expect(
      unexplained.slice(0, 10).map(([n, s]) => `${n}: ${JSON.stringify(s)}`),
      `${unexplained.length} jobs ran again without a SIGKILL or an outage to explain it`,
    ).to.deep.equal([]);
    for (const ms of resumedIn) expect(ms, 'a worker resuming after the outage').to.be.below(RESUME_WITHIN_MS);
    expect(exitedBeforeTheirKill, 'workers that exited by themselves before their SIGKILL').to.deep.equal([]);
    expect(codes, workers.map((w) => w.stderr).join('\n')).to.deep.equal(new Array(WORKERS).fill(0));
  }

  it('SIGKILLs, CLIENT KILLs, bulk and push throughout: every job accounted for', async () => {
    await chaos('none');
  });

  it('the same with the redis-server restarted mid-run (appendfsync always)', async () => {
    await chaos('restart');
  });

  it('the same with Redis down for 30 s: the workers resume by themselves', async () => {
    await chaos('outage');
  });
});
