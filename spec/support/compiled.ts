// lib/ and the spec modules that specs run as processes of their own (the CLI's handlers module, the
// crash specs' worker), transpiled once per spec file into a temporary folder with TypeScript's
// transpileModule and the project's compiler options (what ts-node's transpile-only mode does in every
// process it starts), beside the Lua scripts and package.json that the CLI reads at run time.
//
// Why not ts-node per command: its start-up (loading the TypeScript compiler, transpiling lib/) cost each
// spawned process 1-2 s on a quiet machine and 6-30 s on a starved one (40% steal time), where the specs'
// deadlines then failed with nothing wrong in larq. What the specs check is larq's behaviour, and that
// is the same code either way.
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'fs';
import { tmpdir } from 'os';
import { dirname, join, relative } from 'path';
import * as ts from 'typescript';

const ROOT = join(__dirname, '..', '..');

export interface CompiledCli {
  /** The CLI's entry point, to run with `node`. */
  readonly main: string;
  /** spec/support/cli/handlers.ts, compiled next to the lib it imports. */
  readonly handlers: string;
  /** The compiled path of a spec module given to compileCli, relative to the project (e.g. spec/support/x.ts). */
  compiled(specModule: string): string;
  /** Remove the folder. */
  remove(): void;
}

function compilerOptions(): ts.CompilerOptions {
  const file = join(ROOT, 'tsconfig.json');
  const { config, error } = ts.readConfigFile(file, (p) => readFileSync(p, 'utf8'));
  if (error) throw new Error(`tsconfig.json: ${ts.flattenDiagnosticMessageText(error.messageText, '\n')}`);
  const { options } = ts.parseJsonConfigFileContent(config, ts.sys, ROOT);
  return { ...options, sourceMap: false, declaration: false, noEmit: false };
}

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return tsFiles(path);
    return e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Transpile lib/, the handlers module and `specModules` (paths relative to the project) into a new temporary folder. */
export function compileCli(specModules: string[] = []): CompiledCli {
  const out = mkdtempSync(join(tmpdir(), 'larq-cli-'));
  const options = compilerOptions();
  const modules = ['spec/support/cli/handlers.ts', ...specModules].map((m) => join(ROOT, m));
  for (const file of [...tsFiles(join(ROOT, 'lib')), ...modules]) {
    const { outputText, diagnostics } = ts.transpileModule(readFileSync(file, 'utf8'), {
      compilerOptions: options,
      fileName: file,
      reportDiagnostics: true,
    });
    if (diagnostics?.length)
      throw new Error(`${file}: ${ts.flattenDiagnosticMessageText(diagnostics[0].messageText, '\n')}`);
    const target = join(out, relative(ROOT, file)).replace(/\.ts$/, '.js');
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, outputText);
  }
  const lua = join(ROOT, 'lib', 'redis', 'lua');
  mkdirSync(join(out, 'lib', 'redis', 'lua'), { recursive: true });
  for (const file of readdirSync(lua)) copyFileSync(join(lua, file), join(out, 'lib', 'redis', 'lua', file));
  copyFileSync(join(ROOT, 'package.json'), join(out, 'package.json'));
  // Packages (ioredis, the SQL drivers) resolve from the folder upwards, as from the project.
  symlinkSync(join(ROOT, 'node_modules'), join(out, 'node_modules'), 'dir');
  return {
    main: join(out, 'lib', 'cli', 'main.js'),
    handlers: join(out, 'spec', 'support', 'cli', 'handlers.js'),
    compiled: (specModule) => join(out, specModule).replace(/\.ts$/, '.js'),
    remove: () => rmSync(out, { recursive: true, force: true }),
  };
}
