// createFailedJobProvider (Laravel's queue.failed config), the null store, and lazy driver loading.
import { expect } from 'chai';
import { execFileSync } from 'child_process';
import { randomUUID } from 'crypto';
import { join } from 'path';
import { InvalidOptionError, MissingDependencyError } from '../../../lib/errors';
import {
  createFailedJobProvider,
  createFailedJobsTable,
  DatabaseFailedJobProvider,
  FileFailedJobProvider,
  NullFailedJobProvider,
  type FailedJobProviderConfig,
} from '../../../lib/failed';
import { connectSql, loadDriver } from '../../../lib/sql';
import { simplePayload } from './support/payloads';
import { useTempDir } from '../../support/useTempDir';

describe('failed jobs: createFailedJobProvider', () => {
  const temp = useTempDir('failed-factory');
  let dir: string;

  beforeEach(() => {
    dir = temp.path;
  });

  it('builds the null store, which records nothing', async () => {
    const store = createFailedJobProvider({ driver: 'null' });
    expect(store).to.be.instanceOf(NullFailedJobProvider);
    expect(await store.log('redis', 'default', simplePayload(), new Error('x'))).to.equal(null);
    expect(await store.all()).to.deep.equal([]);
    expect(await store.ids()).to.deep.equal([]);
    expect(await store.find('any')).to.equal(null);
    expect(await store.forget('any')).to.equal(true);
    expect(await store.flush()).to.equal(0);
    expect(await store.prune(new Date())).to.equal(0);
    await store.close();
  });

  it('builds the file store with path and limit', async () => {
    const path = join(dir, 'failed-jobs.json');
    const store = createFailedJobProvider({ driver: 'file', path, limit: 1 });
    expect(store).to.be.instanceOf(FileFailedJobProvider);
    await store.log('redis', 'default', simplePayload(), 'E');
    const last = await store.log('redis', 'default', simplePayload(), 'E');
    expect(await store.ids()).to.deep.equal([last]);
  });

  for (const driver of ['database-uuids', 'database'] as const) {
    it(`builds the ${driver} store on a table`, async () => {
      const database = { driver: 'sqlite' as const, database: join(dir, 'db.sqlite') };
      await createFailedJobsTable(database, { table: 'my_failed', uuid: driver === 'database-uuids' });
      const store = createFailedJobProvider({ driver, database, table: 'my_failed', timezone: 'Europe/Berlin' });
      expect(store).to.be.instanceOf(DatabaseFailedJobProvider);
      const uuid = randomUUID();
      const id = await store.log('redis', 'default', simplePayload(uuid), 'E');
      if (driver === 'database-uuids') expect(id).to.equal(uuid);
      expect((await store.find(id!))!.queue).to.equal('default');
      await store.close();
    });
  }

  it('rejects unknown drivers, dynamodb and a database store without a database', () => {
    const bad = (config: unknown) => () => createFailedJobProvider(config as FailedJobProviderConfig);
    expect(bad({ driver: 'redis' })).to.throw(InvalidOptionError, /"redis"/);
    expect(bad({ driver: 'dynamodb' })).to.throw(InvalidOptionError, /dynamodb is not supported/);
    expect(bad({ driver: 'database-uuids' })).to.throw(InvalidOptionError, /database/);
    expect(bad({ driver: 'database', database: { driver: 'oracle', database: 'x' } })).to.throw(
      InvalidOptionError,
      /"oracle"/,
    );
    expect(
      bad({ driver: 'database', database: { driver: 'sqlite', database: ':memory:' }, timezone: 'Nowhere/Zone' }),
    ).to.throw(InvalidOptionError, /timezone/);
    expect(() => connectSql({ driver: 'sqlsrv' } as never)).to.throw(InvalidOptionError);
  });

  it('names the npm package to install when a driver is missing', () => {
    let failed: unknown;
    try {
      loadDriver('larq-no-such-sql-driver/promise', 'The test store');
    } catch (e) {
      failed = e;
    }
    expect(failed).to.be.instanceOf(MissingDependencyError);
    expect((failed as MissingDependencyError).packageName).to.equal('larq-no-such-sql-driver');
    expect((failed as Error).message).to.equal(
      'The test store needs the npm package "larq-no-such-sql-driver"; install it with: npm install larq-no-such-sql-driver',
    );
  });

  it('loads no SQL driver until a SQL store is built', () => {
    const script = `
      require('ts-node/register/transpile-only');
      const failed = require('./lib/failed');
      const loaded = () => Object.keys(require.cache).filter((k) => /node_modules[\\\\/](better-sqlite3|mysql2|pg)[\\\\/]/.test(k)).length > 0;
      const before = loaded();
      failed.createFailedJobProvider({ driver: 'null' });
      failed.createFailedJobProvider({ driver: 'file', path: ${JSON.stringify(join(dir, 'f.json'))} });
      const afterOthers = loaded();
      failed.createFailedJobProvider({ driver: 'database', database: { driver: 'sqlite', database: ':memory:' } }).close();
      console.log(JSON.stringify([before, afterOthers, loaded()]));
    `;
    const out = execFileSync(process.execPath, ['-e', script], {
      cwd: join(__dirname, '..', '..', '..'),
      encoding: 'utf8',
    });
    expect(JSON.parse(out)).to.deep.equal([false, false, true]);
  });
});
