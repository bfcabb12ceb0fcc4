// Whether a generated module still matches the app's PHP classes: `larq types --check` (for CI) and the
// warning `larq work` prints at start for the classes its handlers were typed with.
import type { TypesManifest } from './generateModule';

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
