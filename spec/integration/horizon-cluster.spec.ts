// Horizon mode on a real Redis Cluster: Horizon's keys under one hash tag (`{prefix}`, the form later Horizon
// 5.x's `Horizon::use` gives a cluster connection on Laravel 13.5+), so its pipelines and its updateMetrics
// Lua stay in one slot; and with Horizon mode off, nothing under Horizon's prefix anywhere on the cluster.
import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import type { Cluster } from 'ioredis';
import { InvalidOptionError } from '../../lib/errors';
import { HorizonRedisQueue } from '../../lib/horizon/RedisQueue';
import { RedisQueue } from '../../lib/RedisQueue';
import { LocalCluster } from '../support/cluster';
import { compileCli, type CompiledCli } from '../support/compiled';
import { runLarq, startLarq } from '../support/larqProcess';
import { ChainStep } from '../support/phpJobs';
import { randomPrefix } from '../support/redis';

describe('Horizon mode on a Redis Cluster', function () {
  this.timeout(120000);
  let cluster: LocalCluster;
  let client: Cluster;
  let cli: CompiledCli;
  let dir: string;

  before(async function () {
    cluster = await LocalCluster.start(this);
    client = cluster.client();
    cli = compileCli();
    dir = mkdtempSync(join(tmpdir(), 'larq-hz-cluster-'));
  });
  after(async () => {
    cli?.remove();
    if (dir) rmSync(dir, { recursive: true, force: true });
    await cluster?.stop();
  });

  /** An app folder whose .env points larq at the cluster. */
  function app(vars: Record<string, string>): string {
    const folder = mkdtempSync(join(dir, 'app-'));
    const env = {
      LARQ_LARAVEL: '13',
      QUEUE_FAILED_DRIVER: 'null',
      CACHE_STORE: 'array',
      LARQ_REDIS_CLUSTER: cluster.ports
        .slice(0, 2)
        .map((p) => `127.0.0.1:${p}`)
        .join(','),
      ...vars,
    };
    writeFileSync(
      join(folder, '.env'),
      Object.entries(env)
        .map(([k, v]) => `${k}=${v}`)
        .join('\n') + '\n',
    );
    return folder;
  }

  /** Every key on every primary that contains `part`. */
  async function keysContaining(part: string): Promise<string[]> {
    const found: string[] = [];
    for (const node of client.nodes('master')) {
      let cursor = '0';
      do {
        const [next, keys] = await node.scan(cursor, 'MATCH', `*${part.replace(/[*?[\]\\]/g, '\\$&')}*`, 'COUNT', 1000);
        found.push(...keys);
        cursor = next;
      } while (cursor !== '0');
    }
    return found.sort();
  }

  it('larq work --horizon writes the records, metrics and supervisor under {prefix}, every key in one slot', async function () {
    const prefix = randomPrefix();
    const horizon = `${prefix}horizon:`;
    const tagged = `{${horizon}}`;
    // Pushed from Node in Horizon mode (the library), as Horizon's push would: pending records first.
    const pusher = new HorizonRedisQueue({ connection: cluster.client(), prefix, laravel: 13, cluster: true });
    expect(pusher.horizon.prefix).to.equal('{laravel_horizon:}');
    await pusher.close();
    // Peers older than 13.5 (whose Horizon keeps the prefix bare): refused on a cluster, not failing later.
    expect(
      () => new HorizonRedisQueue({ connection: cluster.client(), prefix, laravel: '13.4', cluster: true }),
    ).to.throw(InvalidOptionError, /"laravel_horizon:" has no hash tag/);
    const queue = new HorizonRedisQueue({
      connection: cluster.client(),
      prefix,
      laravel: 13,
      cluster: true,
      horizon: { prefix: horizon },
    });
    expect(queue.horizon.prefix).to.equal(tagged);
    const ids: string[] = [];
    for (const step of [1, 2, 13, 3]) ids.push(await queue.push(ChainStep.make({ step })));
    await queue.close();

    const folder = app({ REDIS_PREFIX: prefix, HORIZON_PREFIX: horizon });
    const larq = startLarq(
      cli.main,
      ['work', `--handlers=${cli.handlers}`, '--horizon', '--sleep=0.1', '--tries=1', '--concurrency=2'],
      { cwd: folder },
    );
    let live: string[] = [];
    try {
      // While it runs: every job ran, and the master and supervisor records are there.
      const deadline = Date.now() + 30000;
      for (;;) {
        live = await keysContaining(horizon);
        const statuses = await Promise.all(ids.map((id) => client.hget(`${tagged}${id}`, 'status')));
        const done = statuses.filter((s) => s === 'completed').length === 3 && statuses[2] === 'failed';
        if (done && live.some((k) => k.startsWith(`${tagged}master:`)) && live.includes(`${tagged}supervisors`)) break;
        if (Date.now() > deadline)
          throw new Error(`Horizon's records are not all there: ${JSON.stringify({ statuses, live })}\n${larq.stderr}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    } finally {
      larq.child.kill('SIGTERM');
    }
    expect(await larq.done, larq.stderr).to.equal(0);

    // Every Horizon key starts with the hash tag, and so hashes to the slot of its content.
    const keys = [...new Set([...live, ...(await keysContaining(horizon))])];
    expect(keys.filter((k) => !k.startsWith(tagged))).to.deep.equal([]);
    const slot = await cluster.slotOf(horizon);
    const slots = await Promise.all(keys.map((k) => cluster.slotOf(k)));
    expect(new Set(slots)).to.deep.equal(new Set([slot]));
    for (const name of ['recent_jobs', 'completed_jobs', 'failed_jobs', 'recent_failed_jobs', 'measured_jobs'])
      expect(keys, name).to.include(`${tagged}${name}`);
    // Horizon's updateMetrics Lua ran (two keys, one slot): three successes of ChainStep on default.
    expect(await client.hget(`${tagged}job:App\\Jobs\\ChainStep`, 'throughput')).to.equal('3');
    expect(await client.hget(`${tagged}queue:default`, 'throughput')).to.equal('3');
    expect(await client.smembers(`${tagged}measured_jobs`)).to.deep.equal([`${tagged}job:App\\Jobs\\ChainStep`]);
    expect(await client.smembers(`${tagged}measured_queues`)).to.deep.equal([`${tagged}queue:default`]);
    expect(await client.hget(`${tagged}${ids[2]}`, 'exception')).to.match(/unlucky step/);
    // the worker's master and supervisor records were kept while it ran (and removed when it stopped)
    expect(live.filter((k) => k.startsWith(`${tagged}master:`))).to.have.length.at.least(1);
  });

  it('with Horizon mode off, larq writes nothing under the Horizon prefix on any node', async function () {
    const prefix = randomPrefix();
    // Str::slug(APP_NAME, '_') . '_horizon:', config/horizon.php's default
    const horizon = `shop_${prefix.replace(/_$/, '')}_horizon:`;
    const queue = new RedisQueue({ connection: cluster.client(), prefix, laravel: 13, cluster: true });
    for (const step of [1, 13, 2]) await queue.push(ChainStep.make({ step }));
    await queue.close();
    const before = new Set(await keysContaining(''));
    const folder = app({ REDIS_PREFIX: prefix, APP_NAME: `"Shop ${prefix}"` });
    const work = await runLarq(cli.main, ['work', `--handlers=${cli.handlers}`, '--stop-when-empty', '--sleep=0'], {
      cwd: folder,
    });
    expect(work.code, work.stderr).to.equal(0);
    expect(work.stdout.match(/ DONE$/gm)).to.have.length(2);
    expect(work.stdout.match(/ FAIL$/gm)).to.have.length(1);
    // Horizon's default prefix for this app, with or without the hash tag: nothing, on any node.
    expect(await keysContaining(horizon)).to.deep.equal([]);
    // Whatever the run added is the queue's own, under the database prefix; none of it Horizon's.
    const added = (await keysContaining('')).filter((k) => !before.has(k));
    expect(added.filter((k) => !k.startsWith(prefix) || k.includes('horizon'))).to.deep.equal([]);
  });
});
