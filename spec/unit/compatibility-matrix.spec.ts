// Keeps docs/compatibility.md true: every cell says yes, partly, no, n/a or "as 8"; a "no" or "n/a" says
// why; every spec it names exists, is one `npm test` runs, and runs against the line of its column
// (a live run of that Laravel line, its recorded fixtures, or larq told that version).
import { expect } from 'chai';
import { existsSync, readFileSync } from 'fs';
import { join } from 'path';
import { select } from '../tiers';

const ROOT = join(__dirname, '..', '..');
const COLUMNS = ['8', '9-11', '12', '13'] as const;
type Column = (typeof COLUMNS)[number];

/** What a spec file must contain to run against a column's line. */
const RUNS_AGAINST: Record<Column, RegExp> = {
  '8': /LARAVEL_LINES|loadFixtures|\b8\.83\b|\b8\.x\b|(laravel|line): '?8\b/,
  '9-11': /(laravel|line|LARQ_LARAVEL): '?(9|10|11)\b/,
  '12': /LARAVEL_LINES|loadFixtures|\b12\.(x|\d+)|(laravel|line): '?12\b/,
  '13': /LARAVEL_LINES|loadFixtures|\b13\.(x|\d+)|(laravel|line): '?13\b/,
};

interface Row {
  feature: string;
  cells: Record<Column, string>;
}

function matrix(): Row[] {
  const lines = readFileSync(join(ROOT, 'docs', 'compatibility.md'), 'utf8').split('\n');
  const header = lines.findIndex((l) => /^\| Feature \| 8 \| 9-11 \| 12 \| 13 \|$/.test(l));
  expect(header, 'the table header "| Feature | 8 | 9-11 | 12 | 13 |"').to.be.greaterThan(-1);
  const rows: Row[] = [];
  for (const line of lines.slice(header + 2)) {
    if (!line.startsWith('|')) break;
    const parts = line
      .split('|')
      .slice(1, -1)
      .map((p) => p.trim());
    expect(parts, line).to.have.length(5);
    rows.push({
      feature: parts[0],
      cells: Object.fromEntries(COLUMNS.map((c, i) => [c, parts[i + 1]])) as Record<Column, string>,
    });
  }
  return rows;
}

// The globs `npm test` runs (LARQ_TIER=all, spec/tiers.js), as regular expressions over repository paths.
function testedPaths(): RegExp[] {
  const script = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: { test: string } }).scripts
    .test;
  expect(script, 'the test script runs every tier').to.include('LARQ_TIER=all mocha');
  const globs = select('all').spec;
  expect(globs, 'spec globs in the test script').to.not.be.empty;
  return globs.map(
    (g) =>
      new RegExp(
        `^${g
          .replace(/\./g, '\\.')
          .replace(/\*\*\//g, '(.+/)?')
          .replace(/\*/g, '[^/]*')}$`,
      ),
  );
}

const specsIn = (cell: string): string[] => [...cell.matchAll(/spec\/[\w/.-]+\.spec\.ts/g)].map((m) => m[0]);

describe('docs/compatibility.md', () => {
  const rows = matrix();

  it('has one row per feature, short enough for the README', () => {
    expect(rows.length).to.be.within(8, 20);
    expect(new Set(rows.map((r) => r.feature)).size).to.equal(rows.length);
  });

  it('says yes, partly, no, n/a or "as 8" in every cell, with a reason or a spec', () => {
    for (const { feature, cells } of rows) {
      for (const column of COLUMNS) {
        const cell = cells[column];
        const where = `${feature} / ${column}: "${cell}"`;
        if (cell === 'as 8') {
          expect(column, where).to.equal('9-11');
          expect(cells['8'], where).to.match(/^(yes|partly)\b/);
        } else if (/^(yes|partly)\b/.test(cell)) {
          expect(specsIn(cell), where).to.not.be.empty;
        } else {
          expect(cell, where).to.match(/^(no|n\/a): \S/);
        }
      }
    }
  });

  it('names only specs that exist, that npm test runs, and that run against the line of their column', () => {
    const tested = testedPaths();
    let named = 0;
    for (const { feature, cells } of rows) {
      for (const column of COLUMNS) {
        for (const spec of specsIn(cells[column])) {
          named++;
          const where = `${feature} / ${column}: ${spec}`;
          expect(existsSync(join(ROOT, spec)), `${where} exists`).to.equal(true);
          expect(
            tested.some((re) => re.test(spec)),
            `${where} is run by npm test`,
          ).to.equal(true);
          expect(readFileSync(join(ROOT, spec), 'utf8'), `${where} runs against Laravel ${column}`).to.match(
            RUNS_AGAINST[column],
          );
        }
      }
    }
    expect(named).to.be.greaterThan(rows.length);
  });

  it("is the table README.md's Compatibility section shows, row for row", function () {
    const table = (file: string) => {
      const lines = readFileSync(join(ROOT, file), 'utf8').split('\n');
      const header = lines.indexOf('| Feature | 8 | 9-11 | 12 | 13 |');
      expect(header, `${file} has the matrix`).to.be.greaterThan(-1);
      const end = lines.findIndex((l, i) => i > header && !l.startsWith('|'));
      return lines.slice(header, end);
    };
    expect(table('README.md')).to.deep.equal(table('docs/compatibility.md'));
  });
});
