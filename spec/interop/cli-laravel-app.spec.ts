// `larq work` as a drop-in for queue:work in a real Laravel 12 or 13 app: an app directory with a .env and
// a composer.lock, real Laravel dispatching and working beside it, and the larq command as a process.
import { expect } from 'chai';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { randomBytes } from 'crypto';
import type Redis from 'ioredis';
import { compileCli, type CompiledCli } from '../support/compiled';
import { startLarq } from '../support/larqProcess';
import { laravelMajor, phpDispatch, requirePhp, runLaravelWorker, type PhpLaravelLine } from '../support/php';
import { dispatch13 } from '../support/php13';
import { rawClient, requireRedis } from '../support/redis';
import { ownRedis } from '../support/redisServer';

const LINES: PhpLaravelLine[] = ['12.67', '13.26'];

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

for (const line of LINES)
  describe(`interop: larq work in a Laravel ${line} app`, function () {
    this.timeout(90000);
    let port: number;
    let client: Redis;
    let cli: CompiledCli;
    let dir: string;
    let app: string;
    let steps: string;
    let id: string;

    before(async function () {
      requirePhp(this, line);
      port = await requireRedis(this);
      client = rawClient(port);
      cli = compileCli(['spec/support/cli/appHandlers.ts']);
      dir = mkdtempSync(join(tmpdir(), 'larq-app-'));
    });
    after(() => {
      client?.disconnect();
      cli?.remove();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });
    beforeEach(() => {
      id = randomBytes(4).toString('hex');
      app = mkdtempSync(join(dir, 'app-'));
      steps = join(app, 'steps.log');
      writeFileSync(steps, '');
    });

    // What each skeleton derives from APP_NAME "Acme Shop <id>" (Str::slug by hand: the thing under test).
    const skeletonPrefix = (major: number) => (major >= 13 ? `acme-shop-${id}-database-` : `acme_shop_${id}_database_`);

    function writeApp(env: Record<string, string>, composerVersion?: string): void {
      const lines = {
        APP_NAME: `"Acme Shop ${id}"`,
        REDIS_HOST: '127.0.0.1',
        REDIS_PORT: String(port),
        QUEUE_FAILED_DRIVER: 'null',
        CACHE_STORE: 'array',
        LARQ_SPEC_STEPS: steps,
        ...env,
      };
      writeFileSync(
        join(app, '.env'),
        Object.entries(lines)
          .map(([k, v]) => `${k}=${v}`)
          .join('\n') + '\n',
      );
      if (composerVersion)
        writeFileSync(
          join(app, 'composer.lock'),
          JSON.stringify({ packages: [{ name: 'laravel/framework', version: `v${composerVersion}.0` }] }),
        );
    }

    // Run larq in the app; with `until`, stop it as soon as its stderr matches, noting when that was.
    async function larq(
      args: string[],
      until?: { stderr: RegExp; ms: number },
    ): Promise<Run & { matchedAfterMs?: number }> {
      const started = Date.now();
      const run = startLarq(cli.main, args, { cwd: app });
      let matchedAfterMs: number | undefined;
      run.child.stderr!.on('data', () => {
        if (until && matchedAfterMs === undefined && until.stderr.test(run.stderr)) {
          matchedAfterMs = Date.now() - started;
          run.child.kill('SIGKILL');
        }
      });
      const limit = setTimeout(() => run.child.kill('SIGKILL'), until?.ms ?? 60000);
      const code = await run.done;
      clearTimeout(limit);
      return { code, stdout: run.stdout, stderr: run.stderr, matchedAfterMs };
    }

    const handlers = () => `--handlers=${cli.compiled('spec/support/cli/appHandlers.ts')}`;

    it('finds the jobs of an app whose .env names no version, reading the version from composer.lock', async function () {
      writeApp({}, line);
      const prefix = skeletonPrefix(laravelMajor(line));
      await phpDispatch('on-queue', { laravel: line, port, prefix, args: ['default'] });
      const run = await larq(['work', handlers(), '--stop-when-empty', '--sleep=0']);
      expect(run.code, run.stderr).to.equal(0);
      expect(readFileSync(steps, 'utf8')).to.equal(`factory ${prefix} ${line} Acme Shop ${id}\nstep 1\n`);
      expect(run.stdout).to.match(
        new RegExp(
          `Key prefix \\.+ "${prefix}" \\(derived from APP_NAME as the Laravel ${laravelMajor(line) >= 13 ? '13' : '8-12'} skeleton does\\)`,
        ),
      );
      expect(run.stdout).to.match(new RegExp(`Laravel \\.+ ${line.replace('.', '\\.')} \\(composer\\.lock\\)`));
      expect(await client.exists(`${prefix}queues:default`, `${prefix}queues:default:reserved`)).to.equal(0);
    });

    it("warns within a second of starting when the jobs wait under the other line's prefix", async function () {
      // The app's .env points larq at the other skeleton: no version at all (13) for a 12 app, 12 for a 13 app.
      const otherMajor = laravelMajor(line) >= 13 ? 12 : 13;
      writeApp(otherMajor === 12 ? { LARQ_LARAVEL: '12' } : {});
      const prefix = skeletonPrefix(laravelMajor(line));
      await phpDispatch('on-queue', { laravel: line, port, prefix, args: ['default'] });
      const run = await larq(['work', handlers(), '--sleep=0.2'], {
        stderr: /warning: 1 job\(s\) of queue \[default\] wait under the prefix "[^"]+"/,
        ms: 15000,
      });
      expect(run.matchedAfterMs, run.stderr).to.be.a('number');
      expect(run.stderr).to.include(`wait under the prefix "${prefix}"`);
      expect(run.stderr).to.include(`but this process uses "${skeletonPrefix(otherMajor)}"`);
      expect(run.stderr).to.include('set LARQ_LARAVEL to its version or REDIS_PREFIX to its prefix');
      // A second after the process was spawned, Node's start-up included.
      expect(run.matchedAfterMs!).to.be.below(Math.max(1000, Number(process.env.LARQ_SPEC_SLOW_MS ?? 0)));
      expect(readFileSync(steps, 'utf8')).not.to.include('step');
      // larq size and monitor say it too, on stderr, with their table unchanged
      for (const command of ['size', 'monitor']) {
        const sized = await larq([command]);
        expect(sized.stderr).to.include(
          `larq ${command}: warning: 1 job(s) of queue [default] wait under the prefix "${prefix}"`,
        );
        expect(sized.stdout).to.match(/^redis:default +0 +0 +0 +0/m);
      }
    });

    it('warns within a second when jobs for its queue wait under the prefix of another APP_NAME, at start or when they arrive', async function () {
      // The .env's APP_NAME is not the one the PHP app derives its prefix from; the version is right.
      writeApp({ APP_NAME: `"Wrong Shop ${id}"` }, line);
      const prefix = skeletonPrefix(laravelMajor(line));
      const ours = laravelMajor(line) >= 13 ? `wrong-shop-${id}-database-` : `wrong_shop_${id}_database_`;
      const queue = `q${id}`;
      const warning = new RegExp(`warning: 1 job\\(s\\) of queue \\[${queue}\\] wait under the prefix "${prefix}"`);
      const slack = Math.max(1000, Number(process.env.LARQ_SPEC_SLOW_MS ?? 0));

      // started first: the job PHP dispatches afterwards is found within a second of its dispatch
      const run = startLarq(cli.main, ['work', handlers(), `--queue=${queue}`, '--sleep=0.2'], { cwd: app });
      try {
        for (let waited = 0; !run.stdout.includes('Processing jobs') && waited < 15000; waited += 50)
          await new Promise((r) => setTimeout(r, 50));
        await phpDispatch('on-queue', { laravel: line, port, prefix, args: [queue] });
        const dispatched = Date.now();
        while (!warning.test(run.stderr) && Date.now() - dispatched < 15000)
          await new Promise((r) => setTimeout(r, 20));
        expect(run.stderr).to.match(warning);
        expect(Date.now() - dispatched, run.stderr).to.be.below(slack);
        expect(run.stderr).to.include(`but this process uses "${ours}"`);
        expect(run.stderr).to.include("set APP_NAME to the PHP app's or REDIS_PREFIX to its prefix");
      } finally {
        run.child.kill('SIGKILL');
        await run.done;
      }
      // started after: said within a second of starting
      const again = await larq(['work', handlers(), `--queue=${queue}`, '--sleep=0.2'], { stderr: warning, ms: 15000 });
      expect(again.matchedAfterMs, again.stderr).to.be.a('number');
      expect(again.matchedAfterMs!).to.be.below(slack);
      expect(readFileSync(steps, 'utf8')).not.to.include('step');
      for (const command of ['size', 'monitor']) {
        const sized = await larq([command, queue]);
        expect(sized.stderr).to.match(new RegExp(`larq ${command}: ${warning.source}`));
        expect(sized.stdout).to.match(new RegExp(`^redis:${queue} +0 +0 +0 +0`, 'm'));
      }
    });

    it('keeps stdout JSON-only under --json, warns when started through npm, and says nothing of a lost connection after a clean stop', async function () {
      writeApp({ CACHE_STORE: 'redis' }, line); // the cache and its lock connection: more connections to close
      const prefix = skeletonPrefix(laravelMajor(line));
      await phpDispatch('on-queue', { laravel: line, port, prefix, args: ['default'] });
      // Started as npx starts it: a child of npm's npx-cli.js (this stand-in passes SIGTERM on, as it waits).
      const npx = join(mkdtempSync(join(tmpdir(), 'larq-npx-')), 'npx-cli.js');
      writeFileSync(
        npx,
        "const c = require('child_process').spawn(process.execPath, process.argv.slice(2), { stdio: 'inherit' });\n" +
          "process.on('SIGTERM', () => c.kill('SIGTERM'));\nc.on('exit', (code) => process.exit(code ?? 1));\n",
      );
      const run = startLarq(npx, [cli.main, 'work', handlers(), '--json', '--sleep=0.2'], { cwd: app });
      try {
        for (let waited = 0; !readFileSync(steps, 'utf8').includes('step 1') && waited < 15000; waited += 50)
          await new Promise((r) => setTimeout(r, 50));
        await new Promise((r) => setTimeout(r, 300));
        run.child.kill('SIGTERM');
        expect(await run.done, run.stderr).to.equal(0);
      } finally {
        run.child.kill('SIGKILL');
      }
      const lines = run.stdout.split('\n').filter((l) => l !== '');
      expect(lines.length, run.stdout).to.be.greaterThan(0);
      for (const l of lines) expect(() => JSON.parse(l), `stdout line: ${l}`).not.to.throw();
      expect(run.stderr).to.include('handled step 1');
      expect(run.stderr).to.include(
        "larq work: warning: started through npm (npx, npm exec or npm run): a supervisor's SIGTERM goes to npm",
      );
      expect(run.stderr).not.to.include('connection lost');
    });

    it('says nothing of a lost connection after any clean stop (SIGTERM, --stop-when-empty, --max-jobs), run after run', async function () {
      this.timeout(240000);
      // the Redis cache store and its lock connection: every connection a worker opens is closed on the way out
      writeApp({ CACHE_STORE: 'redis' }, line);
      const prefix = skeletonPrefix(laravelMajor(line));
      const RUNS = 6;
      await phpDispatch('bulk', { laravel: line, port, prefix, args: [RUNS] });
      const sigterm = async (): Promise<Run> => {
        const run = startLarq(cli.main, ['work', handlers(), '--sleep=0.1'], { cwd: app });
        try {
          for (let waited = 0; !run.stdout.includes('Processing jobs') && waited < 15000; waited += 20)
            await new Promise((r) => setTimeout(r, 20));
          await new Promise((r) => setTimeout(r, Math.random() * 300)); // stopped at a different point of its loop each time
          run.child.kill('SIGTERM');
          return { code: await run.done, stdout: run.stdout, stderr: run.stderr };
        } finally {
          run.child.kill('SIGKILL');
        }
      };
      // side by side, as a fleet's workers stop: first one job each, then with nothing left to do
      const times = <T>(make: () => Promise<T>) => Array.from({ length: RUNS }, make);
      const done = await Promise.all(times(() => larq(['work', handlers(), '--max-jobs=1', '--sleep=0.1'])));
      expect(readFileSync(steps, 'utf8').match(/^step /gm), 'a job for each').to.have.length(RUNS);
      done.push(
        ...(await Promise.all([
          ...times(() => larq(['work', handlers(), '--stop-when-empty', '--sleep=0'])),
          ...times(sigterm),
        ])),
      );
      for (const run of done) {
        expect(run.code, run.stderr).to.equal(0);
        expect(run.stderr + run.stdout).not.to.include('connection lost');
        expect(run.stderr + run.stdout).not.to.include('reconnecting');
      }
    });

    it("runs beside an old queue:restart key, and says in one line why it stops when Laravel's queue:restart changes it", async function () {
      const cachePrefix = `acme_${id}_cache_`;
      // the cache where the PHP harness's store is: the default connection (db 0), the same prefix
      writeApp({ CACHE_STORE: 'redis', REDIS_CACHE_DB: '0', CACHE_PREFIX: cachePrefix }, line);
      const prefix = skeletonPrefix(laravelMajor(line));
      const php = { laravel: line, port, prefix, cachePrefix };
      const old = 1795000000; // 2026-11-18 11:06:40 UTC
      const now = 1795300000; // 2026-11-21 22:26:40 UTC
      await dispatch13('restart', [], { ...php, now: old });
      expect(await client.get(`${prefix}${cachePrefix}illuminate:queue:restart`)).to.equal(String(old));
      const run = startLarq(cli.main, ['work', handlers(), '--sleep=0.1'], { cwd: app });
      try {
        for (let waited = 0; !run.stdout.includes('Processing jobs') && waited < 15000; waited += 20)
          await new Promise((r) => setTimeout(r, 20));
        // the old key was there before it started: Laravel's worker takes it as its baseline, and so does larq
        await new Promise((r) => setTimeout(r, 1000));
        expect(run.child.exitCode, run.stderr).to.equal(null);
        await dispatch13('restart', [], { ...php, now });
        expect(await run.done, run.stderr).to.equal(0);
      } finally {
        run.child.kill('SIGKILL');
      }
      const said = run.stderr.split('\n').filter((l) => l.includes('queue:restart'));
      expect(said, run.stderr).to.deep.equal([
        `larq work: stopping: queue:restart signalled at 2026-11-21 22:26:40 UTC (cache key illuminate:queue:restart in the redis store: ${now}, ${old} when this worker started); Laravel's queue:work stops on it too, with status 0, for its supervisor to start it again`,
      ]);
    });

    it('names REDIS_PASSWORD when Redis refuses the password', async function () {
      const guarded = await ownRedis();
      const admin = guarded.admin();
      await admin.config('SET', 'requirepass', 'right-password');
      admin.disconnect();
      try {
        writeApp(
          { REDIS_PORT: String(guarded.port), REDIS_PASSWORD: 'wrong-password', QUEUE_FAILED_DRIVER: 'null' },
          line,
        );
        const run = await larq(['work', handlers(), '--stop-when-empty']);
        expect(run.code, run.stderr).to.equal(1);
        expect(run.stderr).to.match(/^larq work: cannot reach Redis at .*WRONGPASS.*; check REDIS_PASSWORD/m);
      } finally {
        await guarded.stop();
      }
    });

    it('a PHP 3-step chain whose middle step runs under larq work (no hooks written by the user) completes in order', async function () {
      writeApp({}, line);
      const prefix = skeletonPrefix(laravelMajor(line));
      await phpDispatch('chain-node', { laravel: line, port, prefix });
      const first = await runLaravelWorker({ laravel: line, port, prefix, queue: 'default' });
      expect(first.map((r) => r.description)).to.have.length(1);
      const run = await larq(['work', handlers(), '--queue=node', '--stop-when-empty', '--sleep=0']);
      expect(run.code, run.stderr).to.equal(0);
      const last = await runLaravelWorker({ laravel: line, port, prefix, queue: 'default' });
      const phpSteps = [...first, ...last].map(
        (r) =>
          (r.description as { props: { name: string; value: { v: number } }[] }).props.find((p) => p.name === 'step')!
            .value.v,
      );
      expect(phpSteps).to.deep.equal([1, 3]);
      expect(
        readFileSync(steps, 'utf8')
          .split('\n')
          .filter((l) => l.startsWith('step')),
      ).to.deep.equal(['step 2']);
      expect(first[0].time).to.be.below(last[0].time);
    });

    it('fails a job it has no handler for with the reason and uuid on stderr, or leaves it to PHP with --unknown-jobs=release', async function () {
      writeApp({}, line);
      const prefix = skeletonPrefix(laravelMajor(line));
      const sent = await phpDispatch('object-basic', { laravel: line, port, prefix });
      const released = await larq([
        'work',
        handlers(),
        '--unknown-jobs=release',
        '--tries=3',
        '--stop-when-empty',
        '--sleep=0',
        '--max-jobs=1',
      ]);
      expect(released.code, released.stderr).to.equal(0);
      // shown as what became of it: put back for PHP, not done
      expect(released.stdout).to.match(/App\\Jobs\\SendWelcomeEmail \.+ .*RELEASED$/m);
      expect(released.stdout).not.to.match(/SendWelcomeEmail .*DONE/);
      // larq's pop counted an attempt, as a PHP worker's release would: a PHP worker with --tries=1 would
      // now fail it unrun (the README's reason to give Node jobs a queue of their own)
      const ran = await runLaravelWorker({ laravel: line, port, prefix, queue: 'default', tries: 3 });
      expect(ran.map((r) => r.class)).to.deep.equal(['App\\Jobs\\SendWelcomeEmail']);
      expect(ran[0].attempts).to.equal(2);

      await phpDispatch('object-basic', { laravel: line, port, prefix });
      const failed = await larq(['work', handlers(), '--stop-when-empty', '--sleep=0']);
      expect(failed.code, failed.stderr).to.equal(0);
      expect(failed.stderr).to.match(
        /larq work: App\\Jobs\\SendWelcomeEmail \[[0-9a-f-]{36}\] \(attempt 1\) failed for good \(UnknownJobError\): .*App\\Jobs\\SendWelcomeEmail/,
      );
      expect(sent.ids).to.have.length(1);
      expect(existsSync(steps)).to.equal(true);
    });

    it("releases a unique PHP job's lock when it fails the job (no handler, too many attempts), so PHP can dispatch it again", async function () {
      const cachePrefix = `acme_${id}_cache_`;
      writeApp({ CACHE_STORE: 'redis', CACHE_PREFIX: cachePrefix }, line);
      const prefix = skeletonPrefix(laravelMajor(line));
      const php = { laravel: line, port, prefix, cachePrefix, args: [`u-${id}`, 'default'] };
      const lock = `${prefix}${cachePrefix}laravel_unique_job:App\\Jobs\\UniqueJob:u-${id}`;
      expect((await phpDispatch('unique', php)).ids).to.have.length(1);
      // held: PHP's second dispatch of the same unique id is refused
      expect((await phpDispatch('unique', php)).ids).to.have.length(0);
      expect(await client.exists(lock)).to.equal(1);
      // no Node handler for App\Jobs\UniqueJob: larq fails it (--unknown-jobs=fail, the default)
      const run = await larq(['work', handlers(), '--stop-when-empty', '--sleep=0']);
      expect(run.code, run.stderr).to.equal(0);
      expect(run.stderr).to.match(/App\\Jobs\\UniqueJob \[[0-9a-f-]{36}\] \(attempt 1\) failed for good/);
      // released as CallQueuedHandler::failed releases it: PHP's dispatch of the same id goes through
      expect(await client.exists(lock)).to.equal(0);
      expect((await phpDispatch('unique', php)).ids).to.have.length(1);
      expect(await client.exists(lock)).to.equal(1);

      // put back for PHP, popped again past --tries: failed for too many attempts, its lock released too
      const tries = await larq([
        'work',
        handlers(),
        '--unknown-jobs=release',
        '--tries=1',
        '--stop-when-empty',
        '--sleep=0',
      ]);
      expect(tries.code, tries.stderr).to.equal(0);
      expect(tries.stderr).to.match(/App\\Jobs\\UniqueJob \[[0-9a-f-]{36}\] \(attempt 2\) failed for good/);
      expect(await client.exists(lock)).to.equal(0);
      expect((await phpDispatch('unique', php)).ids).to.have.length(1);
    });

    it('warns when a string job returned without delete() or release(), which leaves it reserved', async function () {
      writeApp({}, line);
      const prefix = skeletonPrefix(laravelMajor(line));
      await phpDispatch('string-method', { laravel: line, port, prefix });
      const run = await larq(['work', handlers(), '--stop-when-empty', '--sleep=0']);
      expect(run.code, run.stderr).to.equal(0);
      expect(run.stderr).to.match(
        /larq work: App\\Handlers\\RawHandler \[[0-9a-f-]{36}\] \(attempt 1\) returned without delete\(\) or release\(\): it stays reserved and runs again after retry_after/,
      );
      expect(await client.zcard(`${prefix}queues:default:reserved`)).to.equal(1);
    });
  });
