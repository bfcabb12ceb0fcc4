// `larq work` prints what a payload says (its display name, ids, queue, exception text) with every
// control character escaped: a job cannot forge output lines, recolour the terminal or ring its bell.
import { expect } from 'chai';
import { writeFileSync } from 'fs';
import { join } from 'path';
import { RedisQueue } from '../../lib/RedisQueue';
import { compileCli, type CompiledCli } from '../support/compiled';
import { runLarq } from '../support/larqProcess';
import { ChainStep } from '../support/phpJobs';
import { useRedisQueue } from '../support/useRedisQueue';
import { useTempDir } from '../support/useTempDir';

// A display name that, printed raw, ends the RUNNING line and writes a DONE line of its own.
const FORGED =
  'App\\Jobs\\Harmless\r\n  2026-01-01 00:00:00 App\\Jobs\\ChargeCard ........ 1.00ms DONE\x1b[2K\x07\u202e';

describe('larq work output of hostile payloads', function () {
  this.timeout(60000);
  const redis = useRedisQueue();
  const temp = useTempDir('escapes', 'all');
  let cli: CompiledCli;
  let env: string;
  let queue: RedisQueue;

  before(async function () {
    cli = compileCli();
  });
  after(() => {
    cli?.remove();
  });
  beforeEach(() => {
    env = join(temp.path, `${redis.prefix}.env`);
    const lines = [
      'APP_NAME=Shop',
      'REDIS_HOST=127.0.0.1',
      `REDIS_PORT=${redis.port}`,
      `REDIS_PREFIX=${redis.prefix}`,
      'QUEUE_FAILED_DRIVER=file',
      'CACHE_STORE=redis',
    ];
    writeFileSync(env, lines.join('\n') + '\n');
    queue = redis.open({ laravel: 12 });
  });

  /** Push a ChainStep of `step` whose displayName is FORGED. */
  async function pushForged(step: number): Promise<void> {
    await queue.push(ChainStep.make({ step }));
    const payload = JSON.parse((await redis.client.rpop(`${redis.prefix}queues:default`))!) as { displayName: string };
    payload.displayName = FORGED;
    await queue.pushRaw(JSON.stringify(payload));
  }

  const work = (...args: string[]) =>
    runLarq(cli.main, [
      'work',
      `--handlers=${cli.handlers}`,
      `--app=${temp.path}`,
      `--env=${env}`,
      '--stop-when-empty',
      '--sleep=0',
      '--tries=1',
      ...args,
    ]);

  it('prints a forged display name escaped, on the one RUNNING and one DONE line of its job', async function () {
    await pushForged(1);
    const run = await work();
    expect(run.code, run.stderr).to.equal(0);
    expect(run.stdout).not.to.match(/[\x00-\x09\x0b-\x1f\x7f\u202e]/);
    const lines = run.stdout.split('\n').filter((l) => l.includes('Harmless'));
    expect(lines).to.have.length(2);
    expect(lines[0])
      .to.include(
        'App\\Jobs\\Harmless\\r\\n  2026-01-01 00:00:00 App\\Jobs\\ChargeCard ........ 1.00ms DONE\\e[2K\\a\\u202e',
      )
      .and.match(/RUNNING$/);
    expect(lines[1]).to.match(/DONE$/);
    expect(run.stdout.split('\n').filter((l) => /DONE$/.test(l))).to.have.length(1);
  });

  it('escapes it in the failure note on stderr and in --json lines too', async function () {
    await pushForged(13);
    const run = await work();
    expect(run.stderr).to.include('larq work: App\\Jobs\\Harmless\\r\\n').and.include('failed for good');
    expect(run.stdout + run.stderr).not.to.match(/[\x00-\x09\x0b-\x1f\x7f\u202e]/);
    await pushForged(1);
    const json = await work('--json');
    expect(json.stdout).not.to.match(/[\x00-\x09\x0b-\x1f\x7f\u202e]/);
    const jobs = json.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { job?: string })
      .filter((l) => l.job !== undefined);
    expect(jobs.map((l) => l.job)).to.deep.equal([FORGED, FORGED]);
  });
});
