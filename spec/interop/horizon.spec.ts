// Horizon mode against Horizon itself: Laravel Horizon 5.29.1 on real Laravel 12.67 and 13.26 (see
// spec/support/php.ts, "Horizon", for what had to be supplied to boot it without Composer) dispatches the
// same jobs twice, under two prefixes; Laravel's worker runs one copy under Horizon's listeners and
// `larq work --horizon` the other. Both copies are then read back through Horizon's own PHP repositories
// and compared with the raw Horizon keyspace: every record, list, tag, metric and key equal, ids mapped
// to the job they belong to, times within a tolerance (runtime is timed from reserve to delete).
import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'fs';
import { hostname, tmpdir } from 'os';
import { join } from 'path';
import { randomBytes } from 'crypto';
import type Redis from 'ioredis';
import { HorizonRedisQueue } from '../../lib/horizon/RedisQueue';
import { PhpObject } from '../../lib/php/values';
import { slug } from '../../lib/support/Str';
import { RedisQueue } from '../../lib/RedisQueue';
import { compileCli, type CompiledCli } from '../support/compiled';
import { runLarq, startLarq } from '../support/larqProcess';
import {
  HORIZON_LINES,
  horizonCli,
  laravelMajor,
  requireHorizon,
  runHorizonWorker,
  type HorizonConnection,
  type HorizonRead,
  type HorizonRecord,
} from '../support/php';
import { rawClient, requireRedis } from '../support/redis';

// One copy of the scenario: its queue prefix and Horizon prefix.
interface Copy extends HorizonConnection {
  label: string;
}

// Seconds two copies' timestamps may differ in shape (reserve to delete, one record's times apart).
const TIME_TOLERANCE_S = 10;
const PHP_FLOAT = /^-?\d+(\.\d{1,4})?$/;

for (const line of HORIZON_LINES)
  describe(`interop: Horizon 5.29.1 on Laravel ${line} and larq work --horizon`, function () {
    this.timeout(240000);
    let port: number;
    let client: Redis;
    let cli: CompiledCli;
    let dir: string;

    before(async function () {
      requireHorizon(this, line);
      port = await requireRedis(this);
      client = rawClient(port);
      cli = compileCli(['spec/support/cli/horizonHandlers.ts']);
      dir = mkdtempSync(join(tmpdir(), 'larq-horizon-'));
    });
    after(() => {
      client?.disconnect();
      cli?.remove();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    const copy = (label: string): Copy => {
      const id = randomBytes(3).toString('hex');
      return {
        label,
        laravel: line,
        port,
        prefix: `hz-${label}-${id}-db-`,
        horizonPrefix: `hz_${label}_${id}_horizon:`,
      };
    };

    // An app directory whose .env points at the copy; `env` adds or overrides variables.
    function appFor(c: Copy, env: Record<string, string> = {}): string {
      const app = mkdtempSync(join(dir, 'app-'));
      const vars = {
        APP_NAME: '"Horizon Spec"',
        REDIS_HOST: '127.0.0.1',
        REDIS_PORT: String(port),
        REDIS_PREFIX: c.prefix,
        HORIZON_PREFIX: c.horizonPrefix,
        LARQ_LARAVEL: line,
        QUEUE_FAILED_DRIVER: 'null',
        CACHE_STORE: 'array',
        ...env,
      };
      writeFileSync(
        join(app, '.env'),
        Object.entries(vars)
          .map(([k, v]) => `${k}=${v}`)
          .join('\n') + '\n',
      );
      return app;
    }
    const handlers = () => `--handlers=${cli.compiled('spec/support/cli/horizonHandlers.ts')}`;

    // `larq work --stop-when-empty` in the copy's app.
    async function larqWork(c: Copy, args: string[], env: Record<string, string> = {}): Promise<void> {
      const run = await runLarq(
        cli.main,
        ['work', handlers(), '--stop-when-empty', '--sleep=0', '--tries=3', '-q', ...args],
        { cwd: appFor(c, env), timeoutMs: 120000 },
      );
      expect(run.code, run.stderr).to.equal(0);
    }

    // Polls `read` until `done` holds (or fails after `ms`).
    async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, ms = 15000): Promise<T> {
      const deadline = Date.now() + ms;
      for (;;) {
        const value = await read();
        if (done(value) || Date.now() > deadline) return value;
        await new Promise((r) => setTimeout(r, 200));
      }
    }

    it("a copy larq works reads back through Horizon's repositories and keyspace as the copy Laravel's worker ran", async function () {
      const php = copy('php');
      const node = copy('node');
      const labels = new Map<string, string>();
      for (const c of [php, node]) {
        await horizonCli('monitor', ['billing'], c);
        const { ids } = await horizonCli<{ ids: string[] }>('dispatch', ['jobs'], c);
        ids.forEach((id, i) => labels.set(id, `job${i}`));
      }
      // The delayed job comes due (1 s, counted in whole seconds): both workers then migrate it first.
      await new Promise((r) => setTimeout(r, 2100));
      const ran = await runHorizonWorker({ ...php, tries: 3, sleep: 0 });
      expect(ran.code, ran.stderr).to.equal(0);
      await larqWork(node, ['--horizon']);

      // The raw keyspace first: snapshot() below rewrites the metrics keys.
      const [phpKeys, nodeKeys] = [await keyspace(client, php, labels), await keyspace(client, node, labels)];
      expect(Object.keys(nodeKeys)).to.deep.equal(Object.keys(phpKeys));
      for (const key of Object.keys(phpKeys)) compareKey(key, nodeKeys[key], phpKeys[key]);

      const tags = [
        'billing',
        'order:42',
        'refund',
        'App\\Models\\User:7',
        'failed:billing',
        'failed:refund',
        'failed:App\\Models\\User:7',
      ];
      const [phpRead, nodeRead] = [
        await horizonCli<HorizonRead>('read', tags, php),
        await horizonCli<HorizonRead>('read', tags, node),
      ];
      for (const list of ['recent', 'pending', 'completed', 'silenced', 'failed'] as const) {
        expect(
          nodeRead[list].map((r) => record(r, labels)),
          list,
        ).to.deep.equal(phpRead[list].map((r) => record(r, labels)));
        for (const r of [...phpRead[list], ...nodeRead[list]]) checkTimes(r);
      }
      expect(nodeRead.counts).to.deep.equal(phpRead.counts);
      expect(phpRead.counts).to.include({ completed: 3, silenced: 1, failed: 2, recentlyFailed: 2, pending: 0 });

      // Throughput exactly, runtime (reserve to delete) within a tolerance; failed jobs count in neither.
      expect(Object.keys(nodeRead.metrics.jobs)).to.deep.equal(Object.keys(phpRead.metrics.jobs));
      expect(Object.keys(phpRead.metrics.jobs)).to.have.length(4);
      for (const kind of ['jobs', 'queues'] as const) {
        for (const [name, php] of Object.entries(phpRead.metrics[kind])) {
          const got = nodeRead.metrics[kind][name];
          expect(got.throughput, name).to.equal(php.throughput);
          expect(got.runtime, name).to.be.within(0, 1000 * TIME_TOLERANCE_S);
        }
      }
      expect(nodeRead.afterSnapshot.measuredJobs).to.deep.equal(phpRead.afterSnapshot.measuredJobs);
      expect(nodeRead.afterSnapshot.measuredQueues)
        .to.deep.equal(phpRead.afterSnapshot.measuredQueues)
        .and.to.deep.equal(['default']);
      for (const [name, snaps] of Object.entries(phpRead.afterSnapshot.jobs)) {
        expect(
          nodeRead.afterSnapshot.jobs[name].map((s) => Number(s.throughput)),
          name,
        ).to.deep.equal(snaps.map((s) => Number(s.throughput)));
      }
      expect(nodeRead.tags.monitoring).to.deep.equal(phpRead.tags.monitoring);
      expect(nodeRead.tags.count).to.deep.equal(phpRead.tags.count);
      const byLabel = (ids: string[]) => ids.map((id) => labels.get(id) ?? id);
      for (const tag of tags)
        expect(byLabel(nodeRead.tags.jobs[tag]), tag).to.deep.equal(byLabel(phpRead.tags.jobs[tag]));
      expect(phpRead.tags.count).to.include({ billing: 2, 'failed:billing': 1, 'failed:App\\Models\\User:7': 1 });
    });

    it("a job larq pushes in Horizon mode is pending with Horizon's payload keys, and completed once Laravel's worker under Horizon runs it", async function () {
      const c = copy('push');
      const queue = new HorizonRedisQueue({
        connection: { port },
        prefix: c.prefix,
        laravel: laravelMajor(line),
        horizon: { prefix: c.horizonPrefix },
      });
      try {
        const job = new PhpObject('App\\Jobs\\Horizon\\TaggedJob', [
          { name: 'order', visibility: 'public', value: 7n },
        ]);
        const id = await queue.push(job);
        const pending = await horizonCli<HorizonRead>('read', [], c);
        expect(pending.pending.map((r) => r.id)).to.deep.equal([id]);
        expect(pending.counts.pending).to.equal(1);
        const payload = JSON.parse(pending.pending[0].payload) as Record<string, unknown>;
        expect(payload).to.include({ id, uuid: id, type: 'job', silenced: false });
        expect(payload.tags).to.deep.equal([]);
        expect(payload.pushedAt).to.be.a('string').and.match(PHP_FLOAT);
        expect(pending.pending[0]).to.include({
          status: 'pending',
          connection: 'redis',
          queue: 'default',
          name: 'App\\Jobs\\Horizon\\TaggedJob',
        });

        const ran = await runHorizonWorker({ ...c, sleep: 0 });
        expect(ran.code, ran.stderr).to.equal(0);
        const done = await horizonCli<HorizonRead>('read', [], c);
        expect(done.completed.map((r) => [r.id, r.status])).to.deep.equal([[id, 'completed']]);
        expect(done.counts).to.include({ completed: 1, pending: 0 });
        expect(done.metrics.jobs['App\\Jobs\\Horizon\\TaggedJob'].throughput).to.equal(1);
      } finally {
        await queue.close();
      }
    });

    it("a job larq pushes carries the payload Horizon's push writes, byte for byte (json_encode: \\uXXXX, \\/)", async function () {
      const php = copy('bytes-php');
      const node = copy('bytes-node');
      await horizonCli('dispatch', ['unicode'], php);
      const tags = (command: PhpObject) =>
        command.className === 'App\\Jobs\\Horizon\\FailingTaggedJob' ? ['billing', 'refund'] : undefined;
      const queue = new HorizonRedisQueue({
        connection: { port },
        prefix: node.prefix,
        laravel: line,
        horizon: { prefix: node.horizonPrefix, tags },
      });
      try {
        await queue.push(
          new PhpObject('App\\Jobs\\Horizon\\FailingTaggedJob', [
            { name: 'reason', visibility: 'public', value: 'déjà vu / “quoted” \\ ok' },
          ]),
        );
      } finally {
        await queue.close();
      }
      const [phpPayload] = await client.lrange(`${php.prefix}queues:default`, 0, -1);
      const [nodePayload] = await client.lrange(`${node.prefix}queues:default`, 0, -1);
      // The uuid (twice: uuid and id), createdAt and pushedAt differ by nature; every other byte is Horizon's.
      const blank = (p: string) =>
        p
          .replace(/"[0-9a-f]{8}-[0-9a-f-]{27}"/g, '"UUID"')
          .replace(/"createdAt":\d+/, '"createdAt":0')
          .replace(/"pushedAt":"[\d.]+"/, '"pushedAt":"T"');
      expect(phpPayload).to.include('\\u00e9');
      expect(blank(nodePayload)).to.equal(blank(phpPayload));
      const [phpRecord, nodeRecord] = [
        await horizonCli<HorizonRead>('read', [], php),
        await horizonCli<HorizonRead>('read', [], node),
      ];
      expect(blank(nodeRecord.pending[0].payload)).to.equal(blank(phpRecord.pending[0].payload));
    });

    it('a running larq worker is a Horizon master and supervisor: listed in the workload, paused by horizon:pause, stopped by horizon:terminate', async function () {
      const c = copy('super');
      const run = startLarq(
        cli.main,
        ['work', handlers(), '--horizon', '--sleep=0.1', '--concurrency=3', '--queue=default,high', '-q'],
        { cwd: appFor(c) },
      );
      try {
        type Listing = {
          masters: { name: string; environment: string; pid: string; status: string; supervisors: string[] }[];
          supervisors: {
            name: string;
            master: string;
            pid: string;
            status: string;
            processes: Record<string, number>;
            options: Record<string, unknown>;
          }[];
          workload: { name: string; processes: number; length: number }[];
        };
        const listed = await until(
          () => horizonCli<Listing>('supervisors', [], c),
          (l) => l.supervisors.length > 0,
        );
        expect(listed.masters, run.stderr).to.have.length(1);
        const [master] = listed.masters;
        expect(master).to.include({ environment: 'larq', pid: String(run.child.pid), status: 'running' });
        expect(master.name.startsWith(slugHost())).to.equal(true);
        const [supervisor] = listed.supervisors;
        expect(supervisor).to.include({ master: master.name, pid: String(run.child.pid), status: 'running' });
        expect(master.supervisors).to.deep.equal([supervisor.name]);
        expect(supervisor.processes).to.deep.equal({ 'redis:default,high': 3 });
        expect(supervisor.options).to.include({ queue: 'default,high', connection: 'redis', maxProcesses: 3 });
        expect(listed.workload.map((w) => [w.name, w.processes])).to.deep.equal([['default,high', 3]]);

        expect((await horizonCli<{ status: number }>('artisan', ['horizon:pause'], c)).status).to.equal(0);
        const paused = await until(
          () => horizonCli<Listing>('supervisors', [], c),
          (l) => l.supervisors[0]?.status === 'paused',
        );
        expect(paused.supervisors[0].status).to.equal('paused');
        await horizonCli('dispatch', ['one'], c);
        await new Promise((r) => setTimeout(r, 1000));
        expect(await client.llen(`${c.prefix}queues:default`)).to.equal(1);

        await horizonCli('artisan', ['horizon:continue'], c);
        const ran = await until(
          () => horizonCli<HorizonRead>('read', [], c),
          (r) => r.counts.completed === 1,
        );
        expect(ran.counts.completed).to.equal(1);

        await horizonCli('artisan', ['horizon:terminate'], c);
        expect(await run.done).to.equal(0);
        const gone = await horizonCli<Listing>('supervisors', [], c);
        expect(gone.masters).to.deep.equal([]);
        expect(gone.supervisors).to.deep.equal([]);
      } finally {
        run.child.kill('SIGKILL');
      }
    });

    it('with Horizon mode off, larq writes nothing under the Horizon prefix', async function () {
      const c = copy('off');
      const queue = new RedisQueue({ connection: { port }, prefix: c.prefix, laravel: laravelMajor(line) });
      try {
        await queue.push(
          new PhpObject('App\\Jobs\\Horizon\\TaggedJob', [{ name: 'order', visibility: 'public', value: 1n }]),
        );
        await queue.push(
          new PhpObject('App\\Jobs\\Horizon\\FailingTaggedJob', [
            { name: 'reason', visibility: 'public', value: 'no' },
          ]),
        );
      } finally {
        await queue.close();
      }
      // HORIZON_PREFIX alone would turn Horizon mode on: LARQ_HORIZON=false wins over it.
      await larqWork(c, [], { LARQ_HORIZON: 'false' });
      expect(await client.llen(`${c.prefix}queues:default`)).to.equal(0);
      expect(await client.keys(`${c.horizonPrefix}*`)).to.deep.equal([]);
    });
  });

// MasterSupervisor::basename(): Str::slug(gethostname()), which horizon:pause looks masters up by.
function slugHost(): string {
  return slug(hostname());
}

// A record with its ids replaced by job labels, its times checked apart (checkTimes), the exception's
// first line only (the stack is PHP's or Node's own), and its payload decoded with its times blanked.
function record(r: HorizonRecord, labels: Map<string, string>): Record<string, unknown> {
  const payload = JSON.parse(r.payload) as Record<string, unknown>;
  const normalized = Object.fromEntries(
    Object.entries(payload)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([k, v]) => [
        k,
        k === 'id' || k === 'uuid' ? labels.get(String(v)) : k === 'pushedAt' || k === 'createdAt' ? typeof v : v,
      ]),
  );
  return {
    id: labels.get(r.id),
    connection: r.connection,
    queue: r.queue,
    name: r.name,
    status: r.status,
    payload: normalized,
    exception: r.exception === false ? false : r.exception.split(' in ')[0],
    context: r.context,
    failed_at: r.failed_at !== false,
    completed_at: r.completed_at !== false,
    retried_by: r.retried_by,
    reserved_at: r.reserved_at !== false,
    index: r.index,
  };
}

// Each time a PHP float string; reserved, then completed, then failed, within the tolerance.
function checkTimes(r: HorizonRecord): void {
  const times = [r.reserved_at, r.completed_at, r.failed_at].filter((t): t is string => t !== false);
  for (const t of times) expect(t, r.name).to.match(PHP_FLOAT);
  for (let i = 1; i < times.length; i++) {
    expect(Number(times[i]) - Number(times[i - 1]), r.name).to.be.within(-0.001, TIME_TOLERANCE_S);
  }
}

interface KeyDump {
  type: string;
  /** -1 without an expiry, else the seconds left. */
  ttl: number;
  /** Hash fields; sorted-set members (labels) with their scores' sign; set members; a string's value. */
  content: unknown;
}

// Every key under the copy's Horizon prefix, named without it and with job ids as labels.
async function keyspace(client: Redis, c: Copy, labels: Map<string, string>): Promise<Record<string, KeyDump>> {
  const name = (key: string) => {
    const bare = key.slice(c.horizonPrefix.length);
    return labels.get(bare) ?? bare;
  };
  const out: Record<string, KeyDump> = {};
  for (const key of (await client.keys(`${c.horizonPrefix}*`)).sort((a, b) => name(a).localeCompare(name(b)))) {
    const type = await client.type(key);
    const ttl = await client.ttl(key);
    let content: unknown;
    if (type === 'hash') {
      const hash = await client.hgetall(key);
      content = Object.keys(hash).sort();
      if (hash.throughput !== undefined) content = { fields: content, throughput: hash.throughput };
    } else if (type === 'zset') {
      const flat = await client.zrange(key, 0, '-1', 'WITHSCORES');
      const items: string[] = [];
      for (let i = 0; i < flat.length; i += 2)
        items.push(`${labels.get(flat[i]) ?? flat[i]} ${Number(flat[i + 1]) < 0 ? '-' : '+'}`);
      content = items.sort();
    } else if (type === 'set') {
      content = (await client.smembers(key))
        .map((m) => (m.startsWith(c.horizonPrefix) ? m.slice(c.horizonPrefix.length) : `unprefixed ${m}`))
        .sort();
    } else content = type;
    out[name(key)] = { type, ttl, content };
  }
  return out;
}

function compareKey(key: string, got: KeyDump, want: KeyDump): void {
  expect(got.type, key).to.equal(want.type);
  expect(got.content, key).to.deep.equal(want.content);
  if (want.ttl < 0) expect(got.ttl, key).to.equal(want.ttl);
  else expect(got.ttl, key).to.be.within(want.ttl - TIME_TOLERANCE_S, want.ttl + TIME_TOLERANCE_S);
}
