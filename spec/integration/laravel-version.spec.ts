// The `laravel` option names the PHP side's release, down to the minor where Laravel changed the queue
// inside a line: what a push writes to a real Redis follows it (12.11 createdAt/delay, 12.51 batchId,
// 13.0 deleteWhenMissingModels, 13.5 cluster queue keys), and the CLI takes the same values.
import { expect } from 'chai';
import type Redis from 'ioredis';
import { FakeClock } from '../../lib/clock';
import { configFor, parse, UsageError } from '../../lib/cli/args';
import { configFromEnv } from '../../lib/cli/config';
import { COMMANDS } from '../../lib/cli/main';
import { InvalidOptionError } from '../../lib/errors';
import { LaravelRelease, type LaravelVersion } from '../../lib/LaravelLine';
import { phpClass } from '../../lib/php/builder';
import { RedisQueue } from '../../lib/RedisQueue';
import { randomPrefix, rawClient, requireRedis } from '../support/redis';

const NOW = 1795276770;
const Job = phpClass('App\\Jobs\\Versioned', { n: 'public' });

describe('the laravel option (a major or major.minor)', function () {
  let port: number;
  let client: Redis;
  const opened: RedisQueue[] = [];

  before(async function () {
    port = await requireRedis(this);
    client = rawClient(port);
  });
  after(async () => client?.quit());
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((q) => q.close()));
  });

  async function pushedKeys(laravel: LaravelVersion, delay?: number): Promise<string[]> {
    const prefix = randomPrefix();
    const q = new RedisQueue({
      connection: { port, host: '127.0.0.1' },
      prefix,
      laravel,
      clock: new FakeClock(NOW * 1000),
    });
    opened.push(q);
    const job = { command: Job.make({ n: 1 }), batchId: 'batch-1' };
    if (delay === undefined) await q.push(job);
    else await q.later(delay, job);
    const raw =
      delay === undefined
        ? await client.lindex(`${prefix}queues:default`, 0)
        : (await client.zrange(`${prefix}queues:default:delayed`, 0, '-1'))[0];
    const payload = JSON.parse(raw!) as Record<string, unknown> & { data: Record<string, unknown> };
    return [...Object.keys(payload), ...Object.keys(payload.data).map((k) => `data.${k}`)];
  }

  it('writes createdAt and delay from 12.11, data.batchId from 12.51, deleteWhenMissingModels from 13.0', async function () {
    const base = [
      'uuid',
      'displayName',
      'job',
      'maxTries',
      'maxExceptions',
      'failOnTimeout',
      'backoff',
      'timeout',
      'retryUntil',
      'data',
      'id',
      'attempts',
    ];
    const withCreatedAt = [
      'uuid',
      'displayName',
      'job',
      'maxTries',
      'maxExceptions',
      'failOnTimeout',
      'backoff',
      'timeout',
      'retryUntil',
      'data',
      'createdAt',
      'id',
      'attempts',
      'delay',
    ];
    const cmd = ['data.commandName', 'data.command'];
    expect(await pushedKeys('12.10')).to.deep.equal([...base, ...cmd]);
    expect(await pushedKeys(11)).to.deep.equal([...base, ...cmd]);
    expect(await pushedKeys('12.11')).to.deep.equal([...withCreatedAt, ...cmd]);
    expect(await pushedKeys('12.50')).to.deep.equal([...withCreatedAt, ...cmd]);
    expect(await pushedKeys('12.51')).to.deep.equal([...withCreatedAt, ...cmd, 'data.batchId']);
    expect(await pushedKeys(12)).to.deep.equal([...withCreatedAt, ...cmd, 'data.batchId']);
    const thirteen = [...withCreatedAt];
    thirteen.splice(thirteen.indexOf('data'), 0, 'deleteWhenMissingModels');
    expect(await pushedKeys('13.0')).to.deep.equal([...thirteen, ...cmd, 'data.batchId']);
    expect(await pushedKeys('13.26', 5)).to.deep.equal([...thirteen, ...cmd, 'data.batchId']);
  });

  it('wraps cluster queue keys from 13.5 and derives the 13.x prefix from 13.0', function () {
    const keyOf = (laravel: LaravelVersion) => {
      const q = new RedisQueue({ connection: { lazyConnect: true }, laravel, cluster: true, appName: 'My Shop' });
      return [q.options.prefix, q.keys.forQueue('default').queue];
    };
    expect(keyOf('13.4')).to.deep.equal(['my-shop-database-', 'my-shop-database-queues:default']);
    expect(keyOf('13.5')).to.deep.equal(['my-shop-database-', 'my-shop-database-queues:{default}']);
    expect(keyOf(12)).to.deep.equal(['my_shop_database_', 'my_shop_database_queues:default']);
  });

  it('defaults to the newest 13.x release, and a bare major means the newest of its line', function () {
    expect(new RedisQueue({ connection: { lazyConnect: true } }).options.laravel.toString()).to.equal('13.26');
    expect(['8', 9, 10, 11, 12, '13'].map((v) => LaravelRelease.of(v).toString())).to.deep.equal([
      '8.83',
      '9.52',
      '10.50',
      '11.56',
      '12.67',
      '13.26',
    ]);
  });

  it('refuses what is not a Laravel version, naming the option (and the type refuses it too)', function () {
    const typed: LaravelVersion[] = [8, 13, '9', '12.0', '12.11', '13.26', '13.99'];
    // @ts-expect-error a minor with a leading zero
    const leadingZero: LaravelVersion = '12.011';
    // @ts-expect-error no such major
    const unknownMajor: LaravelVersion = 14;
    // @ts-expect-error a number names a major only
    const fractional: LaravelVersion = 12.5;
    // @ts-expect-error not a number
    const wildcard: LaravelVersion = '13.x';
    expect(typed.map((v) => LaravelRelease.of(v).toString())).to.deep.equal([
      '8.83',
      '13.26',
      '9.52',
      '12.0',
      '12.11',
      '13.26',
      '13.99',
    ]);
    for (const bad of [
      7,
      14,
      '13.x',
      '12.011',
      12.5,
      '',
      null,
      '12.',
      '12.100',
      leadingZero,
      unknownMajor,
      fractional,
      wildcard,
    ]) {
      expect(() => new RedisQueue({ connection: { lazyConnect: true }, laravel: bad as LaravelVersion }), String(bad))
        .to.throw(InvalidOptionError, /must be a Laravel version from 8 to 13/)
        .with.property('option', 'laravel');
    }
  });

  it('is what LARQ_LARAVEL / --laravel accept, handed to the queue as given', function () {
    const queueVersion = (v: string) => configFromEnv({ LARQ_LARAVEL: v }).queue.laravel;
    expect(['8', '9', '10', '11', '12', '13', '12.11', '13.24', '13.26'].map(queueVersion)).to.deep.equal([
      8,
      9,
      10,
      11,
      12,
      13,
      '12.11',
      '13.24',
      13,
    ]);
    expect(configFromEnv({ LARQ_LARAVEL: '12.30' }).laravel).to.equal(12);
    expect(() => configFromEnv({ LARQ_LARAVEL: '13.x' })).to.throw(
      InvalidOptionError,
      /^LARQ_LARAVEL: must be a Laravel version from 8 to 13/,
    );
    const size = COMMANDS.find((c) => c.name === 'size')!;
    expect(configFor(parse(size, ['--laravel=12.11']), {}).queue.laravel).to.equal('12.11');
    expect(() => configFor(parse(size, ['--laravel=12.011']), {})).to.throw(
      UsageError,
      /--laravel must be a Laravel version from 8 to 13/,
    );
  });
});
