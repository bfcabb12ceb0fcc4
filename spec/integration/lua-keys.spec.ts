// Strict servers (Dragonfly by default) refuse a script that touches a key it did not declare in KEYS.
// This runs every script through the code that calls it (RedisQueue, the cache lock) on a real server
// with MONITOR watching, and asks the server itself (COMMAND GETKEYS) which keys each command a script
// issued touched: every one must be among the KEYS its caller passed, and those must be the queue's own
// keys from lib/redis/keys.ts, as many as the script declares. The static twin is spec/unit/lua-keys.spec.ts.
import { expect } from 'chai';
import { RedisCacheStore } from '../../lib/cache';
import { FakeClock } from '../../lib/clock';
import { HorizonKeys } from '../../lib/horizon/HorizonKeys';
import { RedisMetricsRepository } from '../../lib/horizon/RedisMetricsRepository';
import { DurationLimiter } from '../../lib/middleware/DurationLimiter';
import {
  defineScripts,
  SCRIPTS,
  scriptSha,
  scriptSource,
  type ScriptName,
  type ScriptSpec,
} from '../../lib/redis/scripts';
import { CommandWatch, type WatchedCommand } from '../support/commandWatch';
import { randomPrefix } from '../support/redis';
import { useRedisQueue } from '../support/useRedisQueue';

const NOW = 1795276770;
const job = (n: number) =>
  JSON.stringify({
    uuid: `u${n}`,
    displayName: `Job${n}`,
    job: 'keys-job',
    data: { n },
    id: `id${n}`,
    attempts: 0,
    maxTries: null,
  });

/** One script run as the server saw it: which script, the KEYS it was given, the commands it issued. */
interface ScriptRun {
  name: ScriptName;
  keys: string[];
  issued: WatchedCommand[];
}

const NAMES = Object.keys(SCRIPTS) as ScriptName[];
const BY_SHA = new Map(NAMES.map((n) => [scriptSha(scriptSource(n)), n]));
const BY_SOURCE = new Map(NAMES.map((n) => [scriptSource(n), n]));

// Group the watched commands into script runs: an EVAL or EVALSHA, then the commands its script issued.
function scriptRuns(commands: WatchedCommand[]): ScriptRun[] {
  const runs: ScriptRun[] = [];
  for (const c of commands) {
    const command = c.argv[0].toLowerCase();
    if (c.source === 'lua') {
      expect(runs, `${c.argv[0]} from a script before any EVAL`).to.not.have.length(0);
      runs[runs.length - 1].issued.push(c);
    } else if (command === 'evalsha' || command === 'eval') {
      const name = command === 'evalsha' ? BY_SHA.get(c.argv[1]) : BY_SOURCE.get(c.argv[1]);
      expect(name, `a script larq does not know: ${c.argv[1].slice(0, 60)}`).to.not.equal(undefined);
      const count = Number(c.argv[2]);
      runs.push({ name: name!, keys: c.argv.slice(3, 3 + count), issued: [] });
    }
  }
  return runs;
}

describe('Lua scripts touch only the KEYS their callers pass', function () {
  this.timeout(60000);
  const redis = useRedisQueue();
  let watch: CommandWatch;

  before(async () => {
    watch = await CommandWatch.on([redis.port]);
  });
  after(() => watch?.stop());

  // The keys a command touches, as the server reads its arguments.
  async function keysOf(argv: string[]): Promise<string[]> {
    try {
      return (await redis.client.call('COMMAND', 'GETKEYS', ...argv)) as string[];
    } catch (e) {
      if (/no key arguments|Invalid arguments/i.test((e as Error).message)) return [];
      throw e;
    }
  }

  it("every script, run by its caller, touches only its declared KEYS: the queue's keys from keys.ts", async () => {
    const prefix = randomPrefix();
    const clock = new FakeClock(NOW * 1000);
    const q = redis.open({ prefix, clock, laravel: 13, retryAfter: 90 });
    const lockClient = redis.connect();
    const cache = new RedisCacheStore({ connection: lockClient, prefix, laravel: 13, database: 0 });
    const horizonKeys = new HorizonKeys(`${prefix}horizon:`);
    const horizonMetrics = new RedisMetricsRepository(horizonKeys);
    watch.clear();
    try {
      await q.pushRaw('not json'); // the pop scripts' quarantine branch
      await q.pushRaw(job(1));
      await q.laterRaw(10, job(2));
      await q.pop().then(
        () => expect.fail('the pop quarantines the head payload'),
        () => undefined,
      );
      const one = (await q.pop())!;
      expect(await q.extendReservation(one, NOW + 300)).to.equal(true);
      await q.deleteAndRelease('default', one, 0);
      clock.advance(10);
      await q.pushRaw('also not json');
      const many = await q.popMany('default', 0, 5, () => undefined);
      expect(many).to.have.length(2);
      expect(await q.size()).to.equal(2);
      expect(await q.clear()).to.equal(2);
      const lock = cache.lock('laravel_unique_job:App\\Jobs\\Sync:1', 60);
      expect(await lock.acquire()).to.equal(true);
      expect(await lock.release()).to.equal(true);
      // Redis::throttle's DurationLimiter, and Horizon's metrics script as its listeners run it.
      const limiter = new DurationLimiter({ client: lockClient, prefix }, 'api', 5, 60, clock);
      expect(await limiter.acquire()).to.equal(true);
      expect(await limiter.tooManyAttempts()).to.equal(false);
      defineScripts(lockClient);
      const pipe = lockClient.pipeline();
      horizonMetrics.incrementJob(pipe, 'App\\Jobs\\Sync', '12.5');
      horizonMetrics.incrementQueue(pipe, 'default', '12.5');
      await pipe.exec();
      await watch.settle();
    } finally {
      await q.close();
      lockClient.disconnect();
    }

    const runs = scriptRuns(watch.commands);
    // A script that is only a part of another (popBatch, inside workerPop) runs with it, not on its own.
    const sentAlone = NAMES.filter((n) => (SCRIPTS[n] as ScriptSpec).partOf === undefined);
    expect([...new Set(runs.map((r) => r.name))].sort(), 'every script ran').to.deep.equal(sentAlone.sort());
    const queueKeys = new Set(Object.values(q.keys.forQueue('default')));
    const lockKey = cache.key('laravel_unique_job:App\\Jobs\\Sync:1');
    for (const run of runs) {
      expect(run.keys, `${run.name}'s KEYS`).to.have.length(SCRIPTS[run.name].keys);
      const known =
        run.name === 'releaseLock'
          ? new Set([lockKey])
          : run.name.startsWith('durationLimiter')
            ? new Set([`${prefix}api`])
            : run.name === 'updateMetrics'
              ? new Set([
                  horizonKeys.jobMetrics('App\\Jobs\\Sync'),
                  horizonKeys.key('measured_jobs'),
                  horizonKeys.queueMetrics('default'),
                  horizonKeys.key('measured_queues'),
                ])
              : queueKeys;
      for (const key of run.keys)
        expect(known.has(key), `${run.name} was given ${key}, not a key of keys.ts`).to.equal(true);
      for (const issued of run.issued) {
        for (const key of await keysOf(issued.argv)) {
          expect(
            run.keys,
            `${run.name}: ${issued.argv.slice(0, 2).join(' ')} touches ${key}, not in its KEYS`,
          ).to.include(key);
        }
      }
    }
    // The quarantine branch and the migrations did run: their commands were checked above.
    expect(runs.some((r) => r.issued.some((c) => c.argv[1] === q.keys.forQueue('default').invalid))).to.equal(true);
    // (the due delayed job, moved by popMany's migration: within workerPop, only a migration pushes onto the queue)
    const queueKey = q.keys.forQueue('default').queue;
    expect(
      runs.some(
        (r) =>
          r.name === 'workerPop' && r.issued.some((c) => c.argv[0].toLowerCase() === 'rpush' && c.argv[1] === queueKey),
      ),
    ).to.equal(true);
  });
});
