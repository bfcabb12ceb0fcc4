// Whether a generated module still matches the app's PHP classes: `larq types --check` (for CI) and the
// warning `larq work` prints at start for the classes its handlers were typed with.
import { existsSync } from 'fs';
import { join } from 'path';
import { generateModule, type TypesManifest } from './generateModule';
import { reflectApp } from './reflection';

/** A class whose declaration in the module no longer matches PHP, and why. */
export interface StaleClass {
  className: string;
  reason: 'changed' | 'removed' | 'added';
}

/**
 * The classes of `written` (a module's manifest, or the hashes handlers were typed with) that differ from
 * `fresh` (a new reflection's manifest). With `onlyWritten`, classes PHP gained since are not reported.
 */
export function staleClasses(
  written: Readonly<Record<string, string>>,
  fresh: TypesManifest,
  { onlyWritten = false } = {},
): StaleClass[] {
  const out: StaleClass[] = [];
  for (const [className, hash] of Object.entries(written)) {
    const now = fresh.classes[className];
    if (now === undefined) out.push({ className, reason: 'removed' });
    else if (now !== hash) out.push({ className, reason: 'changed' });
  }
  if (!onlyWritten) {
    for (const className of Object.keys(fresh.classes))
      if (!(className in written)) out.push({ className, reason: 'added' });
  }
  return out.sort((a, b) => a.className.localeCompare(b.className));
}

/** One line per stale class, for people. */
export function describeStale(stale: readonly StaleClass[]): string[] {
  const why = { changed: 'its PHP declaration changed', removed: 'PHP no longer declares it', added: 'new in PHP' };
  return stale.map((s) => `${s.className}: ${why[s.reason]}`);
}

/**
 * `larq work`'s start-up check: the classes `declared` (handlers registered through a generated
 * declaration, with the hash each was generated from) whose PHP declaration in the app at `appDir`
 * changed since. Runs the reflector once (PHP reflection only, no class is instantiated); returns [] when
 * nothing was declared or the app has no vendor/autoload.php to reflect with, and a note when PHP fails.
 */
export function declarationWarnings(declared: ReadonlyMap<string, string>, appDir: string, php = 'php'): string[] {
  if (declared.size === 0 || !existsSync(join(appDir, 'vendor', 'autoload.php'))) return [];
  let fresh: TypesManifest;
  try {
    fresh = generateModule(reflectApp(appDir, php)).manifest;
  } catch (e) {
    return [`could not check the typed handlers against the PHP classes: ${(e as Error).message.split('\n')[0]}`];
  }
  const stale = staleClasses(Object.fromEntries(declared), fresh, { onlyWritten: true });
  return describeStale(stale).map(
    (line) => `handler typed by a stale larq types declaration: ${line} (run larq types again)`,
  );
}
