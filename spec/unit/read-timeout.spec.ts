// The read timeout: how long larq waits for Redis to answer before it takes a connection for dead and
// reconnects. Its default must let a worker notice a silent peer within a minute.
import { expect } from 'chai';
import { configFromEnv } from '../../lib/cli/config';
import { configFor, parse, UsageError } from '../../lib/cli/args';
import { COMMANDS } from '../../lib/cli/main';
import { InvalidOptionError } from '../../lib/errors';
import { longestBlockingWait, readTimeoutOptions } from '../../lib/redis/readTimeout';
import { DEFAULT_REDIS_QUEUE_OPTIONS, RedisQueue } from '../../lib/RedisQueue';

describe('the Redis read timeout', function () {
  it('defaults to at most 60 s, in the library and the CLI', function () {
    expect(DEFAULT_REDIS_QUEUE_OPTIONS.readTimeout).to.be.a('number').and.at.most(60);
    expect(configFromEnv({}).queue.readTimeout).to.equal(DEFAULT_REDIS_QUEUE_OPTIONS.readTimeout);
  });

  it('is LARQ_REDIS_READ_TIMEOUT or --redis-read-timeout in the CLI, 0 meaning forever', function () {
    expect(configFromEnv({ LARQ_REDIS_READ_TIMEOUT: '5' }).queue.readTimeout).to.equal(5);
    expect(configFromEnv({ LARQ_REDIS_READ_TIMEOUT: '0' }).queue.readTimeout).to.equal(null);
    expect(() => configFromEnv({ LARQ_REDIS_READ_TIMEOUT: '1' })).to.throw(
      InvalidOptionError,
      /^LARQ_REDIS_READ_TIMEOUT: must be at least 2 seconds, or 0 to wait forever/,
    );
    const size = COMMANDS.find((c) => c.name === 'size')!;
    expect(
      configFor(parse(size, ['--redis-read-timeout=7']), { LARQ_REDIS_READ_TIMEOUT: '5' }).queue.readTimeout,
    ).to.equal(7);
    expect(() => configFor(parse(size, ['--redis-read-timeout=soon']), {})).to.throw(
      UsageError,
      /--redis-read-timeout must be seconds/,
    );
  });

  it('is checked as a RedisQueue option', function () {
    expect(() => new RedisQueue({ readTimeout: 1 })).to.throw(
      InvalidOptionError,
      /^readTimeout: must be a number of seconds >= 2, or null/,
    );
    expect(() => new RedisQueue({ readTimeout: '30' as unknown as number })).to.throw(
      InvalidOptionError,
      /^readTimeout:/,
    );
  });

  it('becomes ioredis socketTimeout and TCP keepalive, and keeps each blocking wait inside it', function () {
    expect(readTimeoutOptions(30)).to.deep.equal({ socketTimeout: 30000, keepAlive: 15000 });
    expect(readTimeoutOptions(null)).to.deep.equal({});
    expect(longestBlockingWait(30)).to.equal(15);
    expect(longestBlockingWait(3)).to.equal(1);
    expect(longestBlockingWait(null)).to.equal(Infinity);
  });
});
