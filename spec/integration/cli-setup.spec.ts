// `larq work` on a broken set-up stops at once, exit status 1, with one line naming the setting and the
// fix, instead of idling or repeating a database error every few seconds while no job runs.
import { expect } from 'chai';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { createCacheTables } from '../../lib/cache';
import { createFailedJobsTable } from '../../lib/failed';
import { RedisQueue } from '../../lib/RedisQueue';
import { ChainStep } from '../support/phpJobs';
import { compileCli, type CompiledCli } from '../support/compiled';
import { runLarq } from '../support/larqProcess';
import { requireRedis } from '../support/redis';

describe('larq work on a broken set-up', function () {
  this.timeout(60000);
  let port: number;
  let cli: CompiledCli;
  let dir: string;

  before(async function () {
    port = await requireRedis(this);
    cli = compileCli();
    dir = mkdtempSync(join(tmpdir(), 'larq-setup-'));
  });
  after(() => {
    cli?.remove();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  async function work(
    env: Record<string, string>,
    args: string[] = [],
    app = mkdtempSync(join(dir, 'app-')),
  ): Promise<{ code: number | null; stdout: string; stderr: string; ms: number }> {
    const lines = { APP_NAME: 'Shop', REDIS_HOST: '127.0.0.1', REDIS_PORT: String(port), LARQ_LARAVEL: '12', ...env };
    writeFileSync(
      join(app, '.env'),
      Object.entries(lines)
        .map(([k, v]) => `${k}=${v}`)
        .join('\n') + '\n',
    );
    const started = Date.now();
    const run = await runLarq(cli.main, ['work', `--handlers=${cli.handlers}`, '--sleep=0.1', ...args], {
      cwd: app,
      timeoutMs: 20000,
    });
    return { ...run, ms: Date.now() - started };
  }

  async function sqliteWith(tables: { failed?: boolean; cache?: boolean }): Promise<string> {
    const file = join(mkdtempSync(join(dir, 'db-')), 'database.sqlite');
    writeFileSync(file, '');
    if (tables.failed) await createFailedJobsTable({ driver: 'sqlite', database: file });
    if (tables.cache) await createCacheTables({ driver: 'sqlite', database: file });
    return file;
  }

  it("stops when Laravel 11+'s default database cache store has no cache table, naming CACHE_STORE and the fix", async function () {
    const db = await sqliteWith({ failed: true });
    const run = await work({ DB_CONNECTION: 'sqlite', DB_DATABASE: db, CACHE_STORE: 'database' });
    expect(run.code, run.stderr).to.equal(1);
    expect(run.stderr).to.equal(
      `larq work: CACHE_STORE=database: the cache table "cache" does not exist in sqlite ${db}; create it with \`php artisan make:cache-table && php artisan migrate\` ` +
        '(Laravel 11+ apps have it after `php artisan migrate`), or point CACHE_STORE at a store that exists (redis)\n',
    );
  });

  it('stops when the failed_jobs table is missing, naming QUEUE_FAILED_DRIVER and the fix', async function () {
    const db = await sqliteWith({ cache: true });
    const run = await work({ DB_CONNECTION: 'sqlite', DB_DATABASE: db, CACHE_STORE: 'database' });
    expect(run.code, run.stderr).to.equal(1);
    expect(run.stderr).to.match(
      /^larq work: QUEUE_FAILED_DRIVER=database-uuids: the failed-jobs table "failed_jobs" does not exist in sqlite .*make:queue-failed-table.*QUEUE_FAILED_DRIVER=null to record no failures\n$/,
    );
  });

  it('stops when the database cannot be reached, naming the DB_ settings', async function () {
    const run = await work({
      DB_CONNECTION: 'mysql',
      DB_HOST: '127.0.0.1',
      DB_PORT: '1',
      DB_DATABASE: 'shop',
      DB_USERNAME: 'root',
      CACHE_STORE: 'array',
    });
    expect(run.code, run.stderr).to.equal(1);
    expect(run.stderr).to.match(
      /^larq work: QUEUE_FAILED_DRIVER=database-uuids: cannot use the database mysql root@127\.0\.0\.1:1\/shop: .*\(check DB_CONNECTION, DB_HOST, DB_PORT, DB_DATABASE, DB_USERNAME, DB_PASSWORD\)\n$/,
    );
  });

  it('stops on an unreachable Redis and on a bad APP_KEY, naming them', async function () {
    const redis = await work({ REDIS_PORT: '1', QUEUE_FAILED_DRIVER: 'null', CACHE_STORE: 'array' });
    expect(redis.code, redis.stderr).to.equal(1);
    expect(redis.stderr).to.match(/^larq work: cannot reach Redis at redis:\/\/127\.0\.0\.1:1\/0: /);
    const key = await work({ APP_KEY: 'base64:dG9vc2hvcnQ=', QUEUE_FAILED_DRIVER: 'null', CACHE_STORE: 'array' });
    expect(key.code, key.stderr).to.equal(1);
    expect(key.stderr).to.match(/^larq work: APP_KEY: /);
  });

  it("takes no jobs while the app is down (php artisan down's storage/framework/down), unless --force", async function () {
    const app = mkdtempSync(join(dir, 'app-'));
    mkdirSync(join(app, 'storage', 'framework'), { recursive: true });
    writeFileSync(join(app, 'storage', 'framework', 'down'), '{"retry":60}');
    const queue = new RedisQueue({ connection: { port }, prefix: 'shop_database_', laravel: 12 });
    await queue.clear('default');
    await queue.push(ChainStep.make({ step: 1 }));
    const env = { QUEUE_FAILED_DRIVER: 'null', CACHE_STORE: 'array' };
    try {
      const down = await work(env, ['--stop-when-empty'], app);
      expect(down.code, down.stderr).to.equal(0);
      expect(down.stdout).not.to.include('RUNNING');
      expect(down.stdout).to.match(
        /Maintenance \.+ paused while the app is down \(the file .*storage\/framework\/down\)/,
      );
      expect(await queue.size('default')).to.equal(1);
      const forced = await work(env, ['--stop-when-empty', '--force'], app);
      expect(forced.code, forced.stderr).to.equal(0);
      expect(forced.stdout).to.match(/App\\Jobs\\ChainStep \.+ [\d.]+m?s DONE/);
      expect(await queue.size('default')).to.equal(0);
    } finally {
      await queue.close();
    }
  });

  describe('--memory', function () {
    let heavy: CompiledCli;
    before(() => (heavy = compileCli(['spec/support/cli/heavyHandlers.ts'])));
    after(() => heavy?.remove());

    async function run(
      env: Record<string, string>,
      args: string[],
    ): Promise<{ code: number | null; stdout: string; stderr: string }> {
      const queue = new RedisQueue({ connection: { port }, prefix: 'shop_database_', laravel: 12 });
      await queue.clear('default');
      for (let step = 1; step <= 3; step++) await queue.push(ChainStep.make({ step }));
      await queue.close();
      const app = mkdtempSync(join(dir, 'app-'));
      const lines = {
        APP_NAME: 'Shop',
        REDIS_HOST: '127.0.0.1',
        REDIS_PORT: String(port),
        LARQ_LARAVEL: '12',
        QUEUE_FAILED_DRIVER: 'null',
        CACHE_STORE: 'array',
      };
      writeFileSync(
        join(app, '.env'),
        Object.entries(lines)
          .map(([k, v]) => `${k}=${v}`)
          .join('\n') + '\n',
      );
      return runLarq(
        heavy.main,
        [
          'work',
          `--handlers=${heavy.compiled('spec/support/cli/heavyHandlers.ts')}`,
          '--stop-when-empty',
          '--sleep=0',
          ...args,
        ],
        { cwd: app, env },
      );
    }

    it("does not count the memory held before the first job (a TypeScript loader's, the module's own)", async function () {
      const result = await run({ LARQ_SPEC_BASELINE_MB: '200', LARQ_SPEC_GROW_MB: '0' }, []);
      expect(result.code, result.stderr).to.equal(0);
      expect(result.stdout.match(/ DONE$/gm)).to.have.length(3);
      expect(result.stdout).to.include('Worker stopped: empty (status 0)');
    });

    it('stops with status 12 once the worker has grown past --memory', async function () {
      const result = await run({ LARQ_SPEC_BASELINE_MB: '200', LARQ_SPEC_GROW_MB: '40' }, ['--memory=64']);
      expect(result.code, result.stderr).to.equal(12);
      expect(result.stdout.match(/ DONE$/gm)).to.have.length(2);
      expect(result.stdout).to.include('Worker stopped: memory (status 12)');
    });
  });

  it('says what is wrong with a handlers module: the package an ES module imports, or file:line of a syntax error', async function () {
    const app = mkdtempSync(join(dir, 'app-'));
    writeFileSync(
      join(app, '.env'),
      `APP_NAME=Shop\nREDIS_HOST=127.0.0.1\nREDIS_PORT=${port}\nQUEUE_FAILED_DRIVER=null\nCACHE_STORE=array\n`,
    );
    writeFileSync(join(app, 'imports.mjs'), "import 'larq-no-such-package';\nexport default {};\n");
    writeFileSync(join(app, 'broken.mjs'), 'export default {\n  a: 1\n  b: 2,\n};\n');
    const missing = await runLarq(cli.main, ['work', '--handlers=./imports.mjs'], { cwd: app });
    expect(missing.code).to.equal(1);
    expect(missing.stderr).not.to.include('no such module');
    expect(missing.stderr).to.match(
      /loading --handlers=\.\/imports\.mjs failed: .*Cannot find package 'larq-no-such-package'/,
    );
    const broken = await runLarq(cli.main, ['work', '--handlers=./broken.mjs'], { cwd: app });
    expect(broken.code).to.equal(1);
    expect(broken.stderr).to.match(/loading --handlers=\.\/broken\.mjs failed: \/.*broken\.mjs:3: SyntaxError: /);
  });
});
