// A Laravel app's environment turned into larq's configuration, as the skeleton's config files read it.
import { expect } from 'chai';
import { mkdirSync, rmSync, writeFileSync } from 'fs';
import { join } from 'path';
import { UntransliterableTitleError } from '../../../lib/support/Str';
import { describeRedis, redisClientOptions, redisClusterNodes } from '../../../lib/cli/redisConnection';
import { configFromEnv, redisConnection } from '../../../lib/cli/config';
import { InvalidOptionError, LarqError } from '../../../lib/errors';
import { Encrypter } from '../../../lib/php/Encrypter';
import { useTempDir } from '../../support/useTempDir';

const KEY = 'base64:a2tra2tra2tra2tra2tra2tra2tra2tra2tra2tra2s=';

describe('larq CLI configuration', function () {
  describe('the Redis prefix', function () {
    it("is derived as each skeleton does: slug(APP_NAME,'_')_database_ up to 12, slug(APP_NAME)-database- in 13", function () {
      expect(configFromEnv({ APP_NAME: 'My Shop', LARQ_LARAVEL: '8' }).queue.prefix).to.equal('my_shop_database_');
      expect(configFromEnv({ APP_NAME: 'My Shop', LARQ_LARAVEL: '12' }).queue.prefix).to.equal('my_shop_database_');
      expect(configFromEnv({ APP_NAME: 'My Shop' }).queue.prefix).to.equal('my-shop-database-');
      expect(configFromEnv({}).queue.prefix).to.equal('laravel-database-');
      expect(configFromEnv({ APP_NAME: 'My Shop' }, { laravel: 10 }).queue.prefix).to.equal('my_shop_database_');
    });

    it('is REDIS_PREFIX when set ("null" or "empty" meaning none), and --prefix over everything', function () {
      expect(configFromEnv({ APP_NAME: 'My Shop', REDIS_PREFIX: 'x_' }).queue.prefix).to.equal('x_');
      expect(configFromEnv({ REDIS_PREFIX: 'null' }).queue.prefix).to.equal('');
      expect(configFromEnv({ REDIS_PREFIX: '(empty)' }).queue.prefix).to.equal('');
      expect(configFromEnv({ REDIS_PREFIX: 'x_' }, { prefix: 'flag_' }).queue.prefix).to.equal('flag_');
    });

    it('refuses an APP_NAME whose slug larq cannot reproduce unless REDIS_PREFIX is set, naming both', function () {
      expect(() => configFromEnv({ APP_NAME: 'магазин', LARQ_LARAVEL: '12' })).to.throw(
        UntransliterableTitleError,
        /^APP_NAME: "магазин" .*REDIS_PREFIX/,
      );
      expect(
        configFromEnv({ APP_NAME: 'магазин', REDIS_PREFIX: 'magazin_database_', LARQ_LARAVEL: '12' }).queue.prefix,
      ).to.equal('magazin_database_');
      expect(configFromEnv({ APP_NAME: 'Café Crème', LARQ_LARAVEL: '12' }).queue.prefix).to.equal(
        'cafe_creme_database_',
      );
    });

    it('picks the payload line from the major version', function () {
      expect([8, 9, 10, 11, 12, 13].map((v) => configFromEnv({ LARQ_LARAVEL: String(v) }).queue.laravel)).to.deep.equal(
        [8, 9, 10, 11, 12, 13],
      );
    });
  });

  describe("the app's Laravel version", function () {
    const temp = useTempDir('app');
    const lock = (version: string) =>
      JSON.stringify({
        packages: [
          { name: 'laravel/prompts', version: 'v0.3.5' },
          { name: 'laravel/framework', version },
        ],
      });

    it("comes from composer.lock when nothing names it, and so does the prefix's skeleton", function () {
      writeFileSync(join(temp.path, 'composer.lock'), lock('v12.34.0'));
      const c = configFromEnv({ APP_NAME: 'Acme Shop' }, { app: temp.path });
      expect([c.release.version, c.laravelSource, c.queue.prefix, c.prefixSource]).to.deep.equal([
        '12.34',
        'composer.lock',
        'acme_shop_database_',
        'derived from APP_NAME as the Laravel 8-12 skeleton does',
      ]);
    });

    it("falls back to vendor/laravel/framework's Application::VERSION, then to the newest line", function () {
      const foundation = join(temp.path, 'vendor/laravel/framework/src/Illuminate/Foundation');
      mkdirSync(foundation, { recursive: true });
      writeFileSync(
        join(foundation, 'Application.php'),
        "<?php\nclass Application {\n    const VERSION = '13.6.2';\n}\n",
      );
      expect(configFromEnv({}, { app: temp.path }).release.version).to.equal('13.6');
      expect(configFromEnv({}, { app: temp.path }).laravelSource).to.equal(
        'vendor/laravel/framework/src/Illuminate/Foundation/Application.php',
      );
      rmSync(join(temp.path, 'vendor'), { recursive: true });
      expect(configFromEnv({}, { app: temp.path }).laravelSource).to.match(/^the default/);
    });

    it('is LARQ_LARAVEL or --laravel over composer.lock, and REDIS_PREFIX names its own source', function () {
      writeFileSync(join(temp.path, 'composer.lock'), lock('v12.34.0'));
      expect(configFromEnv({ LARQ_LARAVEL: '13' }, { app: temp.path }).laravelSource).to.equal('LARQ_LARAVEL');
      expect(configFromEnv({}, { app: temp.path, laravel: '11' }).laravelSource).to.equal('--laravel');
      expect(configFromEnv({ REDIS_PREFIX: 'p_' }, { app: temp.path }).prefixSource).to.equal('REDIS_PREFIX');
    });

    it('refuses a composer.lock naming a Laravel larq does not speak', function () {
      writeFileSync(join(temp.path, 'composer.lock'), lock('v7.30.0'));
      expect(() => configFromEnv({}, { app: temp.path })).to.throw(
        LarqError,
        /composer\.lock says the app runs Laravel 7\.30, .*LARQ_LARAVEL/,
      );
    });
  });

  describe('Redis', function () {
    it('reads a Unix socket from REDIS_HOST (a path or unix://) or REDIS_URL, with the database and credentials', function () {
      expect(configFromEnv({ REDIS_HOST: '/run/redis/redis.sock', REDIS_DB: '2' }).queue.connection).to.equal(
        'unix://localhost/run/redis/redis.sock?db=2',
      );
      expect(configFromEnv({ REDIS_HOST: 'unix:///run/r.sock', REDIS_PASSWORD: 's3cr@t' }).queue.connection).to.equal(
        'unix://:s3cr%40t@localhost/run/r.sock?db=0',
      );
      expect(configFromEnv({ REDIS_URL: 'unix://app:pw@localhost/tmp/r.sock?db=4' }).queue.connection).to.equal(
        'unix://app:pw@localhost/tmp/r.sock?db=4',
      );
      expect(
        describeRedis(configFromEnv({ REDIS_HOST: '/run/r.sock', REDIS_PASSWORD: 'pw' }).queue.connection),
      ).to.equal('unix:/run/r.sock (db 0)');
      expect(redisClientOptions('unix://:pw@localhost/run/r.sock?db=3')).to.deep.equal({
        path: '/run/r.sock',
        db: 3,
        password: 'pw',
      });
    });

    it("connects to a TLS cluster's nodes by the names given (a managed cluster's certificate names them), a plain one as ioredis does", () => {
      const tlsCluster = redisClusterNodes(
        'rediss-cluster://:pw@clustercfg.shop.abc123.use1.cache.amazonaws.com:6379',
      )!;
      expect(tlsCluster.redisOptions.tls).to.be.an('object');
      let looked: [Error | null, string] | undefined;
      tlsCluster.dnsLookup!(
        'clustercfg.shop.abc123.use1.cache.amazonaws.com',
        (error, address) => (looked = [error, address]),
      );
      expect(looked).to.deep.equal([null, 'clustercfg.shop.abc123.use1.cache.amazonaws.com']);
      const plain = redisClusterNodes('redis-cluster://10.0.0.1:7000')!;
      expect(plain.dnsLookup).to.equal(undefined);
      expect(plain.redisOptions.tls).to.equal(undefined);
    });

    it('reads a Redis Cluster from LARQ_REDIS_CLUSTER and Sentinel from LARQ_REDIS_SENTINELS, with the credentials', function () {
      const cluster = configFromEnv({ LARQ_REDIS_CLUSTER: '10.0.0.1:7000, 10.0.0.2:7001', REDIS_PASSWORD: 'pw' });
      expect(cluster.queue).to.include({
        connection: 'redis-cluster://:pw@10.0.0.1:7000,10.0.0.2:7001',
        cluster: true,
      });
      expect(describeRedis(cluster.queue.connection)).to.equal('redis cluster 10.0.0.1:7000,10.0.0.2:7001');
      const sentinel = configFromEnv({
        LARQ_REDIS_SENTINELS: 's1:26379,s2:26379',
        LARQ_REDIS_SENTINEL_SERVICE: 'shop',
        REDIS_DB: '2',
      });
      expect(sentinel.queue).to.include({ connection: 'redis-sentinel://s1:26379,s2:26379/shop?db=2', cluster: false });
      expect(redisClientOptions(sentinel.queue.connection)).to.deep.equal({
        sentinels: [
          { host: 's1', port: 26379 },
          { host: 's2', port: 26379 },
        ],
        name: 'shop',
        db: 2,
      });
      expect(() => configFromEnv({ LARQ_REDIS_CLUSTER: 'nohost' })).to.throw(
        InvalidOptionError,
        /^LARQ_REDIS_CLUSTER: must be host:port pairs/,
      );
      expect(() => configFromEnv({ LARQ_REDIS_CLUSTER: 'a:1', LARQ_REDIS_SENTINELS: 'b:2' })).to.throw(
        InvalidOptionError,
        /cannot both be set/,
      );
    });

    it('makes REDIS_SCHEME=tls (or a rediss:// or tls:// URL) a TLS connection, with LARQ_REDIS_* files', function () {
      const c = configFromEnv({
        REDIS_SCHEME: 'tls',
        REDIS_HOST: 'cache.example',
        REDIS_PORT: '6380',
        LARQ_REDIS_SERVERNAME: 'redis.internal',
      });
      expect(c.queue.connection).to.equal('rediss://cache.example:6380/0');
      expect(configFromEnv({ REDIS_URL: 'tls://h:1/2' }).queue.connection).to.equal('rediss://h:1/2');
      expect(redisClientOptions(c.queue.connection, c.redisTls)).to.deep.equal({
        host: 'cache.example',
        port: 6380,
        db: 0,
        tls: { servername: 'redis.internal' },
      });
      expect(() => redisClientOptions(c.queue.connection, { ca: '/no/such/ca.pem' })).to.throw(
        InvalidOptionError,
        /^LARQ_REDIS_CA: cannot read \/no\/such\/ca\.pem/,
      );
    });

    it('builds the URL from REDIS_HOST, REDIS_PORT, REDIS_USERNAME, REDIS_PASSWORD and REDIS_DB', function () {
      const c = configFromEnv({
        REDIS_HOST: 'r.local',
        REDIS_PORT: '6380',
        REDIS_USERNAME: 'app',
        REDIS_PASSWORD: 's3cr@t',
        REDIS_DB: '2',
      });
      expect(c.queue.connection).to.equal('redis://app:s3cr%40t@r.local:6380/2');
      expect(configFromEnv({ REDIS_PASSWORD: 'null' }).queue.connection).to.equal('redis://127.0.0.1:6379/0');
    });

    it("takes REDIS_URL's parts over REDIS_*, and the rest from them, as Laravel's URL parser does", function () {
      expect(
        configFromEnv({ REDIS_URL: 'rediss://u:p@cache.example:7000/3', REDIS_PASSWORD: 'other' }).queue.connection,
      ).to.equal('rediss://u:p@cache.example:7000/3');
      expect(
        configFromEnv({ REDIS_URL: 'redis://cache.example', REDIS_PASSWORD: 'pw', REDIS_DB: '4' }).queue.connection,
      ).to.equal('redis://:pw@cache.example:6379/4');
      expect(configFromEnv({ REDIS_URL: 'redis://a:1' }, { redisUrl: 'redis://b:2/5' }).queue.connection).to.equal(
        'redis://b:2/5',
      );
    });

    it("reads the queue connection's settings: REDIS_QUEUE, retry_after, block_for, REDIS_QUEUE_CONNECTION", function () {
      expect(
        configFromEnv({ REDIS_QUEUE: 'jobs', REDIS_QUEUE_RETRY_AFTER: '120', REDIS_QUEUE_BLOCK_FOR: '5' }).queue,
      ).to.include({ queue: 'jobs', retryAfter: 120, blockFor: 5 });
      expect(configFromEnv({}).queue).to.include({
        connection: 'redis://127.0.0.1:6379/0',
        queue: 'default',
        retryAfter: 90,
        blockFor: null,
        appName: 'Laravel',
      });
      expect(configFromEnv({ REDIS_QUEUE_CONNECTION: 'cache', REDIS_CACHE_DB: '7' }).queue.connection).to.equal(
        'redis://127.0.0.1:6379/7',
      );
    });

    it('builds an encrypter from APP_KEY, APP_CIPHER and APP_PREVIOUS_KEYS', function () {
      expect(configFromEnv({}).queue.encrypter).to.equal(null);
      const encrypter = configFromEnv({ APP_KEY: KEY, APP_PREVIOUS_KEYS: `${Encrypter.generateKey()}, ${KEY}` }).queue
        .encrypter!;
      expect(new Encrypter(KEY).decrypt(encrypter.encrypt('hi'))).to.equal('hi');
      expect(() => configFromEnv({ APP_KEY: 'short' })).to.throw(
        InvalidOptionError,
        /^APP_KEY: aes-256-cbc needs a 32-byte key/,
      );
    });
  });

  describe('the failed-job store', function () {
    it('is database-uuids on DB_* with the version defaults: sqlite in the app (11+), mysql forge (up to 10)', function () {
      expect(configFromEnv({}, { app: '/srv/shop' }).failed).to.deep.equal({
        driver: 'database-uuids',
        database: { driver: 'sqlite', database: '/srv/shop/database/database.sqlite' },
        table: 'failed_jobs',
        timezone: 'UTC',
      });
      expect(configFromEnv({ LARQ_LARAVEL: '10' }).failed).to.deep.include({
        database: { driver: 'mysql', host: '127.0.0.1', port: 3306, user: 'forge', password: '', database: 'forge' },
      });
    });

    it('maps DB_CONNECTION, DB_HOST, DB_PORT, DB_DATABASE, DB_USERNAME, DB_PASSWORD, DB_SOCKET', function () {
      const env = {
        DB_CONNECTION: 'pgsql',
        DB_HOST: 'db',
        DB_DATABASE: 'shop',
        DB_USERNAME: 'u',
        DB_PASSWORD: 'p',
        QUEUE_FAILED_DRIVER: 'database',
        APP_TIMEZONE: 'Europe/Paris',
      };
      expect(configFromEnv(env).failed).to.deep.equal({
        driver: 'database',
        database: { driver: 'pgsql', host: 'db', port: 5432, user: 'u', password: 'p', database: 'shop' },
        table: 'failed_jobs',
        timezone: 'Europe/Paris',
      });
      expect(
        configFromEnv({ DB_CONNECTION: 'mariadb', DB_PORT: '3307', DB_SOCKET: '/run/mysqld.sock' }).failed,
      ).to.deep.include({
        database: {
          driver: 'mariadb',
          host: '127.0.0.1',
          port: 3307,
          user: 'root',
          password: '',
          database: 'laravel',
          socketPath: '/run/mysqld.sock',
        },
      });
      expect(
        configFromEnv({ DB_DATABASE: 'db.sqlite', QUEUE_FAILED_TABLE: 'failures' }, { app: '/srv/shop' }).failed,
      ).to.deep.include({ database: { driver: 'sqlite', database: '/srv/shop/db.sqlite' }, table: 'failures' });
      expect(configFromEnv({ DB_DATABASE: '/abs/db.sqlite' }, { app: '/srv/shop' }).failed).to.deep.include({
        database: { driver: 'sqlite', database: '/abs/db.sqlite' },
      });
    });

    it('is the file or null store on QUEUE_FAILED_DRIVER', function () {
      expect(configFromEnv({ QUEUE_FAILED_DRIVER: 'file' }, { app: '/srv/shop' }).failed).to.deep.equal({
        driver: 'file',
        path: '/srv/shop/storage/framework/cache/failed-jobs.json',
        timezone: 'UTC',
      });
      expect(configFromEnv({ QUEUE_FAILED_DRIVER: 'null' }).failed).to.deep.equal({ driver: 'null' });
    });
  });

  describe('the cache store', function () {
    it('is Redis on REDIS_CACHE_DB with locks on REDIS_DB, sharing the Redis prefix', function () {
      const c = configFromEnv({
        CACHE_DRIVER: 'redis',
        REDIS_CACHE_DB: '3',
        APP_NAME: 'Shop',
        LARQ_LARAVEL: '10',
        CACHE_PREFIX: 'c_',
      });
      expect(c.cache).to.deep.equal({
        driver: 'redis',
        connection: 'redis://127.0.0.1:6379/3',
        lockConnection: 'redis://127.0.0.1:6379/0',
        prefix: 'shop_database_',
        appName: 'Shop',
        laravel: 10,
        cachePrefix: 'c_',
      });
      expect(c.cacheNote).to.equal(undefined);
    });

    it("is read from the version's variable: CACHE_DRIVER up to 10, CACHE_STORE from 11, the other as fallback", function () {
      expect(configFromEnv({ LARQ_LARAVEL: '8', CACHE_STORE: 'database', CACHE_DRIVER: 'redis' }).cache).to.include({
        driver: 'redis',
      });
      expect(configFromEnv({ LARQ_LARAVEL: '11', CACHE_STORE: 'database', CACHE_DRIVER: 'redis' }).cache).to.include({
        driver: 'database',
      });
      expect(configFromEnv({ LARQ_LARAVEL: '8', CACHE_STORE: 'redis' }).cache).to.include({ driver: 'redis' });
    });

    it('is the database store by default from Laravel 11, on the DB_* database', function () {
      const c = configFromEnv({ DB_CACHE_TABLE: 'my_cache' }, { app: '/srv/shop' });
      expect(c.cache).to.deep.equal({
        driver: 'database',
        connection: { driver: 'sqlite', database: '/srv/shop/database/database.sqlite' },
        table: 'my_cache',
        lockTable: 'cache_locks',
        appName: 'Laravel',
        laravel: 13,
      });
    });

    it('is none for file (the default up to Laravel 10) and other stores, saying why', function () {
      expect(configFromEnv({ LARQ_LARAVEL: '9' }).cache).to.equal(undefined);
      const file = configFromEnv({ CACHE_STORE: 'file' });
      expect(file.cache).to.equal(undefined);
      expect(file.cacheNote).to.match(/^CACHE_STORE is file: larq reads the redis, database or array stores/);
      expect(configFromEnv({ LARQ_LARAVEL: '9' }).cacheNote).to.match(/^CACHE_DRIVER is file: /);
      expect(configFromEnv({ CACHE_STORE: 'memcached' }).cacheNote).to.match(
        /^CACHE_STORE is memcached: larq reads the redis, database or array stores/,
      );
      expect(configFromEnv({ CACHE_STORE: 'array' })).to.deep.include({ cache: { driver: 'array' } });
    });
  });

  describe('queue connections', function () {
    it('default to QUEUE_CONNECTION, else redis, and refuse the other drivers', function () {
      expect(redisConnection(configFromEnv({}))).to.equal('redis');
      expect(redisConnection(configFromEnv({ QUEUE_CONNECTION: 'redis-long' }))).to.equal('redis-long');
      expect(redisConnection(configFromEnv({ QUEUE_CONNECTION: 'database' }), 'redis')).to.equal('redis');
      expect(() => redisConnection(configFromEnv({ QUEUE_CONNECTION: 'sqs' }))).to.throw(
        LarqError,
        /^QUEUE_CONNECTION is "sqs": larq serves Laravel's Redis queue only/,
      );
      expect(() => redisConnection(configFromEnv({}), 'sync')).to.throw(
        LarqError,
        /^connection "sync" is not a Redis connection/,
      );
    });
  });

  it('rejects values it cannot use, naming the variable', function () {
    expect(() => configFromEnv({ DB_CONNECTION: 'sqlsrv' })).to.throw(
      InvalidOptionError,
      /^DB_CONNECTION: is "sqlsrv"; larq reads sqlite, mysql, mariadb and pgsql/,
    );
    expect(() => configFromEnv({ QUEUE_FAILED_DRIVER: 'dynamodb' })).to.throw(
      InvalidOptionError,
      /^QUEUE_FAILED_DRIVER: is "dynamodb"/,
    );
    expect(() => configFromEnv({ LARQ_LARAVEL: '7' })).to.throw(
      InvalidOptionError,
      /^LARQ_LARAVEL: must be a Laravel version from 8 to 13: a major, or major.minor such as 12.11, got "7"/,
    );
    expect(() => configFromEnv({ REDIS_PORT: '63a' })).to.throw(
      InvalidOptionError,
      /^REDIS_PORT: must be a whole number from 0 to 65535, got "63a"/,
    );
    expect(() => configFromEnv({ REDIS_QUEUE_RETRY_AFTER: '-1' })).to.throw(
      InvalidOptionError,
      /^REDIS_QUEUE_RETRY_AFTER:/,
    );
    expect(() => configFromEnv({ REDIS_URL: 'http://x' })).to.throw(
      InvalidOptionError,
      /^REDIS_URL: must be a redis:\/\/, rediss:\/\/ or unix:\/\/ URL/,
    );
    expect(() => configFromEnv({ REDIS_SCHEME: 'udp' })).to.throw(
      InvalidOptionError,
      /^REDIS_SCHEME: must be tcp, tls or unix, got "udp"/,
    );
    expect(() => configFromEnv({ APP_TIMEZONE: 'Mars/Base' })).to.throw(
      InvalidOptionError,
      /^APP_TIMEZONE: unknown time zone/,
    );
    expect(() => configFromEnv({ REDIS_QUEUE_CONNECTION: 'queue' })).to.throw(
      InvalidOptionError,
      /^REDIS_QUEUE_CONNECTION: is "queue"/,
    );
  });
});
