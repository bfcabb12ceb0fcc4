// Reading a Laravel app's .env and turning it into larq's configuration, as Laravel's config files do.
import { expect } from 'chai';
import { configFromEnv } from '../../../lib/cli/config';
import { parseDotenv } from '../../../lib/cli/dotenv';
import { InvalidOptionError } from '../../../lib/errors';

describe('larq CLI configuration', function () {
  it('parses .env syntax: quotes, comments, export, escapes and ${VAR} expansion', function () {
    const env = parseDotenv(
      ['# comment', 'APP_NAME="My Shop"', "RAW='keep ${NOT} \\n'", 'export REDIS_HOST=10.0.0.5 # trailing', 'URL=redis://${REDIS_HOST}:6379', 'EMPTY=', 'Q="a \\"b\\"\\nc"'].join('\n'),
    );
    expect(env).to.deep.equal({ APP_NAME: 'My Shop', RAW: 'keep ${NOT} \\n', REDIS_HOST: '10.0.0.5', URL: 'redis://10.0.0.5:6379', EMPTY: '', Q: 'a "b"\nc' });
  });

  it("derives the Redis prefix as each Laravel line's skeleton does, unless REDIS_PREFIX is set", function () {
    expect(configFromEnv({ APP_NAME: 'My Shop', LARQ_LARAVEL: '8' }).queue.prefix).to.equal('my_shop_database_');
    expect(configFromEnv({ APP_NAME: 'My Shop', LARQ_LARAVEL: '11' }).queue.laravel).to.equal(8);
    expect(configFromEnv({ APP_NAME: 'My Shop' }).queue.prefix).to.equal('my-shop-database-');
    expect(configFromEnv({ APP_NAME: 'My Shop', REDIS_PREFIX: 'x_' }).queue.prefix).to.equal('x_');
    expect(configFromEnv({}, { prefix: 'flag_' }).queue.prefix).to.equal('flag_');
  });

  it('builds the Redis URL, queue, retry_after and block_for from REDIS_*', function () {
    const c = configFromEnv({ REDIS_HOST: 'r.local', REDIS_PORT: '6380', REDIS_PASSWORD: 's3cret', REDIS_DB: '2', REDIS_QUEUE: 'jobs', REDIS_QUEUE_RETRY_AFTER: '120', REDIS_QUEUE_BLOCK_FOR: '5' });
    expect(c.queue).to.include({ connection: 'redis://:s3cret@r.local:6380/2', queue: 'jobs', retryAfter: 120, blockFor: 5 });
    expect(configFromEnv({}).queue).to.include({ connection: 'redis://127.0.0.1:6379/0', queue: 'default', retryAfter: 90, blockFor: null });
  });

  it('maps DB_* and QUEUE_FAILED_DRIVER to the failed-job store', function () {
    expect(configFromEnv({ DB_CONNECTION: 'pgsql', DB_HOST: 'db', DB_DATABASE: 'shop', DB_USERNAME: 'u', DB_PASSWORD: 'p' }).failed).to.deep.equal({
      driver: 'database-uuids',
      database: { driver: 'pgsql', host: 'db', port: 5432, user: 'u', password: 'p', database: 'shop' },
    });
    expect(configFromEnv({ DB_DATABASE: 'db.sqlite' }, { app: '/srv/shop' }).failed).to.deep.equal({ driver: 'database-uuids', database: { driver: 'sqlite', database: '/srv/shop/db.sqlite' } });
    expect(configFromEnv({ QUEUE_FAILED_DRIVER: 'file' }, { app: '/srv/shop' }).failed).to.deep.equal({ driver: 'file', path: '/srv/shop/storage/framework/cache/failed-jobs.json' });
  });

  it('uses the redis cache store on REDIS_CACHE_DB, and says why there is none otherwise', function () {
    const c = configFromEnv({ CACHE_DRIVER: 'redis', REDIS_CACHE_DB: '3', APP_NAME: 'Shop', LARQ_LARAVEL: '10' });
    expect(c.cache).to.include({ driver: 'redis', connection: 'redis://127.0.0.1:6379/3', laravel: 10, appName: 'Shop' });
    expect(configFromEnv({ CACHE_STORE: 'file' }).cacheNote).to.match(/CACHE_STORE is file/);
  });

  it('rejects what larq cannot serve, naming the variable', function () {
    expect(() => configFromEnv({ QUEUE_CONNECTION: 'sqs' })).to.throw(InvalidOptionError, /^QUEUE_CONNECTION: is "sqs"/);
    expect(() => configFromEnv({ DB_CONNECTION: 'oracle' })).to.throw(InvalidOptionError, /^DB_CONNECTION:/);
    expect(() => configFromEnv({ LARQ_LARAVEL: '7' })).to.throw(InvalidOptionError, /^--laravel: must be a Laravel major version from 8 to 13/);
  });
});
