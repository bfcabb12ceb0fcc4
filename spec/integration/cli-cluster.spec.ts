// The larq command on a Redis Cluster and behind Sentinel, configured from the app's .env
// (LARQ_REDIS_CLUSTER, LARQ_REDIS_SENTINELS): real local clusters of the spec's own.
import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { RedisQueue } from '../../lib/RedisQueue';
import { LocalCluster } from '../support/cluster';
import { compileCli, type CompiledCli } from '../support/compiled';
import { runLarq } from '../support/larqProcess';
import { ChainStep } from '../support/phpJobs';
import { randomPrefix } from '../support/redis';
import { LocalSentinel } from '../support/sentinel';

describe('the larq command on a Redis Cluster and behind Sentinel', function () {
  this.timeout(120000);
  let cli: CompiledCli;
  let dir: string;

  before(() => {
    cli = compileCli();
    dir = mkdtempSync(join(tmpdir(), 'larq-cli-cluster-'));
  });
  after(() => {
    cli?.remove();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  function envFile(vars: Record<string, string>): string {
    const file = join(dir, `${randomPrefix()}.env`);
    writeFileSync(
      file,
      Object.entries({
        APP_NAME: 'Shop',
        LARQ_LARAVEL: '13',
        QUEUE_FAILED_DRIVER: 'null',
        CACHE_STORE: 'redis',
        ...vars,
      })
        .map(([k, v]) => `${k}=${v}`)
        .join('\n') + '\n',
    );
    return file;
  }

  describe('LARQ_REDIS_CLUSTER', function () {
    let cluster: LocalCluster;
    before(async function () {
      cluster = await LocalCluster.start(this);
    });
    after(async () => cluster?.stop());

    it('sizes and works queues on the cluster, with the {queue} keys of a 13.5+ peer, and its cache there', async function () {
      const prefix = randomPrefix();
      const queue = new RedisQueue({ connection: cluster.client(), prefix, laravel: 13, cluster: true });
      for (const step of [1, 2, 3]) await queue.push(ChainStep.make({ step }), 'high');
      await queue.push(ChainStep.make({ step: 4 }), 'low');
      const env = envFile({
        LARQ_REDIS_CLUSTER: cluster.ports
          .slice(0, 2)
          .map((p) => `127.0.0.1:${p}`)
          .join(','),
        REDIS_PREFIX: prefix,
      });
      const size = await runLarq(cli.main, ['size', 'high,low', `--env=${env}`]);
      expect(size.code, size.stderr).to.equal(0);
      expect(size.stdout)
        .to.match(/^redis:high +3 +3 +0 +0$/m)
        .and.match(/^redis:low +1 +1 +0 +0$/m);
      const work = await runLarq(cli.main, [
        'work',
        `--handlers=${cli.handlers}`,
        '--queue=high,low',
        '--stop-when-empty',
        '--sleep=0',
        `--env=${env}`,
      ]);
      expect(work.code, work.stderr).to.equal(0);
      expect(work.stdout.match(/ DONE$/gm)).to.have.length(4);
      expect(work.stdout).to.match(/Redis \.+ redis cluster 127\.0\.0\.1:\d+,127\.0\.0\.1:\d+/);
      expect(await queue.size('high')).to.equal(0);
      expect(await queue.size('low')).to.equal(0);
      const restart = await runLarq(cli.main, ['restart', `--env=${env}`]);
      expect(restart.code, restart.stderr).to.equal(0);
      await queue.close();
    });
  });

  describe('LARQ_REDIS_SENTINELS', function () {
    let sentinel: LocalSentinel;
    before(async function () {
      sentinel = await LocalSentinel.start(this);
    });
    after(async () => sentinel?.stop());

    it('finds the primary through the sentinels, sizes and works its queue', async function () {
      const prefix = randomPrefix();
      const queue = new RedisQueue({ connection: sentinel.client(), prefix, laravel: 13 });
      for (const step of [1, 2]) await queue.push(ChainStep.make({ step }));
      const env = envFile({
        LARQ_REDIS_SENTINELS: sentinel.sentinels.map((s) => `${s.host}:${s.port}`).join(','),
        LARQ_REDIS_SENTINEL_SERVICE: sentinel.name,
        REDIS_PREFIX: prefix,
        CACHE_STORE: 'array',
      });
      const size = await runLarq(cli.main, ['size', `--env=${env}`]);
      expect(size.code, size.stderr).to.equal(0);
      expect(size.stdout).to.match(/^redis:default +2 +2 +0 +0$/m);
      const work = await runLarq(cli.main, [
        'work',
        `--handlers=${cli.handlers}`,
        '--stop-when-empty',
        '--sleep=0',
        `--env=${env}`,
      ]);
      expect(work.code, work.stderr).to.equal(0);
      expect(work.stdout.match(/ DONE$/gm)).to.have.length(2);
      expect(work.stdout).to.match(
        new RegExp(`Redis \\.+ sentinels 127\\.0\\.0\\.1:\\d+.*, primary "${sentinel.name}" \\(db 0\\)`),
      );
      expect(await queue.size()).to.equal(0);
      await queue.close();
    });
  });
});
