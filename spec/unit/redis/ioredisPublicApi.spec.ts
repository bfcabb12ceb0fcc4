// larq uses ioredis only through its public API: no file under lib/ reads or writes ioredis' private
// fields (its command queues, a command's place in a pipeline or transaction, a pipeline's internals),
// stands in for a client with Object.create, reaches under a connection to its socket (to cork it), or
// writes Redis' protocol itself instead of letting ioredis encode the command.
import { expect } from 'chai';
import { readdirSync, readFileSync } from 'fs';
import { join } from 'path';

const LIB = join(__dirname, '..', '..', '..', 'lib');
const PRIVATE = [
  'pipelineIndex',
  'inTransaction',
  'commandQueue',
  'offlineQueue',
  'prevCommandQueue',
  'prevCondition',
  'manuallyClosing',
  '_transactions',
  '_queue',
  '_result',
  'replyPending',
  'retryAttempts',
  'connectionPool',
  'scriptsSet',
];

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? tsFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

// A file's code with its line comments removed.
function codeOf(file: string): string {
  return readFileSync(file, 'utf8')
    .split('\n')
    .map((line) => line.replace(/\/\/.*$/, ''))
    .join('\n');
}

const relative = (file: string): string => file.slice(LIB.length + 1);

describe('ioredis through its public API only', () => {
  it("no file under lib/ reaches a connection's socket or corks it", () => {
    const found = tsFiles(LIB)
      .filter((file) => /\.stream\b|\.(un)?cork\(/.test(codeOf(file)))
      .map(relative);
    expect(found).to.deep.equal([]);
  });

  it("no file that uses ioredis writes Redis' protocol by hand (CRLF-framed text)", () => {
    const found = tsFiles(LIB)
      .filter((file) => file.includes(join('lib', 'redis')) || codeOf(file).includes("from 'ioredis'"))
      .filter((file) => codeOf(file).includes('\\r\\n'))
      .map(relative);
    expect(found).to.deep.equal([]);
  });

  it('no file under lib/ names a private ioredis field or makes a client with Object.create', () => {
    const found: string[] = [];
    for (const file of tsFiles(LIB)) {
      const code = readFileSync(file, 'utf8')
        .split('\n')
        .map((line) => line.replace(/\/\/.*$/, ''))
        .join('\n');
      for (const name of PRIVATE)
        if (new RegExp(`\\.${name}\\b`).test(code)) found.push(`${file.slice(LIB.length + 1)}: .${name}`);
      if (code.includes("from 'ioredis'") && /Object\.create\(/.test(code))
        found.push(`${file.slice(LIB.length + 1)}: Object.create`);
    }
    expect(found).to.deep.equal([]);
  });
});
