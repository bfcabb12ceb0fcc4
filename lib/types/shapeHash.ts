// The hash of a PHP class's reflected declaration: what `larq types --check` and `larq work` compare to
// tell a module gone stale. It covers everything the module was generated from (properties, their
// types, visibility, defaults, traits, tuning, enum cases) and folds in the hashes of the classes its
// properties use, so a changed value class or enum makes the classes holding it stale too. The file a
// class lives in is left out: moving a file changes nothing serialized.
import { createHash } from 'crypto';
import type { ReflectedClass } from './reflection';

/** Every reflected class's hash, by class name. */
export function shapeHashes(classes: readonly ReflectedClass[]): Map<string, string> {
  const byName = new Map(classes.map((c) => [c.name, c]));
  const done = new Map<string, string>();
  const visiting = new Set<string>();
  const hashOf = (name: string): string => {
    const known = done.get(name);
    if (known !== undefined) return known;
    const c = byName.get(name);
    if (c === undefined) return 'absent';
    if (visiting.has(name)) return 'cycle';
    visiting.add(name);
    const own = { ...c, file: undefined };
    const used = [...usedClasses(c)].sort().map((u) => [u, hashOf(u)]);
    visiting.delete(name);
    const hash = createHash('sha256')
      .update(JSON.stringify([own, used]))
      .digest('hex')
      .slice(0, 16);
    done.set(name, hash);
    return hash;
  };
  for (const c of classes) hashOf(c.name);
  return done;
}

/** The class names a class's property types and listener event name. */
export function usedClasses(c: ReflectedClass): Set<string> {
  const out = new Set<string>();
  for (const p of c.properties ?? []) {
    for (const part of (p.type ?? '').replace(/[?()]/g, '').split(/[|&]/)) {
      if (part.includes('\\') || /^[A-Z]/.test(part)) out.add(part.replace(/^\\/, ''));
    }
  }
  if (c.event) out.add(c.event);
  return out;
}
