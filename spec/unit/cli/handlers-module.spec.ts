// `larq work --handlers=MODULE`: a module that cannot load is reported for what it is, with where it broke.
import { expect } from 'chai';
import { writeFileSync } from 'fs';
import { join } from 'path';
import { UsageError } from '../../../lib/cli/args';
import { loadHandlers } from '../../../lib/cli/commands/work';
import { LarqError } from '../../../lib/errors';
import { Handlers } from '../../../lib/handlers/Handlers';
import { useTempDir } from '../../support/useTempDir';

describe('larq work --handlers: loading the module', function () {
  const temp = useTempDir('handlers', 'all');

  async function failure(name: string, source: string): Promise<Error> {
    const file = join(temp.path, name);
    writeFileSync(file, source);
    try {
      await loadHandlers(file);
    } catch (e) {
      return e as Error;
    }
    throw new Error(`${name} loaded`);
  }

  it('loads a CommonJS module and an ES module that export Handlers', async function () {
    const lib = require.resolve('../../../lib/handlers/Handlers');
    writeFileSync(
      join(temp.path, 'ok.cjs'),
      `const { Handlers } = require(${JSON.stringify(lib)}); module.exports = new Handlers();`,
    );
    expect(await loadHandlers(join(temp.path, 'ok.cjs'))).to.be.instanceOf(Handlers);
    writeFileSync(join(temp.path, 'ok.mjs'), `export default { run() {}, failed() {}, bindFailer() {} };`);
    expect(await loadHandlers(join(temp.path, 'ok.mjs'))).to.have.property('run');
  });

  it('says "no such module" only when the file itself is missing', async function () {
    const e = await failure('present.txt', '');
    expect(e).to.be.instanceOf(UsageError); // a .txt exports nothing usable
    let missing: Error | undefined;
    await loadHandlers(join(temp.path, 'absent.mjs')).catch((err: Error) => (missing = err));
    expect(missing).to.be.instanceOf(UsageError);
    expect(missing!.message).to.match(/absent\.mjs: no such module/);
  });

  it('names the missing package an ES module imports, not the module itself', async function () {
    const e = await failure('imports-missing.mjs', "import 'larq-no-such-package';\nexport default {};\n");
    expect(e).to.be.instanceOf(LarqError);
    expect(e.message).not.to.match(/no such module/);
    expect(e.message).to.match(/imports-missing\.mjs.*Cannot find package 'larq-no-such-package'/);
  });

  it('names the missing package a CommonJS module requires', async function () {
    const e = await failure('requires-missing.cjs', "require('larq-no-such-package');\n");
    expect(e.message).not.to.match(/no such module/);
    expect(e.message).to.match(/requires-missing\.cjs.*Cannot find module 'larq-no-such-package'/);
  });

  it('gives file:line for a syntax error, in CommonJS and ES modules', async function () {
    const cjs = await failure('broken.cjs', 'module.exports = {\n  a: 1,\n  b: = 2,\n};\n');
    expect(cjs.message).to.match(/broken\.cjs:3\b.*SyntaxError/);
    const esm = await failure('broken.mjs', 'export default {\n  a: 1\n  b: 2,\n};\n');
    expect(esm.message).to.match(/broken\.mjs:3\b.*SyntaxError/);
  });
});
