// The larq command behind Sentinel when something is wrong: TLS settings a plaintext primary cannot
// meet, a service name no sentinel knows, no sentinel running. Each must end in one line that names the
// setting, at once, never hang in silence or fall back to plaintext. Real local sentinels of the spec's own.
import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { compileCli, type CompiledCli } from '../support/compiled';
import { runLarq } from '../support/larqProcess';
import { freePort, randomPrefix } from '../support/redis';
import { LocalSentinel } from '../support/sentinel';

describe('the larq command behind Sentinel that cannot serve it', function () {
  this.timeout(120000);
  let cli: CompiledCli;
  let dir: string;
  let sentinel: LocalSentinel;

  before(async function () {
    sentinel = await LocalSentinel.start(this);
    cli = compileCli();
    dir = mkdtempSync(join(tmpdir(), 'larq-cli-sentinel-'));
  });
  after(async () => {
    await sentinel?.stop();
    cli?.remove();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  function envFile(vars: Record<string, string>): string {
    const file = join(dir, `${randomPrefix()}.env`);
    const sentinels = sentinel.sentinels.map((s) => `${s.host}:${s.port}`).join(',');
    const all = {
      APP_NAME: 'Shop',
      LARQ_LARAVEL: '13',
      QUEUE_FAILED_DRIVER: 'null',
      CACHE_STORE: 'array',
      LARQ_REDIS_SENTINELS: sentinels,
      LARQ_REDIS_SENTINEL_SERVICE: sentinel.name,
      REDIS_PREFIX: randomPrefix(),
      ...vars,
    };
    writeFileSync(
      file,
      Object.entries(all)
        .map(([k, v]) => `${k}=${v}`)
        .join('\n') + '\n',
    );
    return file;
  }

  // A command that must give up: how long it took, its exit code and its stderr lines.
  async function timed(args: string[]): Promise<{ ms: number; code: number | null; stdout: string; lines: string[] }> {
    const began = Date.now();
    const run = await runLarq(cli.main, args, { timeoutMs: 30000 });
    return {
      ms: Date.now() - began,
      code: run.code,
      stdout: run.stdout,
      lines: run.stderr.split('\n').filter(Boolean),
    };
  }

  describe('TLS behind Sentinel', function () {
    for (const [how, vars] of [
      ['REDIS_SCHEME=tls', { REDIS_SCHEME: 'tls' }],
      ['a rediss:// REDIS_URL', { REDIS_URL: 'rediss://127.0.0.1' }],
    ] as const) {
      it(`refuses to talk plaintext to a primary found through the sentinels with ${how}`, async () => {
        const run = await timed(['size', `--env=${envFile(vars)}`]);
        expect(run.code, run.lines.join('\n')).to.equal(1);
        expect(run.lines, run.lines.join('\n')).to.have.length(1);
        expect(run.lines[0], run.lines.join('\n')).to.match(
          new RegExp(
            `^larq size: cannot reach Redis at sentinels 127\\.0\\.0\\.1:\\d+.*, primary "${sentinel.name}" \\(db 0\\) over TLS: (.*(SSL|socket disconnected|ECONNRESET)|connect ETIMEDOUT \\(no TLS handshake: does the server speak TLS\\?\\))$`,
          ),
        );
        expect(run.stdout).to.not.match(/redis:default/);
      });
    }

    it('speaks TLS to the sentinels too when LARQ_REDIS_SENTINELS names them as tls://', async () => {
      // one sentinel: ioredis asks them in turn, and each plaintext one leaves the handshake to its connect timeout
      const sentinels = `tls://127.0.0.1:${sentinel.sentinelPorts[0]}`;
      const run = await timed(['size', `--env=${envFile({ LARQ_REDIS_SENTINELS: sentinels })}`]);
      expect(run.code, run.lines.join('\n')).to.equal(1);
      expect(run.lines).to.have.length(1);
      expect(run.lines[0], run.lines.join('\n')).to.match(
        /^larq size: LARQ_REDIS_SENTINELS: no sentinel of tls:\/\/127\.0\.0\.1:\d+ answered/,
      );
    });

    it('refuses TLS files (LARQ_REDIS_CA) on a connection that is not TLS', async () => {
      const run = await timed(['size', `--env=${envFile({ LARQ_REDIS_CA: '/etc/ssl/certs/ca-certificates.crt' })}`]);
      expect(run.code, run.lines.join('\n')).to.equal(1);
      expect(run.lines).to.deep.equal([
        'larq size: LARQ_REDIS_CA: is set but no Redis connection is TLS: set REDIS_SCHEME=tls (or use a rediss:// URL), or name the sentinels as tls://host:port',
      ]);
    });
  });

  it('says at once that no sentinel knows LARQ_REDIS_SENTINEL_SERVICE, and exits 1', async () => {
    const run = await timed(['size', `--env=${envFile({ LARQ_REDIS_SENTINEL_SERVICE: 'nope' })}`]);
    expect(run.code, run.lines.join('\n')).to.equal(1);
    expect(run.lines).to.have.length(1);
    expect(run.lines[0], run.lines.join('\n')).to.match(
      /^larq size: LARQ_REDIS_SENTINEL_SERVICE: the sentinels 127\.0\.0\.1:\d+,.* know no primary named "nope"/,
    );
    expect(run.ms).to.be.below(10000);
  });

  it('says at once that no sentinel answers when none runs, and larq work exits 1', async () => {
    const ports = [await freePort(), await freePort()];
    const env = envFile({ LARQ_REDIS_SENTINELS: ports.map((p) => `127.0.0.1:${p}`).join(',') });
    for (const args of [['size'], ['work', `--handlers=${cli.handlers}`]]) {
      const run = await timed([...args, `--env=${env}`]);
      expect(run.code, args[0]).to.equal(1);
      expect(run.lines, run.lines.join('\n')).to.have.length(1);
      expect(run.lines[0], run.lines.join('\n')).to.match(
        new RegExp(
          `^larq ${args[0]}: LARQ_REDIS_SENTINELS: no sentinel of 127\\.0\\.0\\.1:${ports[0]},127\\.0\\.0\\.1:${ports[1]} answered$`,
        ),
      );
      expect(run.ms).to.be.below(10000);
    }
  });
});
