// TLS settings of the CLI's Redis connection in every mode (one server, socket, URL, cluster, Sentinel):
// each is honoured or refused with an error naming it, never silently dropped.
import { expect } from 'chai';
import { configFromEnv } from '../../../lib/cli/config';
import { describeRedis, redisClientOptions, redisClusterNodes } from '../../../lib/cli/redisConnection';
import { InvalidOptionError } from '../../../lib/errors';

describe('the CLI Redis connection and its TLS settings', function () {
  const sentinels = { LARQ_REDIS_SENTINELS: 's1:26379,s2:26379', LARQ_REDIS_SENTINEL_SERVICE: 'shop' };

  it('speaks TLS to the primary behind Sentinel with REDIS_SCHEME=tls or a rediss:// URL, and says so', function () {
    for (const vars of [{ REDIS_SCHEME: 'tls' }, { REDIS_URL: 'rediss://ignored.example' }] as Record<
      string,
      string
    >[]) {
      const c = configFromEnv({ ...sentinels, ...vars, REDIS_PASSWORD: 'pw', LARQ_REDIS_SERVERNAME: 'redis.internal' });
      expect(c.queue.connection).to.equal('rediss-sentinel://:pw@s1:26379,s2:26379/shop?db=0');
      expect(redisClientOptions(c.queue.connection, c.redisTls)).to.deep.equal({
        sentinels: [
          { host: 's1', port: 26379 },
          { host: 's2', port: 26379 },
        ],
        name: 'shop',
        db: 0,
        password: 'pw',
        tls: { servername: 'redis.internal' },
        enableTLSForSentinelMode: true,
      });
      expect(describeRedis(c.queue.connection)).to.equal('sentinels s1:26379,s2:26379, primary "shop" (db 0) over TLS');
    }
  });

  it('speaks TLS to the sentinels named tls://host:port, and refuses a list that mixes them with plaintext ones', function () {
    const c = configFromEnv({
      ...sentinels,
      LARQ_REDIS_SENTINELS: 'tls://s1:26379, tls://s2:26379',
      LARQ_REDIS_SERVERNAME: 'sentinel.internal',
    });
    expect(c.queue.connection).to.equal('redis-sentinel://s1:26379,s2:26379/shop?db=0&sentinels=tls');
    const options = redisClientOptions(c.queue.connection, c.redisTls);
    expect(options.sentinelTLS).to.deep.equal({ servername: 'sentinel.internal' });
    expect(options.tls).to.equal(undefined);
    expect(describeRedis(c.queue.connection)).to.equal(
      'sentinels tls://s1:26379,tls://s2:26379, primary "shop" (db 0)',
    );
    expect(() => configFromEnv({ ...sentinels, LARQ_REDIS_SENTINELS: 'tls://s1:26379,s2:26379' })).to.throw(
      InvalidOptionError,
      /^LARQ_REDIS_SENTINELS: mixes tls:\/\/ sentinels with plaintext ones/,
    );
  });

  it('keeps a plaintext Sentinel connection as it was', function () {
    const c = configFromEnv(sentinels);
    expect(redisClientOptions(c.queue.connection)).to.deep.equal({
      sentinels: [
        { host: 's1', port: 26379 },
        { host: 's2', port: 26379 },
      ],
      name: 'shop',
      db: 0,
    });
  });

  it('refuses LARQ_REDIS_CA, CERT, KEY or SERVERNAME when no connection is TLS', function () {
    for (const name of ['LARQ_REDIS_CA', 'LARQ_REDIS_CERT', 'LARQ_REDIS_KEY', 'LARQ_REDIS_SERVERNAME']) {
      expect(() => configFromEnv({ [name]: '/etc/x.pem' })).to.throw(
        InvalidOptionError,
        new RegExp(`^${name}: is set but no Redis connection is TLS`),
      );
      expect(() => configFromEnv({ ...sentinels, [name]: '/etc/x.pem' })).to.throw(
        InvalidOptionError,
        new RegExp(`^${name}: is set but no Redis connection is TLS`),
      );
    }
    expect(
      configFromEnv({ LARQ_REDIS_CLUSTER: 'a:1', REDIS_SCHEME: 'tls', LARQ_REDIS_CA: '/etc/x.pem' }).queue.connection,
    ).to.equal('rediss-cluster://a:1');
  });

  it('refuses REDIS_SCHEME=tls where it cannot apply: a Unix socket, a redis:// or unix:// URL', function () {
    expect(() => configFromEnv({ REDIS_SCHEME: 'tls', REDIS_HOST: '/run/redis.sock' })).to.throw(
      InvalidOptionError,
      /^REDIS_SCHEME: is tls but REDIS_HOST is a Unix socket/,
    );
    expect(() => configFromEnv({ REDIS_SCHEME: 'tls', REDIS_URL: 'redis://cache.example' })).to.throw(
      InvalidOptionError,
      /^REDIS_SCHEME: is tls but REDIS_URL is a redis:\/\/ URL, which is not TLS/,
    );
    expect(() => configFromEnv({ REDIS_SCHEME: 'tls', REDIS_URL: 'unix:///run/redis.sock' })).to.throw(
      InvalidOptionError,
      /^REDIS_SCHEME: is tls but REDIS_URL is a unix:\/\/ URL/,
    );
  });

  it('refuses LARQ_REDIS_SENTINEL_SERVICE without LARQ_REDIS_SENTINELS', function () {
    expect(() => configFromEnv({ LARQ_REDIS_SENTINEL_SERVICE: 'shop' })).to.throw(
      InvalidOptionError,
      /^LARQ_REDIS_SENTINEL_SERVICE: is set but LARQ_REDIS_SENTINELS is not/,
    );
  });

  it('gives a TLS cluster the TLS files', function () {
    const nodes = redisClusterNodes('rediss-cluster://a:1', { servername: 'c.internal' })!;
    expect(nodes.redisOptions.tls).to.deep.equal({ servername: 'c.internal' });
  });
});
