// When larq turns Horizon mode on, with which prefix, and Horizon's small formats (no Redis, no PHP).
import { expect } from 'chai';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { configFromEnv } from '../../../lib/cli/config';
import { InvalidOptionError } from '../../../lib/errors';
import { horizonPrefix, resolveHorizonOptions } from '../../../lib/horizon/HorizonOptions';
import { JobPayload } from '../../../lib/horizon/JobPayload';
import { phpFloatString } from '../../../lib/horizon/microtime';
import { tagsFor } from '../../../lib/horizon/Tags';
import { PhpArray, PhpObject } from '../../../lib/php/values';

describe('Horizon mode', () => {
  describe('turning it on (larq work)', () => {
    let app: string;
    beforeEach(() => (app = mkdtempSync(join(tmpdir(), 'larq-hz-'))));
    afterEach(() => rmSync(app, { recursive: true, force: true }));
    const config = (env: Record<string, string>) => configFromEnv({ LARQ_LARAVEL: '13', ...env }, { app });

    it('is off by default', () => {
      expect(config({}).horizon).to.equal(undefined);
    });

    it("is on with LARQ_HORIZON=true, with config/horizon.php's default prefix from APP_NAME", () => {
      expect(config({ LARQ_HORIZON: 'true', APP_NAME: 'Acme Shop' }).horizon).to.deep.equal({
        prefix: 'acme_shop_horizon:',
        source: 'LARQ_HORIZON',
      });
    });

    it('is on when HORIZON_PREFIX is set, under that prefix (not the database prefix)', () => {
      expect(config({ HORIZON_PREFIX: 'shop-hz:', REDIS_PREFIX: 'db:' }).horizon).to.deep.equal({
        prefix: 'shop-hz:',
        source: 'HORIZON_PREFIX',
      });
    });

    it('is on when the app has config/horizon.php', () => {
      mkdirSync(join(app, 'config'));
      writeFileSync(join(app, 'config', 'horizon.php'), '<?php return [];');
      expect(config({}).horizon).to.deep.equal({ prefix: 'laravel_horizon:', source: 'config/horizon.php' });
    });

    it('stays off with LARQ_HORIZON=false whatever else says', () => {
      mkdirSync(join(app, 'config'));
      writeFileSync(join(app, 'config', 'horizon.php'), '<?php return [];');
      expect(config({ LARQ_HORIZON: 'false', HORIZON_PREFIX: 'x:' }).horizon).to.equal(undefined);
    });

    it('on a cluster of 13.5+ peers, wraps the prefix in a hash tag as later Horizon 5.x does, never twice', () => {
      const cluster = { LARQ_REDIS_CLUSTER: '127.0.0.1:7000' };
      expect(config({ ...cluster, LARQ_HORIZON: 'true', APP_NAME: 'Acme Shop' }).horizon).to.deep.equal({
        prefix: '{acme_shop_horizon:}',
        source: 'LARQ_HORIZON',
      });
      expect(config({ ...cluster, HORIZON_PREFIX: '{shop}_horizon:' }).horizon?.prefix).to.equal('{shop}_horizon:');
      // `{}` is no hash tag (Redis hashes the whole key): Horizon wraps that prefix too
      expect(config({ ...cluster, HORIZON_PREFIX: 'a{}b:' }).horizon?.prefix).to.equal('{a{}b:}');
      // before 13.5 Laravel has no Connection::hasHashTag and Horizon keeps the prefix as given
      expect(config({ ...cluster, LARQ_LARAVEL: '13.4', HORIZON_PREFIX: 'hz:' }).horizon?.prefix).to.equal('hz:');
      expect(config({ ...cluster, LARQ_LARAVEL: '12', HORIZON_PREFIX: 'hz:' }).horizon?.prefix).to.equal('hz:');
      // one server or Sentinel: as given
      expect(config({ HORIZON_PREFIX: 'hz:' }).horizon?.prefix).to.equal('hz:');
    });

    it('refuses a LARQ_HORIZON that is not a boolean, naming it', () => {
      expect(() => config({ LARQ_HORIZON: 'yes please' })).to.throw(InvalidOptionError, /LARQ_HORIZON/);
    });
  });

  it("defaults to Horizon 5.29.1's config: prefix laravel_horizon:, trim 60/60/60/10080/10080/10080 minutes", () => {
    expect(horizonPrefix()).to.equal('laravel_horizon:');
    expect(resolveHorizonOptions().trim).to.deep.equal({
      recent: 60,
      pending: 60,
      completed: 60,
      recentFailed: 10080,
      failed: 10080,
      monitored: 10080,
    });
    expect(() => resolveHorizonOptions({ trim: { failed: 0 } as never })).to.throw(
      InvalidOptionError,
      /horizon\.trim\.failed/,
    );
  });

  it('writes times as PHP writes microtime(true): 14 significant digits, no trailing zeros', () => {
    expect(phpFloatString(1795741336.17431)).to.equal('1795741336.1743');
    expect(phpFloatString(-1795741336.0911)).to.equal('-1795741336.0911');
    expect(phpFloatString(1795741336.1)).to.equal('1795741336.1');
    expect(phpFloatString(1795741336)).to.equal('1795741336');
    expect(phpFloatString(12.34)).to.equal('12.34');
  });

  it('prepares a payload as JobPayload::prepare: id = uuid in place, the four keys appended, json_encode escapes', () => {
    const payload = '{"uuid":"u-1","displayName":"A\\/B","id":"random","tags":["own"],"data":{"x":"é"},"empty":{}}';
    const prepared = JobPayload.prepare(payload, { type: 'job', tags: ['t:1'], silenced: true }, 1795741336.5);
    expect(prepared.value).to.equal(
      '{"uuid":"u-1","displayName":"A\\/B","id":"u-1","tags":["own","t:1"],"data":{"x":"\\u00e9"},"empty":[],"type":"job","silenced":true,"pushedAt":"1795741336.5"}',
    );
    expect(prepared.id()).to.equal('u-1');
    expect(prepared.isSilenced()).to.equal(true);
  });

  it('tags a job object as Tags::for does: its tags() first, else Class:key per model, in order, once', () => {
    const model = (cls: string, id: unknown) =>
      new PhpObject('Illuminate\\Contracts\\Database\\ModelIdentifier', [
        { name: 'class', visibility: 'public', value: cls },
        { name: 'id', visibility: 'public', value: id as never },
      ]);
    const job = new PhpObject('App\\Jobs\\X', [
      { name: 'user', visibility: 'public', value: model('App\\Models\\User', 7n) },
      {
        name: 'users',
        visibility: 'protected',
        value: model(
          'App\\Models\\User',
          new PhpArray(
            new Map([
              [0, 7n],
              [1, 8n],
            ]) as never,
          ),
        ),
      },
    ]);
    expect(tagsFor(job)).to.deep.equal(['App\\Models\\User:7', 'App\\Models\\User:8']);
    expect(tagsFor(job, () => ['billing'])).to.deep.equal(['billing']);
    expect(tagsFor(job, () => [])).to.deep.equal(['App\\Models\\User:7', 'App\\Models\\User:8']);
  });
});
