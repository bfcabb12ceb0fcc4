// A Sentinel failover in the middle of a run: 10,000 jobs through 2 `larq work` processes configured with
// LARQ_REDIS_SENTINELS, while a dispatcher (a RedisQueue built from ioredis' Sentinel options, not from a
// client) keeps pushing. The primary is SIGKILLed, the sentinels promote its replica, the old primary
// comes back as a replica, and no worker or dispatcher is restarted: they find the new primary by themselves.
//
// The accounts, as chaos.spec.ts keeps them: every confirmed push ran at least once; a refused push never
// ran; a job that ran twice had its reservation in flight at the failover. Redis replicates
// asynchronously, so an acknowledged write can die with a crashed primary whatever the client does; the
// harness kills the primary only once its replica has every write it ran (LocalSentinel.killPrimary
// holds writes first). A pop or an acknowledgement sent meanwhile dies unrun with the primary: the job is
// then still waiting, or still reserved, on the new primary, and a confirmed push is never lost by Redis.
import { expect } from 'chai';
import { spawn, type ChildProcess } from 'child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { RedisQueue } from '../../lib/RedisQueue';
import { compileCli, type CompiledCli } from '../support/compiled';
import { appFreeEnv } from '../support/larqProcess';
import { ChainStep } from '../support/phpJobs';
import { randomPrefix } from '../support/redis';
import { LocalSentinel, type SentinelFailover } from '../support/sentinel';

const ROOT = join(__dirname, '..', '..');
const JOBS = 10000;
const WORKERS = 2;
// Seconds a reservation lasts: one left on the new primary by an acknowledgement that did not reach it
// comes back this soon.
const RETRY_AFTER = 5;
// How long before the kill a run may have ended and its acknowledgement still not reached the replica;
// and how long after it a run may have started on a pop the old primary answered before it died.
const IN_FLIGHT_MS = 1000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Run {
  step: number;
  pid: number;
  start: number;
  end: number | undefined;
}

describe('Sentinel failover during a run: 10,000 jobs, 2 larq work processes, a dispatcher pushing', function () {
  this.timeout(120000);
  let setup: LocalSentinel;
  let cli: CompiledCli;
  let dir: string;

  before(async function () {
    this.timeout(90000);
    setup = await LocalSentinel.start(this);
    cli = compileCli(['spec/support/chaosHandlers.ts']);
    dir = mkdtempSync(join(tmpdir(), 'larq-sentinel-failover-'));
  });
  after(async () => {
    cli?.remove();
    if (dir) rmSync(dir, { recursive: true, force: true });
    await setup?.stop();
  });

  it('kills the primary mid-run: every job runs, none is lost, duplicates only for reservations in flight at the kill', async () => {
    const began = Date.now();
    const prefix = randomPrefix();
    const env = join(dir, `${prefix}.env`);
    const record = join(dir, `${prefix}.record`);
    writeFileSync(record, '');
    writeFileSync(
      env,
      [
        `LARQ_REDIS_SENTINELS=${setup.sentinels.map((s) => `${s.host}:${s.port}`).join(',')}`,
        `LARQ_REDIS_SENTINEL_SERVICE=${setup.name}`,
        `REDIS_PREFIX=${prefix}`,
        `REDIS_QUEUE_RETRY_AFTER=${RETRY_AFTER}`,
        'LARQ_LARAVEL=13',
        'QUEUE_FAILED_DRIVER=null',
        'CACHE_STORE=array',
        '',
      ].join('\n'),
    );
    const workers: { proc: ChildProcess; exited: Promise<number | null>; stderr: string }[] = [];
    for (let i = 0; i < WORKERS; i++) {
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
        {
          cwd: ROOT,
          env: { ...appFreeEnv(), LARQ_CHAOS_RECORD: record },
        },
      );
      const worker = {
        proc,
        stderr: '',
        exited: new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code))),
      };
      proc.stderr!.on('data', (d) => (worker.stderr += d));
      proc.stdout!.resume();
      workers.push(worker);
    }
    const stopWorkers = async () => {
      for (const w of workers) w.proc.kill('SIGTERM');
      return Promise.all(workers.map((w) => w.exited));
    };

    // The dispatcher: ioredis' Sentinel options, so the queue opens (and owns) its client.
    const producer = new RedisQueue({
      connection: { sentinels: setup.sentinels, name: setup.name },
      prefix,
      laravel: 13,
      retryAfter: RETRY_AFTER,
    });
    const confirmed = new Map<number, number>(); // step -> when its push was confirmed
    const unconfirmed = new Set<number>();
    const refused = new Map<number, string>();
    const settle = (steps: number[]) =>
      [
        () => steps.forEach((n) => confirmed.set(n, Date.now())),
        (e: Error) =>
          steps.forEach((n) =>
            e.name === 'UnconfirmedWriteError' ? unconfirmed.add(n) : refused.set(n, `${e.name}: ${e.message}`),
          ),
      ] as const;

    let failover: SentinelFailover | undefined;
    let killedAt = 0;
    let rejoinedMs = 0;
    const lines = () =>
      readFileSync(record, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => l.split(' '));
    // Both workers are running jobs when the primary dies (a `larq work` that cannot reach Redis at start-up
    // exits, by design; this spec is about workers that were up).
    const working = () => new Set(lines().map((l) => Number(l[2])));
    const killing = (async () => {
      while (confirmed.size < JOBS / 4 || !workers.every((w) => working().has(w.proc.pid!))) await sleep(50);
      killedAt = Date.now();
      failover = await setup.killPrimary();
      // The old primary comes back, as a replica of the new one, while the run goes on.
      await setup.restart(failover.killedPort);
      rejoinedMs = Date.now() - killedAt;
    })();
    for (let next = 1; next <= JOBS;) {
      const bulk = Array.from({ length: Math.min(100, JOBS - next + 1) }, (_, i) => next + i);
      next += bulk.length;
      await producer.bulk(bulk.map((step) => ChainStep.make({ step }))).then(...settle(bulk));
      for (let i = 0; i < 10 && next <= JOBS; i++, next++)
        await producer.push(ChainStep.make({ step: next })).then(...settle([next]));
      await sleep(20);
    }
    const pushedAt = Date.now();
    await killing;

    const deadline = began + 105000;
    let drained = false;
    while (!drained && Date.now() < deadline) {
      const ran = new Set(lines().map((l) => Number(l[1])));
      drained = [...confirmed.keys()].every((n) => ran.has(n)) && (await producer.size()) === 0;
      if (!drained) await sleep(250);
    }
    const left = {
      waiting: await producer.pendingSize(),
      delayed: await producer.delayedSize(),
      reserved: await producer.reservedSize(),
    };
    const codes = await stopWorkers();
    await producer.close();
    const stderr = workers.map((w) => w.stderr).join('\n');

    // The accounts.
    const runs = new Map<number, Run[]>();
    for (const [event, step, pid, , t] of lines()) {
      const n = Number(step);
      if (event === 'start')
        runs.set(n, [...(runs.get(n) ?? []), { step: n, pid: Number(pid), start: Number(t), end: undefined }]);
      else runs.get(n)!.find((r) => r.pid === Number(pid) && r.end === undefined)!.end = Number(t);
    }
    const lost = [...confirmed.keys()].filter((n) => !runs.has(n));
    const ranAfterRefusal = [...refused.keys()].filter((n) => runs.has(n));
    const twice = [...runs].filter(([, r]) => r.length > 1);
    // Why a job ran again: its first run had a reservation the new primary may not know the end of.
    const reason = (first: Run, again: Run): string | null => {
      if (again.start < killedAt) return null;
      if (first.end !== undefined && first.end < killedAt - IN_FLIGHT_MS) return null;
      if (first.start > killedAt + IN_FLIGHT_MS) return null;
      return first.end !== undefined && first.end < killedAt
        ? `ended ${killedAt - first.end} ms before the kill: its acknowledgement had not reached the replica, the reservation expired on the new primary`
        : `running at the kill (started ${killedAt - first.start} ms before it): its pop or acknowledgement never reached the new primary`;
    };
    const explained = twice.map(([step, r]) => ({ step, why: reason(r[0], r[1]), runs: r.length }));
    const unexplained = explained.filter((d) => d.why === null || d.runs > 2);
    // A start within IN_FLIGHT_MS of the kill may come from a pop the old primary answered; the sentinels
    // take longer than that to promote the replica, so a later start came from the new primary.
    const firstStartAfterKill = (pid: number) =>
      Math.min(
        ...[...runs.values()]
          .flat()
          .filter((r) => r.pid === pid && r.start > killedAt + IN_FLIGHT_MS)
          .map((r) => r.start),
      );
    const resumedIn = workers.map((w) => firstStartAfterKill(w.proc.pid!) - killedAt);
    const pushResumedIn = Math.min(...[...confirmed.values()].filter((t) => t > killedAt + IN_FLIGHT_MS)) - killedAt;

    console.log(
      `      ${confirmed.size} pushes confirmed, ${unconfirmed.size} unconfirmed (${[...unconfirmed].filter((n) => runs.has(n)).length} of them ran), ${refused.size} refused; ` +
        `all pushed ${pushedAt - began} ms after the start; primary killed at ${killedAt - began} ms, writes held ${failover?.heldMs} ms before it, failover ${failover?.failoverMs} ms (port ${failover?.killedPort} -> ${failover?.promotedPort}), old primary back as a replica ${rejoinedMs} ms after the kill`,
    );
    console.log(
      `      ${runs.size} jobs ran: ${runs.size - twice.length} once, ${twice.length} twice; ${lost.length} lost; left in Redis ${JSON.stringify(left)}`,
    );
    for (const d of explained) console.log(`        job ${d.step} ran ${d.runs} times: ${d.why ?? 'UNEXPLAINED'}`);
    console.log(
      `      time to resume after the kill: workers ${resumedIn.join(', ')} ms (first job started), dispatcher ${pushResumedIn} ms (first push confirmed); whole run ${Date.now() - began} ms`,
    );

    expect(
      lost.slice(0, 10),
      `${lost.length} confirmed jobs never ran; ${JSON.stringify(left)} left; stderr: ${stderr.slice(-2000)}`,
    ).to.deep.equal([]);
    expect(ranAfterRefusal, 'refused pushes that ran').to.deep.equal([]);
    expect(
      unexplained.slice(0, 10),
      `${unexplained.length} jobs ran more than once with no reservation in flight at the kill`,
    ).to.deep.equal([]);
    expect(left, 'jobs left in Redis').to.deep.equal({ waiting: 0, delayed: 0, reserved: 0 });
    expect(Object.fromEntries([...refused].slice(0, 5)), 'pushes refused during the failover').to.deep.equal({});
    for (const ms of [...resumedIn, pushResumedIn])
      expect(ms, 'a worker or the dispatcher resumed without a restart').to.be.finite;
    expect(codes, stderr).to.deep.equal(new Array(WORKERS).fill(0));
    expect(Date.now() - began, 'the run is bounded').to.be.below(120000);
  });
});
