// larq as a user installs it: `npm pack` of what a fresh clone holds (prepare builds dist/), installed into
// a fresh TypeScript project, compiled with strict settings once as an ES module and once as CommonJS,
// and run against the test redis-server: a dispatch, a worker with a handler, and the larq command.
import { expect } from 'chai';
import { execFileSync } from 'child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { dirname, join } from 'path';
import { compileProject, createProject, packLarq, ROOT, run } from '../support/packedLarq';
import { randomPrefix, rawClient, requireRedis } from '../support/redis';

// What a user's program does with the package: dispatch a job for PHP, then run it with a Node handler.
const PROGRAM = `
import { RedisQueue, Handlers, createWorker, phpClass, laravelJobTraits, type ObjectJobHandler } from 'larq';

const SendInvoice = phpClass('App\\\\Jobs\\\\SendInvoice', { invoice: 'public' }, { traits: laravelJobTraits(13) });

export async function main(): Promise<void> {
  const queue = new RedisQueue({ connection: process.env.REDIS_URL!, prefix: process.env.REDIS_PREFIX!, laravel: 13 });
  const seen: unknown[] = [];
  const sendInvoice: ObjectJobHandler = async (job, ctx) => {
    seen.push(job.invoice, ctx.job.attempts());
  };
  try {
    await queue.push(SendInvoice.make({ invoice: 1042 }), 'billing');
    const worker = createWorker(queue, new Handlers().object('App\\\\Jobs\\\\SendInvoice', sendInvoice), { stopWhenEmpty: true, sleep: 0 });
    const result = await worker.daemon('billing');
    console.log(JSON.stringify({ seen, status: result.status, left: await queue.size('billing') }));
  } finally {
    await queue.close();
  }
}
`;

interface Variant {
  name: string;
  packageJson: Record<string, unknown>;
  entry: string;
}

const VARIANTS: Variant[] = [
  {
    name: 'an ES module project ("type": "module", NodeNext)',
    packageJson: { type: 'module' },
    entry: 'await main();\n',
  },
  {
    name: 'a CommonJS project (NodeNext)',
    packageJson: {},
    entry: 'void main().catch((e) => { console.error(e); process.exitCode = 1; });\n',
  },
];

describe('the packed package in a fresh TypeScript project', function () {
  this.timeout(600_000);
  let port: number;
  let work: string;
  let tarball: string;
  let files: string[];

  before(async function () {
    port = await requireRedis(this);
    work = mkdtempSync(join(tmpdir(), 'larq-package-'));
    ({ tarball, files } = packLarq(work));
  });

  after(function () {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('holds the built code, its type declarations, the LICENSE and the sources its maps point at', function () {
    for (const file of [
      'package.json',
      'LICENSE',
      'README.md',
      'dist/index.js',
      'dist/index.d.ts',
      'dist/cli/main.js',
      'dist/redis/lua/push-2.lua',
    ]) {
      expect(files, file).to.include(file);
    }
    expect(files.filter((f) => f.startsWith('spec/') || f.startsWith('scripts/'))).to.deep.equal([]);
    const unpacked = join(work, 'unpacked');
    mkdirSync(unpacked);
    execFileSync('tar', ['-xzf', tarball, '-C', unpacked]);
    const maps = files.filter((f) => f.endsWith('.map'));
    expect(maps.length).to.be.greaterThan(50);
    for (const map of maps) {
      const { sources } = JSON.parse(readFileSync(join(unpacked, 'package', map), 'utf8')) as { sources: string[] };
      for (const source of sources)
        expect(existsSync(join(unpacked, 'package', dirname(map), source)), `${map} -> ${source}`).to.equal(true);
    }
    expect(readFileSync(join(unpacked, 'package', 'LICENSE'), 'utf8')).to.match(/^MIT License/);
  });

  it('leaves a clone whose larq bin runs as a program once prepare has built it (npx larq there runs it so)', function () {
    // packLarq's npm pack ran prepare in work/clone, as npm ci does in a fresh clone (scripts/setup).
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      version: string;
      bin: { larq: string };
    };
    expect(run(join(work, 'clone', pkg.bin.larq), ['--version'], join(work, 'clone')).trim()).to.equal(
      `larq ${pkg.version}`,
    );
  });

  for (const variant of VARIANTS) {
    it(`installs, compiles strictly and runs a dispatch and a handler in ${variant.name}`, async function () {
      const project = join(work, variant.packageJson.type === 'module' ? 'esm' : 'cjs');
      createProject(project, tarball, variant.packageJson);
      writeFileSync(join(project, 'src', 'job.ts'), PROGRAM);
      writeFileSync(join(project, 'src', 'main.ts'), `import { main } from './job.js';\n${variant.entry}`);
      compileProject(project);
      const prefix = randomPrefix();
      const out = run('node', [join('out', 'main.js')], project, {
        REDIS_URL: `redis://127.0.0.1:${port}`,
        REDIS_PREFIX: prefix,
      });
      expect(JSON.parse(out.trim().split('\n').pop()!)).to.deep.equal({ seen: [1042, 1], status: 0, left: 0 });

      // The package's bin, as `npx larq` finds it.
      const redis = rawClient(port);
      try {
        await redis.rpush(`${prefix}queues:billing`, '{"uuid":"x"}');
        const size = run(
          join(project, 'node_modules', '.bin', 'larq'),
          ['size', 'billing', `--redis-url=redis://127.0.0.1:${port}`, `--prefix=${prefix}`, '--json'],
          project,
        );
        expect(JSON.parse(size)).to.deep.equal([
          {
            connection: 'redis',
            queue: 'billing',
            size: 1,
            pending: 1,
            delayed: 0,
            reserved: 0,
            failed: 0,
            invalid: 0,
          },
        ]);
      } finally {
        await redis.del(`${prefix}queues:billing`);
        redis.disconnect();
      }
      expect(readdirSync(join(project, 'node_modules', 'larq'))).to.include.members(['dist', 'lib', 'LICENSE']);
    });
  }
});
