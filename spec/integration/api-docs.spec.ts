// The API reference (`npm run docs`): TypeDoc builds it from lib/index.ts's TSDoc with warnings treated as
// errors (typedoc.json), so a public signature that names a type users cannot import, or a broken
// {@link}, fails here instead of shipping. The output is generated, not committed (docs/api is ignored).
import { expect } from 'chai';
import { spawnSync } from 'child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';

const ROOT = join(__dirname, '..', '..');

describe('the API reference', function () {
  this.timeout(300_000);

  it('builds from the TSDoc without a warning, and documents the public entry points', function () {
    const out = mkdtempSync(join(tmpdir(), 'larq-api-'));
    try {
      const result = spawnSync(
        process.execPath,
        [join(ROOT, 'node_modules', 'typedoc', 'bin', 'typedoc'), '--out', out],
        { cwd: ROOT, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } },
      );
      expect(result.status, `${result.stdout}\n${result.stderr}`).to.equal(0);
      expect(`${result.stdout}${result.stderr}`).to.not.match(/\[warning\]|\[error\]/);
      for (const page of [
        'classes/RedisQueue.html',
        'classes/Handlers.html',
        'functions/createWorker.html',
        'interfaces/WorkerOptions.html',
      ]) {
        expect(existsSync(join(out, page)), page).to.equal(true);
      }
      expect(readFileSync(join(out, 'interfaces', 'WorkerOptions.html'), 'utf8')).to.include('seconds a job may run');
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});
