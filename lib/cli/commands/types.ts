// `larq types`: the TypeScript side of the app's queueable PHP classes, reflected by the app's own PHP
// (lib/types/reflect.php) and written as one module; `--check` tells CI when that module is stale.
import { existsSync, readFileSync, writeFileSync } from 'fs';
import { resolve } from 'path';
import { UsageError, stringFlag, type Command } from '../args';
import { describeStale, staleClasses } from '../../types/checkTypes';
import { generateModule, readManifest } from '../../types/generateModule';
import { reflectApp } from '../../types/reflection';

/** `larq types`. */
export const types: Command = {
  name: 'types',
  summary: "TypeScript types and declarations of the app's PHP job classes (--check: is it stale?)",
  help: `Usage: larq types [--out=FILE] [--check] [--php=BINARY]

Reflect the app's queueable PHP classes with the app's own PHP and vendor/autoload.php: the jobs
implementing ShouldQueue under the PSR-4 roots of composer.json, queued listeners, notifications and
mailables, and the enums, models and value classes their properties use. Writes one TypeScript module:
per class an interface of what a handler receives, and a declaration whose make() is type-checked and
serializes as PHP's serialize() does (a float property is always a PHP float). handlers.object(Class,
...) types a handler by it. What PHP computes at dispatch (tags(), middleware(), computed defaults) is
listed in the module's header. docs/types.md has the PHP to TypeScript mapping.

  --out=FILE       the module to write (default larq-types.ts in the app's folder, --app or the current one)
  --check          write nothing: exit 1, naming the classes, when FILE no longer matches the PHP classes
  --php=BINARY     the PHP to run (default php)
  --import=MODULE  where the module imports larq from (default larq)`,
  options: {
    out: { type: 'string' },
    check: { type: 'boolean' },
    php: { type: 'string' },
    import: { type: 'string' },
  },
  positionals: { min: 0, max: 0, what: 'no arguments' },
  async run(p, io) {
    const app = resolve(stringFlag(p, 'app') ?? '.');
    const out = resolve(app, stringFlag(p, 'out') ?? 'larq-types.ts');
    const reflection = reflectApp(app, stringFlag(p, 'php') ?? 'php');
    const generated = generateModule(reflection, { importFrom: stringFlag(p, 'import') ?? 'larq' });
    const count = Object.keys(generated.manifest.classes).length;
    if (p.values.check) {
      if (!existsSync(out)) throw new UsageError(`larq types --check: ${out} does not exist (run larq types)`);
      const written = readManifest(readFileSync(out, 'utf8'));
      if (written === null) {
        io.err(`larq types: ${out} was not written by larq types (no manifest line)`);
        return 1;
      }
      const stale = staleClasses(written.classes, generated.manifest);
      if (stale.length === 0) {
        io.out(`${out} is up to date (${count} classes)`);
        return 0;
      }
      io.err(`larq types: ${out} is stale; run larq types again:`);
      for (const line of describeStale(stale)) io.err(`  ${line}`);
      return 1;
    }
    writeFileSync(out, generated.text);
    io.out(`wrote ${out}: ${count} classes (Laravel ${reflection.laravel ?? 'unknown'})`);
    return 0;
  },
};
