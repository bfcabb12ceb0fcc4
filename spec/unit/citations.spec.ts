// Comments cite what a reader who cloned the repository can open: Laravel's `Class::method` and version,
// or docs/. A numbered section of a document outside the repository ("spec" followed by a section sign
// and a number) cannot be followed, so no file may carry one.
import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const SKIPPED = new Set(['.git', 'node_modules', 'dist', '.cache', 'docs/api']);
// Built from parts so this file does not match itself.
const SECTION_SIGN = String.fromCharCode(0xa7);
const CITATION = new RegExp(`(spec ${SECTION_SIGN}|${SECTION_SIGN}\\s*\\d)`);

function* files(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (SKIPPED.has(relative(ROOT, path))) continue;
    if (entry.isDirectory()) yield* files(path);
    else if (entry.isFile()) yield path;
  }
}

describe('citations', () => {
  it('no file cites a numbered section of a document outside the repository', () => {
    const found: string[] = [];
    for (const path of files(ROOT)) {
      const bytes = readFileSync(path);
      if (bytes.includes(0)) continue;
      bytes
        .toString('utf8')
        .split('\n')
        .forEach((line, index) => {
          if (CITATION.test(line)) found.push(`${relative(ROOT, path)}:${index + 1}`);
        });
    }
    expect(found).to.deep.equal([]);
  });
});
