// A temporary directory per test (or per file), removed after it, instead of mkdtemp/rm by hand.
import { mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';

export interface TempDir {
  /** The directory's path (set in the before/beforeEach hook). */
  readonly path: string;
}

/** Call inside a `describe`: a fresh directory named `larq-<name>-...` for each test, or once for the file. */
export function useTempDir(name: string, scope: 'each' | 'all' = 'each'): TempDir {
  let path = '';
  const make = () => {
    path = mkdtempSync(join(tmpdir(), `larq-${name}-`));
  };
  const remove = () => {
    if (path !== '') rmSync(path, { recursive: true, force: true });
    path = '';
  };
  if (scope === 'each') {
    beforeEach(make);
    afterEach(remove);
  } else {
    before(make);
    after(remove);
  }
  return {
    get path() {
      if (path === '') throw new Error('useTempDir: the directory exists from its before hook on');
      return path;
    },
  };
}
