// CLI_ENVIRONMENT, the list of variables the README's table is checked against, is the list the CLI
// actually reads: every variable configFromEnv looks up is on it, and every app variable on it is looked
// up by some configuration.
import { expect } from 'chai';
import { readdirSync, readFileSync } from 'fs';
import { join } from 'path';
import { configFromEnv } from '../../../lib/cli/config';
import { CLI_ENVIRONMENT } from '../../../lib/cli/environment';

const KEY = 'base64:a2tra2tra2tra2tra2tra2tra2tra2tra2tra2tra2s=';

// Configurations that between them take every branch of configFromEnv that reads a variable.
const CONFIGURATIONS: Record<string, string>[] = [
  {},
  { LARQ_LARAVEL: '10' },
  { APP_KEY: KEY, REDIS_URL: 'redis://h:1/2', CACHE_STORE: 'redis', QUEUE_FAILED_DRIVER: 'database' },
  { LARQ_LARAVEL: '8', CACHE_DRIVER: 'database', DB_CONNECTION: 'mysql', QUEUE_FAILED_DRIVER: 'file' },
  { DB_CONNECTION: 'pgsql', CACHE_STORE: 'array', REDIS_QUEUE_BLOCK_FOR: '5' },
  { DB_CONNECTION: 'mariadb', CACHE_STORE: 'file', QUEUE_FAILED_DRIVER: 'null' },
  { LARQ_REDIS_SENTINELS: 's1:26379,s2:26379' },
];

/** The names configFromEnv asks the environment for, over every configuration above. */
function namesRead(): Set<string> {
  const read = new Set<string>();
  for (const vars of CONFIGURATIONS) {
    const recording = new Proxy(vars, {
      get(target, name) {
        if (typeof name === 'string') read.add(name);
        return Reflect.get(target, name);
      },
    });
    configFromEnv(recording, { app: '/srv/app' });
  }
  return read;
}

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

describe('CLI_ENVIRONMENT, the list of the CLI environment variables', function () {
  const listed = (scope: 'app' | 'process') => CLI_ENVIRONMENT.filter((v) => v.scope === scope).map((v) => v.name);

  it('names each variable once, each with a meaning and a default', function () {
    const names = CLI_ENVIRONMENT.map((v) => v.name);
    expect(new Set(names).size).to.equal(names.length);
    for (const v of CLI_ENVIRONMENT) {
      expect(v.name, v.name).to.match(/^[A-Z][A-Z0-9_]+$/);
      expect(v.meaning, v.name).to.not.equal('');
      expect(v.default, v.name).to.not.equal('');
    }
  });

  it("lists exactly the app's variables configFromEnv reads", function () {
    expect([...namesRead()].sort()).to.deep.equal(listed('app').sort());
  });

  it('lists exactly the process variables the commands read from process.env', function () {
    const read = new Set<string>();
    for (const file of sources(join(__dirname, '..', '..', '..', 'lib', 'cli'))) {
      for (const m of readFileSync(file, 'utf8').matchAll(/process\.env\.([A-Z][A-Z0-9_]*)/g)) read.add(m[1]);
    }
    expect([...read].sort()).to.deep.equal(listed('process').sort());
  });

  it('gives the defaults configFromEnv applies', function () {
    const defaults = Object.fromEntries(CLI_ENVIRONMENT.map((v) => [v.name, v.default]));
    const config = configFromEnv({});
    // with no composer.lock (nor vendor/) in the app, the newest line
    expect(config.laravelSource).to.match(/^the default/);
    expect(defaults.LARQ_LARAVEL).to.match(new RegExp(`^the app's composer\\.lock .*, else ${config.laravel}$`));
    expect(config.queue.appName).to.equal(defaults.APP_NAME);
    expect(config.timezone).to.equal(defaults.APP_TIMEZONE);
    expect(config.defaultConnection).to.equal(defaults.QUEUE_CONNECTION);
    expect(config.queue.queue).to.equal(defaults.REDIS_QUEUE);
    expect(String(config.queue.retryAfter)).to.equal(defaults.REDIS_QUEUE_RETRY_AFTER);
    expect(config.queue.connection).to.equal(
      `redis://${defaults.REDIS_HOST}:${defaults.REDIS_PORT}/${defaults.REDIS_DB}`,
    );
    expect(config.failed.driver).to.equal(defaults.QUEUE_FAILED_DRIVER);
    expect(config.failed).to.include({ table: defaults.QUEUE_FAILED_TABLE });
    expect(config.cache).to.include({
      driver: 'database',
      table: defaults.DB_CACHE_TABLE,
      lockTable: defaults.DB_CACHE_LOCK_TABLE,
    });
  });
});
