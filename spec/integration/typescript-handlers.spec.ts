// `larq work --handlers=./handlers.ts` as a user runs it today: the packed package and the tsx that npm
// installs at test time (no versions pinned, no lock file) in fresh ES module and CommonJS projects.
// larq registers the app's tsx itself; without it, one line says what to install; a syntax error and a
// ts-node type error print the compiler's diagnostic with its file and line.
import { expect } from 'chai';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { laravelJobTraits, phpClass, RedisQueue } from '../../lib/index';
import { runLarq } from '../support/larqProcess';
import { packLarq, ROOT, run } from '../support/packedLarq';
import { randomPrefix, requireRedis } from '../support/redis';

const HANDLERS = `import { Handlers, type ObjectJobHandler } from 'larq';
import { appendFileSync } from 'node:fs';
import { label } from './label.js';

interface Invoice {
  invoice: number;
}

const sendInvoice: ObjectJobHandler = async (job) => {
  const { invoice } = job as unknown as Invoice;
  appendFileSync('ran.log', label(invoice) + '\\n');
};

export default new Handlers().object('App\\\\Jobs\\\\SendInvoice', sendInvoice);
`;
const LABEL = 'export const label = (n: number): string => `invoice ${n}`;\n';

const SendInvoice = phpClass('App\\Jobs\\SendInvoice', { invoice: 'public' }, { traits: laravelJobTraits(13) });

describe('larq work with a TypeScript handlers module, in fresh projects with what npm installs today', function () {
  this.timeout(600_000);
  let port: number;
  let work: string;
  let tarball: string;

  before(async function () {
    port = await requireRedis(this);
    work = mkdtempSync(join(tmpdir(), 'larq-ts-'));
    ({ tarball } = packLarq(work));
  });
  after(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  // A fresh project holding `packages` (nothing pinned, no lock file) and an app .env for the test Redis.
  function project(
    name: string,
    packageJson: Record<string, unknown>,
    packages: string[],
  ): { dir: string; prefix: string } {
    const dir = join(work, name);
    run('mkdir', ['-p', dir], work);
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: `larq-${name}`, private: true, ...packageJson }));
    run('npm', ['install', '--no-package-lock', '--no-audit', '--no-fund', tarball, ...packages], dir);
    const prefix = randomPrefix();
    const env = {
      LARQ_LARAVEL: '13',
      REDIS_HOST: '127.0.0.1',
      REDIS_PORT: String(port),
      REDIS_PREFIX: prefix,
      CACHE_STORE: 'array',
      QUEUE_FAILED_DRIVER: 'null',
    };
    writeFileSync(
      join(dir, '.env'),
      Object.entries(env)
        .map(([k, v]) => `${k}=${v}`)
        .join('\n') + '\n',
    );
    return { dir, prefix };
  }

  const larq = (dir: string, args: string[], env: Record<string, string> = {}) =>
    runLarq(
      join(dir, 'node_modules', 'larq', 'dist', 'cli', 'main.js'),
      ['work', '--handlers=./handlers.ts', '--queue=billing', '--stop-when-empty', '--sleep=0', ...args],
      { cwd: dir, env },
    );

  async function push(prefix: string): Promise<void> {
    const queue = new RedisQueue({ connection: { port, host: '127.0.0.1' }, prefix, laravel: 13 });
    try {
      await queue.push(SendInvoice.make({ invoice: 1042 }), 'billing');
    } finally {
      await queue.close();
    }
  }

  for (const [kind, packageJson] of [
    ['ES module', { type: 'module' }],
    ['CommonJS', {}],
  ] as const) {
    it(`runs a handlers.ts with the app's tsx registered by larq itself (${kind})`, async function () {
      const { dir, prefix } = project(kind === 'CommonJS' ? 'cjs' : 'esm', packageJson, ['tsx']);
      writeFileSync(join(dir, 'handlers.ts'), HANDLERS);
      writeFileSync(join(dir, 'label.ts'), LABEL);
      await push(prefix);
      const result = await larq(dir, []);
      expect(result.code, result.stderr).to.equal(0);
      expect(readFileSync(join(dir, 'ran.log'), 'utf8')).to.equal('invoice 1042\n');
      expect(result.stdout).to.match(/App\\Jobs\\SendInvoice .* DONE/);

      // a syntax error: the transpiler's diagnostic, with the file, line and column
      writeFileSync(
        join(dir, 'handlers.ts'),
        "import { Handlers } from 'larq';\nconst broken: number = ;\nexport default new Handlers();\n",
      );
      const failed = await larq(dir, []);
      expect(failed.code).to.equal(1);
      expect(failed.stderr, failed.stderr).to.match(/handlers\.ts:2:\d+: ERROR: Unexpected ";"/);
    });
  }

  it('without tsx, says in one line what to install (Node 20 has no type stripping)', async function () {
    const { dir } = project('bare', {}, []);
    writeFileSync(join(dir, 'handlers.ts'), HANDLERS);
    writeFileSync(join(dir, 'label.ts'), LABEL);
    const result = await larq(dir, []);
    if ((process.features as { typescript?: string | false }).typescript) {
      expect(result.code, result.stderr).to.equal(0); // Node's own type stripping loads it
      return;
    }
    expect(result.code).to.equal(2);
    expect(result.stderr).to.equal(
      `larq work: --handlers=./handlers.ts is TypeScript, which Node ${process.versions.node} cannot load by itself: install tsx in the app (npm install --save-dev tsx), or compile it to JavaScript\n`,
    );
  });

  it("prints ts-node's type error diagnostics, not only that it could not compile", async function () {
    const { dir } = project('ts-node', {}, []);
    writeFileSync(
      join(dir, 'handlers.ts'),
      "import { Handlers } from 'larq';\nconst count: number = 'three';\nexport default new Handlers();\n",
    );
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { module: 'commonjs', strict: true, esModuleInterop: true } }),
    );
    // ts-node and the TypeScript this repository pins (ts-node 10 predates TypeScript 7)
    const result = await larq(dir, [], {
      NODE_OPTIONS: `-r ${join(ROOT, 'node_modules', 'ts-node', 'register')}`,
      TS_NODE_COMPILER: join(ROOT, 'node_modules', 'typescript'),
    });
    expect(result.code).to.equal(1);
    expect(result.stderr).to.include('Unable to compile TypeScript');
    expect(result.stderr, result.stderr).to.match(
      /handlers\.ts\(2,7\): error TS2322: Type 'string' is not assignable to type 'number'/,
    );
  });
});
