// larq as a user gets it: `npm pack` of what a fresh clone holds (git's tracked files plus the untracked
// ones it does not ignore; prepare builds dist/), and fresh projects that install the tarball.
//
// Offline-friendly: a project installs the tarball plus the TypeScript and @types/node versions this
// repository uses with --prefer-offline, so after `npm ci` (scripts/setup) everything comes from npm's
// cache, and a machine whose cache lacks them fetches them from the registry.
import { execFileSync, spawnSync } from 'child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'fs';
import { dirname, join } from 'path';

export const ROOT = join(__dirname, '..', '..');

export interface PackedLarq {
  /** The tarball's path. */
  readonly tarball: string;
  /** The paths the tarball holds, as npm pack lists them. */
  readonly files: string[];
}

/** Run a program to completion; throw with its output unless it exits 0. */
export function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): string {
  const result = spawnSync(command, args, { cwd, env: { ...process.env, ...env }, encoding: 'utf8', timeout: 240_000 });
  if (result.status !== 0) {
    throw new Error(
      `${command} ${args.join(' ')} exited ${result.status ?? result.signal} in ${cwd}\n${result.stdout}\n${result.stderr}`,
    );
  }
  return result.stdout;
}

/** Copy a fresh clone's files into `work`/clone and `npm pack` them into `work`. */
export function packLarq(work: string): PackedLarq {
  const clone = join(work, 'clone');
  const listed = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: ROOT,
    encoding: 'utf8',
  })
    .split('\0')
    .filter(Boolean);
  for (const file of listed) {
    // Deleted in the working tree but not yet committed; or a node_modules symlink (git's node_modules/
    // pattern matches directories only), which the clone gets below.
    if (!existsSync(join(ROOT, file)) || file === 'node_modules') continue;
    mkdirSync(dirname(join(clone, file)), { recursive: true });
    cpSync(join(ROOT, file), join(clone, file));
  }
  if (existsSync(join(clone, 'dist'))) throw new Error('a fresh clone has no dist/');
  symlinkSync(join(ROOT, 'node_modules'), join(clone, 'node_modules'), 'dir');
  const packed = JSON.parse(run('npm', ['pack', '--json', '--pack-destination', work], clone)) as {
    filename: string;
    files: { path: string }[];
  }[];
  return { tarball: join(work, packed[0].filename), files: packed[0].files.map((f) => f.path) };
}

function version(pkg: string): string {
  return (JSON.parse(readFileSync(join(ROOT, 'node_modules', pkg, 'package.json'), 'utf8')) as { version: string })
    .version;
}

/**
 * A fresh TypeScript project in `dir` with the tarball, TypeScript and @types/node installed, and a strict
 * tsconfig.json (src/ -> out/, NodeNext, skipLibCheck off). `packageJson` adds fields (e.g. "type").
 */
export function createProject(dir: string, tarball: string, packageJson: Record<string, unknown> = {}): void {
  mkdirSync(join(dir, 'src'), { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'larq-user', private: true, ...packageJson }));
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        strict: true,
        skipLibCheck: false,
        outDir: 'out',
        rootDir: 'src',
        types: ['node'],
      },
    }),
  );
  run(
    'npm',
    [
      'install',
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
      tarball,
      `typescript@${version('typescript')}`,
      `@types/node@${version('@types/node')}`,
    ],
    dir,
  );
}

/** Compile the project's src/ with its own TypeScript. */
export function compileProject(dir: string): void {
  run(join(dir, 'node_modules', '.bin', 'tsc'), ['-p', '.'], dir);
}
