// The file failed-job store shared by several processes: two `larq work` processes, `larq work` beside
// real Laravel 12.67's and 13.26's FileFailedJobProvider, and `larq forget` beside a worker, all on one file of an
// app's storage folder. Each process takes the lock Laravel's store takes, so no record is lost and none
// comes back. A file larq cannot read is kept as it is, and the error names it.
import { expect } from 'chai';
import { randomUUID } from 'crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'fs';
import { join } from 'path';
import { UnreadableFailedJobFileError } from '../../../lib/errors';
import { FileFailedJobProvider } from '../../../lib/failed/FileFailedJobProvider';
import { RedisQueue } from '../../../lib/RedisQueue';
import { compileCli, type CompiledCli } from '../../support/compiled';
import { runLarq, startLarq, type LarqProcess } from '../../support/larqProcess';
import { requirePhp, runPhp } from '../../support/php';
import { ChainStep } from '../../support/phpJobs';
import { useRedisQueue } from '../../support/useRedisQueue';
import { useTempDir } from '../../support/useTempDir';

describe('file failed-job store shared by processes', function () {
  this.timeout(180000);
  const redis = useRedisQueue();
  const temp = useTempDir('failed-shared');
  let cli: CompiledCli;
  let app: string;
  let file: string;
  let env: string;
  let queue: RedisQueue;

  before(async function () {
    cli = compileCli();
  });
  after(() => cli?.remove());
  beforeEach(() => {
    app = temp.path;
    file = join(app, 'storage', 'framework', 'cache', 'failed-jobs.json');
    mkdirSync(join(app, 'storage', 'framework', 'cache'), { recursive: true });
    env = join(app, '.env');
    const lines = [
      'APP_NAME=Shop',
      'REDIS_HOST=127.0.0.1',
      `REDIS_PORT=${redis.port}`,
      `REDIS_PREFIX=${redis.prefix}`,
      'QUEUE_FAILED_DRIVER=file',
      'CACHE_STORE=redis',
    ];
    writeFileSync(env, lines.join('\n') + '\n');
    queue = redis.open({ laravel: 12 });
  });

  const ids = (): string[] => (JSON.parse(readFileSync(file, 'utf8')) as { id: string }[]).map((r) => r.id);
  const work = () =>
    startLarq(cli.main, [
      'work',
      `--handlers=${cli.handlers}`,
      `--app=${app}`,
      `--env=${env}`,
      '--stop-when-empty',
      '--sleep=0',
      '--tries=1',
    ]);

  /** Push `count` jobs whose handler throws; their payload uuids (the failed records' ids). */
  async function pushFailing(count: number): Promise<string[]> {
    await queue.bulk(Array.from({ length: count }, () => ChainStep.make({ step: 13 })));
    return (await queue.pendingJobs()).map((j) => (JSON.parse(j.payload) as { uuid: string }).uuid);
  }

  /** Resolves once the worker has printed its first FAIL line. */
  async function firstFailure(worker: LarqProcess): Promise<void> {
    while (!worker.stdout.includes('FAIL')) {
      if (worker.child.exitCode !== null) throw new Error(`larq work exited before failing a job:\n${worker.stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  async function rejection(promise: Promise<unknown>): Promise<unknown> {
    return promise.then(
      () => null,
      (e: unknown) => e,
    );
  }

  it('keeps all 90 failures two larq work processes record into one file', async function () {
    const uuids = await pushFailing(90);
    const workers = [work(), work()];
    const codes = await Promise.all(workers.map((w) => w.done));
    expect(codes, workers.map((w) => w.stderr).join('\n')).to.deep.equal([0, 0]);
    expect(ids()).to.have.members(uuids);
    expect(await queue.size('default')).to.equal(0);
  });

  for (const line of ['12.67', '13.26'] as const) {
    it(`keeps every failure when larq work and Laravel ${line} record into one file at once`, async function () {
      requirePhp(this, line);
      const larqUuids = await pushFailing(45);
      const phpUuids = Array.from({ length: 45 }, () => randomUUID());
      const worker = work();
      await firstFailure(worker);
      const php = runPhp(
        'failed-provider.php',
        ['log-many', JSON.stringify({ queue: 'default', uuids: phpUuids, pause_ms: 20 })],
        {
          LARQ_LARAVEL: line,
          LARQ_FAILED_DRIVER: 'file',
          LARQ_FAILED_FILE: file,
          // The skeleton's cache.stores.file.lock_path, as larq assumes for the app.
          LARQ_FAILED_LOCK_DIR: join(app, 'storage', 'framework', 'cache', 'data'),
        },
        120000,
      );
      const [code, result] = await Promise.all([worker.done, php]);
      expect(code, worker.stderr).to.equal(0);
      expect(result.code, result.stderr).to.equal(0);
      expect(ids()).to.have.members([...larqUuids, ...phpUuids]);
    });
  }

  it('larq forget beside a worker loses no record and brings none back', async function () {
    const store = new FileFailedJobProvider(file);
    const old = Array.from({ length: 20 }, () => randomUUID());
    for (const id of old) await store.log('redis', 'default', JSON.stringify({ uuid: id, job: 'x', data: {} }), 'old');
    const failing = await pushFailing(80);
    const worker = work();
    await firstFailure(worker);
    // Ten forget processes at once, while the worker records its failures.
    const forgets = await Promise.all(
      old.slice(0, 10).map((id) => runLarq(cli.main, ['forget', id, `--app=${app}`, `--env=${env}`])),
    );
    for (const run of forgets) expect(run.code, run.stderr).to.equal(0);
    expect(await worker.done, worker.stderr).to.equal(0);
    expect(ids()).to.have.members([...old.slice(10), ...failing]);
  });

  it('keeps a file it cannot parse as it is, and the error names the file', async function () {
    const garbage = '[{"id": "a", "queue": "default"},\n  {"id": "b", ... cut short';
    writeFileSync(file, garbage);
    const store = new FileFailedJobProvider(file);
    const refused = await rejection(
      store.log('redis', 'default', JSON.stringify({ uuid: randomUUID(), job: 'x', data: {} }), 'E'),
    );
    expect(refused).to.be.instanceOf(UnreadableFailedJobFileError);
    expect((refused as Error).message).to.include(file);
    for (const notRecords of ['{"id": "a"}', 'null', '[1, 2]']) {
      writeFileSync(file, notRecords);
      const forgot = await rejection(store.forget('a'));
      expect(forgot).to.be.instanceOf(UnreadableFailedJobFileError);
      expect((forgot as Error).message).to.include(file);
      expect(readFileSync(file, 'utf8')).to.equal(notRecords);
    }
    writeFileSync(file, garbage);
    const [uuid] = await pushFailing(1);
    // The worker checks its store before taking a job: it refuses to start, and the job waits.
    const run = await runLarq(cli.main, [
      'work',
      `--handlers=${cli.handlers}`,
      `--app=${app}`,
      `--env=${env}`,
      '--stop-when-empty',
      '--sleep=0',
      '--tries=1',
    ]);
    expect(run.code).to.not.equal(0);
    expect(run.stderr).to.include(file);
    expect(readFileSync(file, 'utf8')).to.equal(garbage);
    expect((await queue.pendingJobs()).map((j) => (JSON.parse(j.payload) as { uuid: string }).uuid)).to.deep.equal([
      uuid,
    ]);
    const listed = await runLarq(cli.main, ['failed', `--app=${app}`, `--env=${env}`]);
    expect(listed.code).to.not.equal(0);
    expect(listed.stderr).to.include(file);
  });
});
