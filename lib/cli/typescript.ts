// A handlers module written in TypeScript, loaded the way the app can: a loader already in the process
// (ts-node or tsx through NODE_OPTIONS), else the app's own tsx (registered here, for require() and
// import() alike), else Node's type stripping (22.18+), else a one-line error saying what to install.
// Node 20 has no type stripping of its own; tsx transpiles without type-checking, as Node's stripping does.
import { readFileSync } from 'fs';
import { dirname, join } from 'path';
import { pathToFileURL } from 'url';
import { UsageError } from './args';

/** True for a file Node needs a TypeScript loader for. */
export function isTypeScript(file: string): boolean {
  return /\.[cm]?ts$/.test(file);
}

// An import() the CommonJS build keeps as a real import().
const importModule = new Function('url', 'return import(url)') as (url: string) => Promise<Record<string, unknown>>;

let registered = false;

/**
 * Make `file` (a TypeScript module) loadable, or throw a UsageError naming what to install. `shownAs` is
 * the path as the user gave it.
 */
export async function prepareTypeScript(file: string, shownAs: string): Promise<void> {
  if (registered || require.extensions['.ts']) return;
  const tsx = tsxPackage([dirname(file), process.cwd(), __dirname]);
  if (tsx) {
    await registerTsx(tsx);
    registered = true;
    return;
  }
  if ((process.features as { typescript?: string | false }).typescript) return; // Node's own type stripping
  throw new UsageError(
    `larq work: --handlers=${shownAs} is TypeScript, which Node ${process.versions.node} cannot load by itself: install tsx in the app (npm install --save-dev tsx), or compile it to JavaScript`,
  );
}

// The folder of the tsx package the app can resolve, if any.
function tsxPackage(from: string[]): string | undefined {
  try {
    return dirname(require.resolve('tsx/package.json', { paths: from }));
  } catch {
    return undefined;
  }
}

// tsx's public register() of its CommonJS API (require of .ts) and of its ES module API (import of .ts),
// each taken from the entry its package.json `exports` names.
async function registerTsx(dir: string): Promise<void> {
  const exports = (
    JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
      exports: Record<string, { require?: { default: string }; import?: { default: string } }>;
    }
  ).exports;
  const cjs = exports['./cjs/api']?.require?.default;
  const esm = exports['./esm/api']?.import?.default;
  if (!cjs || !esm)
    throw new UsageError(`larq work: the tsx in ${dir} has no cjs/api or esm/api entry; install tsx 4 or later`);
  (require(join(dir, cjs)) as { register(): unknown }).register();
  ((await importModule(pathToFileURL(join(dir, esm)).href)) as { register(): unknown }).register();
}
