// The command line: flags as artisan spells them, and one clear line (exit 2) for every mistake.
import { expect } from 'chai';
import { writeFileSync } from 'fs';
import { join } from 'path';
import { configFor, numberFlag, parse, UsageError, type Command } from '../../../lib/cli/args';
import { COMMANDS, main } from '../../../lib/cli/main';
import { useTempDir } from '../../support/useTempDir';

const command = (name: string) => COMMANDS.find((c) => c.name === name)!;

async function run(...argv: string[]): Promise<{ status: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const status = await main(argv, { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { status, out: out.join('\n'), err: err.join('\n') };
}

describe('larq CLI arguments', function () {
  it('parses --flag=value, --flag value, switches and positionals', function () {
    const p = parse(command('work'), ['redis', '--queue=high,default', '--tries', '3', '--stop-when-empty', '-q']);
    expect(p.positionals).to.deep.equal(['redis']);
    expect(p.values).to.include({ queue: 'high,default', tries: '3', 'stop-when-empty': true, quiet: true });
    expect(parse(command('retry'), ['all', '--range=1-3', '--range=7-8']).values.range).to.deep.equal(['1-3', '7-8']);
  });

  it('names an unknown flag, with the nearest known one', function () {
    expect(() => parse(command('work'), ['--tires=3'])).to.throw(
      UsageError,
      'larq work: unknown option --tires; did you mean --tries? (see larq work --help)',
    );
    expect(() => parse(command('failed'), ['--zzz'])).to.throw(
      UsageError,
      'larq failed: unknown option --zzz (see larq failed --help)',
    );
  });

  it('says when a switch got a value or a flag none', function () {
    expect(() => parse(command('clear'), ['--force=yes'])).to.throw(
      UsageError,
      'larq clear: --force is a switch and takes no value',
    );
    expect(() => parse(command('work'), ['--quiet=yes'])).to.throw(
      UsageError,
      'larq work: --quiet is a switch and takes no value',
    );
    expect(() => parse(command('work'), ['--queue'])).to.throw(
      UsageError,
      'larq work: --queue needs a value: --queue=VALUE',
    );
  });

  it('checks the number of arguments', function () {
    expect(() => parse(command('failed'), ['x'])).to.throw(
      UsageError,
      'larq failed: unexpected argument "x" (larq failed takes no arguments)',
    );
    expect(() => parse(command('work'), ['a', 'b'])).to.throw(
      UsageError,
      'larq work: unexpected argument "b" (it takes one connection name)',
    );
    expect(() => parse(command('forget'), [])).to.throw(
      UsageError,
      'larq forget: missing one failed job ID (see larq forget --help)',
    );
    expect(parse(command('forget'), ['--help']).values.help).to.equal(true);
  });

  it('reads number flags, naming the flag and what it allows', function () {
    const p = parse(command('work'), ['--timeout=soon', '--sleep=0.5', '--concurrency=0', '--tries=-1']);
    expect(() => numberFlag(p, 'timeout', 60)).to.throw(
      UsageError,
      'larq work: --timeout must be a whole number >= 0, got "soon"',
    );
    expect(numberFlag(p, 'sleep', 3, { fractional: true })).to.equal(0.5);
    expect(() => numberFlag(p, 'sleep', 3)).to.throw(UsageError, '--sleep must be a whole number >= 0, got "0.5"');
    expect(() => numberFlag(p, 'concurrency', 1, { min: 1 })).to.throw(
      UsageError,
      '--concurrency must be a whole number >= 1, got "0"',
    );
    expect(() => numberFlag(p, 'tries', 1)).to.throw(UsageError, '--tries must be a whole number >= 0, got "-1"');
    expect(numberFlag(p, 'memory', 128)).to.equal(128);
  });

  describe('the global flags', function () {
    const temp = useTempDir('args', 'all');
    const size: Command = command('size');

    it('--app reads the app .env and resolves paths from it; --env another file; the process wins', function () {
      writeFileSync(join(temp.path, '.env'), 'APP_NAME="From App"\nREDIS_PORT=7000\n');
      writeFileSync(join(temp.path, 'other.env'), 'APP_NAME=Other\n');
      const fromApp = configFor(parse(size, [`--app=${temp.path}`]), {});
      expect(fromApp.queue).to.include({ appName: 'From App', connection: 'redis://127.0.0.1:7000/0' });
      expect(fromApp.appDir).to.equal(temp.path);
      expect(
        configFor(parse(size, [`--app=${temp.path}`, `--env=${join(temp.path, 'other.env')}`]), {}).queue.appName,
      ).to.equal('Other');
      expect(configFor(parse(size, [`--app=${temp.path}`]), { APP_NAME: 'Process' }).queue.appName).to.equal('Process');
    });

    it('--laravel, --prefix and --redis-url override the environment', function () {
      const c = configFor(parse(size, ['--laravel=8', '--prefix=p:', '--redis-url=redis://h:1/2']), {
        REDIS_PREFIX: 'env:',
      });
      expect(c.laravel).to.equal(8);
      expect(c.queue).to.include({ prefix: 'p:', connection: 'redis://h:1/2' });
    });

    it('refuse bad values with one line', function () {
      expect(() => configFor(parse(size, ['--laravel=7']), {})).to.throw(
        UsageError,
        'larq size: --laravel must be a Laravel version from 8 to 13: a major, or major.minor such as 12.11, got "7"',
      );
      expect(() => configFor(parse(size, ['--redis-url=localhost:6379']), {})).to.throw(
        UsageError,
        'larq size: --redis-url must be a redis:// or rediss:// URL, got "localhost:6379"',
      );
      expect(() => configFor(parse(size, [`--app=${join(temp.path, 'nope')}`]), {})).to.throw(
        UsageError,
        /--app=.*nope is not a directory/,
      );
      expect(() => configFor(parse(size, [`--env=${join(temp.path, 'nope.env')}`]), {})).to.throw(
        UsageError,
        /--env=.*nope\.env does not exist/,
      );
    });
  });

  describe('main', function () {
    it('prints the command list, and each command its flags', async function () {
      const top = await run('--help');
      expect(top.status).to.equal(0);
      for (const c of COMMANDS) expect(top.out).to.include(`  ${c.name} `);
      expect((await run()).out).to.equal(top.out);
      const help = await run('help', 'retry');
      expect(help.out)
        .to.include('Usage: larq retry <id...|all>')
        .and.include('--range=FROM-TO')
        .and.include('--redis-url=URL');
      expect((await run('retry', '--help')).out).to.equal(help.out);
    });

    it('exits 2 with one line for usage mistakes', async function () {
      expect(await run('frobnicate')).to.deep.equal({
        status: 2,
        out: '',
        err: 'larq: unknown command "frobnicate" (larq --help lists the commands)',
      });
      expect((await run('queue:retry')).err).to.equal(
        'larq: unknown command "queue:retry"; did you mean "larq retry"? (larq --help lists the commands)',
      );
      expect(await run('work', '--tires=3')).to.deep.include({
        status: 2,
        err: 'larq work: unknown option --tires; did you mean --tries? (see larq work --help)',
      });
      expect(await run('work', '--queue=x')).to.deep.include({
        status: 2,
        err: 'larq work: --handlers=MODULE is required: the module that exports your job handlers (see larq work --help)',
      });
      expect((await run('work', '--handlers=x', '--backoff=1,x')).err).to.equal(
        'larq work: --backoff must be seconds, or a comma-separated list of them like 1,5,10, got "1,x"',
      );
      expect((await run('retry')).err).to.equal(
        'larq retry: give the IDs of the failed jobs to retry, "all", --queue=QUEUE or --range=FROM-TO',
      );
      expect((await run('retry', '--range=5')).err).to.equal('larq retry: --range must look like 1-5, got "5"');
      expect(await run('--app=/srv/shop')).to.deep.equal({
        status: 2,
        out: '',
        err: 'larq: no command given after --app=/srv/shop (larq --help lists the commands)',
      });
      expect(await run('size', 'default,')).to.deep.equal({
        status: 2,
        out: '',
        err: 'larq size: empty queue name in "default,"',
      });
      expect(await run('clear', '--queue=,', '--force')).to.deep.equal({
        status: 2,
        out: '',
        err: 'larq clear: --queue names no queue, got ","',
      });
    });

    it('exits 1 with one line naming the variable for a bad environment', async function () {
      const saved = process.env.QUEUE_CONNECTION;
      process.env.QUEUE_CONNECTION = 'sqs';
      try {
        expect(await run('size')).to.deep.equal({
          status: 1,
          out: '',
          err: 'larq size: QUEUE_CONNECTION is "sqs": larq serves Laravel\'s Redis queue only; name the Redis connection, e.g. "redis"',
        });
      } finally {
        if (saved === undefined) delete process.env.QUEUE_CONNECTION;
        else process.env.QUEUE_CONNECTION = saved;
      }
    });
  });
});
