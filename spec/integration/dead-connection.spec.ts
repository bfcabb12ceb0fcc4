// A Redis connection that stops answering without closing (a NAT or firewall dropping its state, a hung
// proxy): larq notices within its read timeout, says so, and reconnects; a write whose reply never came is
// reported as unconfirmed, never sent again. Real processes: `larq work` and a real redis-server with a
// TCP proxy between them that goes silent both ways (spec/support/blackholeProxy.ts).
import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { UnconfirmedWriteError } from '../../lib/errors';
import { RedisQueue } from '../../lib/RedisQueue';
import { BlackholeProxy } from '../support/blackholeProxy';
import { compileCli, type CompiledCli } from '../support/compiled';
import { startLarq, type LarqProcess } from '../support/larqProcess';
import { ChainStep } from '../support/phpJobs';
import { randomPrefix } from '../support/redis';
import { waitFor } from '../support/redisProcess';
import { ownRedis, type OwnRedis } from '../support/redisServer';

// The bound the specs set (LARQ_REDIS_READ_TIMEOUT / readTimeout), in seconds; the default is checked in
// spec/unit/read-timeout.spec.ts.
const BOUND = 3;
// What a loaded machine may add to a bound before a check counts it as missed.
const SLACK_MS = 2000;

describe('a Redis connection that goes silent without closing', function () {
  this.timeout(120000);
  let server: OwnRedis;
  let cli: CompiledCli;
  let dir: string;
  let proxy: BlackholeProxy;
  const workers: LarqProcess[] = [];
  const queues: RedisQueue[] = [];

  before(async function () {
    server = await ownRedis();
    cli = compileCli();
    dir = mkdtempSync(join(tmpdir(), 'larq-dead-connection-'));
  });
  after(async () => {
    await server?.stop();
    cli?.remove();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(async () => {
    proxy = await BlackholeProxy.start(server.port);
  });
  afterEach(async () => {
    for (const w of workers.splice(0)) if (w.child.exitCode === null) w.child.kill('SIGKILL');
    await Promise.all(queues.splice(0).map((q) => q.close()));
    await proxy.stop();
  });

  // The app's .env, reaching Redis (queue, cache and locks) through the proxy.
  function envFile(prefix: string, vars: Record<string, string> = {}): string {
    const file = join(dir, `${randomPrefix()}.env`);
    const all = {
      APP_NAME: 'Shop',
      LARQ_LARAVEL: '13',
      QUEUE_FAILED_DRIVER: 'null',
      CACHE_STORE: 'redis',
      REDIS_HOST: '127.0.0.1',
      REDIS_PORT: String(proxy.port),
      REDIS_PREFIX: prefix,
      LARQ_REDIS_READ_TIMEOUT: String(BOUND),
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

  // A queue on the redis-server itself, not through the proxy.
  function direct(prefix: string): RedisQueue {
    const q = new RedisQueue({ connection: `redis://127.0.0.1:${server.port}`, prefix, laravel: 13 });
    queues.push(q);
    return q;
  }

  function work(prefix: string, args: string[], vars: Record<string, string> = {}): LarqProcess {
    const w = startLarq(cli.main, ['work', `--handlers=${cli.handlers}`, ...args, `--env=${envFile(prefix, vars)}`]);
    workers.push(w);
    return w;
  }

  const done = (w: LarqProcess) => (w.stdout.match(/ DONE$/gm) ?? []).length;
  // A connection of openRedis says it lost the connection; a blocking pop's own connection says it through
  // the pop it cut short.
  const noticed =
    /^larq: Redis redis:\/\/127\.0\.0\.1:\d+\/\d: connection lost \(no reply within 3 s, LARQ_REDIS_READ_TIMEOUT\); reconnecting$|^larq work: Redis did not answer the (pop from|wait on) \S+queues:default/m;

  // Blackholes the proxy and resolves with the milliseconds until the worker said it noticed.
  async function silenceAndWaitForNotice(w: LarqProcess, bound: number): Promise<number> {
    const before = w.stderr.length;
    const began = Date.now();
    proxy.blackhole();
    await waitFor('the worker to say its connection is lost', bound + SLACK_MS + 5000, async () =>
      noticed.test(w.stderr.slice(before)) ? true : undefined,
    );
    return Date.now() - began;
  }

  it('a busy larq work notices within the bound, says so on stderr, and resumes once the path is back', async () => {
    const prefix = randomPrefix();
    const q = direct(prefix);
    await q.bulk(Array.from({ length: 400 }, (_, i) => ChainStep.make({ step: 1000 + i })));
    const w = work(prefix, ['--rest=0.05']);
    await waitFor('the worker to run a few jobs', 30000, async () => (done(w) >= 5 ? true : undefined));
    const ms = await silenceAndWaitForNotice(w, BOUND * 1000);
    expect(ms, w.stderr).to.be.at.most(BOUND * 1000 + SLACK_MS);
    const ranDuringOutage = done(w);
    proxy.heal();
    const healed = Date.now();
    await waitFor('the worker to run jobs again', BOUND * 1000 + SLACK_MS + 5000, async () =>
      done(w) > ranDuringOutage + 2 ? true : undefined,
    );
    expect(Date.now() - healed, w.stderr).to.be.at.most(BOUND * 1000 + SLACK_MS);
    expect(w.child.exitCode).to.equal(null);
    w.child.kill('SIGTERM');
    expect(await w.done).to.equal(0);
  });

  for (const [how, args, vars] of [
    ['polling', ['--sleep=1'], {}],
    // block_for longer than the bound: the waits are cut to fit inside it, so a quiet queue is not a dead peer
    ['waiting in a blocking pop', [], { REDIS_QUEUE_BLOCK_FOR: '5' }],
  ] as const) {
    it(`an idle larq work ${how} notices within the bound and runs a job pushed once the path is back`, async () => {
      const prefix = randomPrefix();
      const w = work(prefix, [...args], vars);
      await waitFor('the worker to start', 30000, async () => (/Processing jobs/.test(w.stdout) ? true : undefined));
      await new Promise((r) => setTimeout(r, (BOUND + 1) * 1000));
      expect(w.stderr, 'nothing is lost while Redis answers').to.not.match(noticed);
      // The stop checks (restart signal, maintenance) read the cache each pass: the first such read, or the
      // next poll, finds the silence; a poll adds its sleep.
      const ms = await silenceAndWaitForNotice(w, BOUND * 1000 + 1000);
      expect(ms, w.stderr).to.be.at.most(BOUND * 1000 + 1000 + SLACK_MS);
      proxy.heal();
      await direct(prefix).push(ChainStep.make({ step: 1 }));
      const healed = Date.now();
      await waitFor('the worker to run the job', BOUND * 1000 + SLACK_MS + 5000, async () =>
        done(w) === 1 ? true : undefined,
      );
      expect(Date.now() - healed, w.stderr).to.be.at.most(BOUND * 1000 + SLACK_MS);
      w.child.kill('SIGTERM');
      expect(await w.done).to.equal(0);
    });
  }

  // The worker first ends the pass in flight, whose reads (stop checks) each give up after the bound.
  it('larq work honours SIGTERM during the silence within twice the bound', async () => {
    const prefix = randomPrefix();
    const w = work(prefix, ['--sleep=1']);
    await waitFor('the worker to start', 30000, async () => (/Processing jobs/.test(w.stdout) ? true : undefined));
    proxy.blackhole();
    await new Promise((r) => setTimeout(r, 500));
    const signalled = Date.now();
    w.child.kill('SIGTERM');
    const code = await Promise.race([w.done, new Promise((r) => setTimeout(() => r('still running'), 20000))]);
    expect(code, w.stderr).to.equal(0);
    expect(Date.now() - signalled, w.stderr).to.be.at.most(2 * BOUND * 1000 + SLACK_MS);
  });

  it('RedisQueue.push() on a silent connection rejects within the bound with UnconfirmedWriteError, and the next push goes through once the path is back', async () => {
    const prefix = randomPrefix();
    const q = new RedisQueue({
      connection: `redis://127.0.0.1:${proxy.port}`,
      prefix,
      laravel: 13,
      readTimeout: BOUND,
    });
    queues.push(q);
    await q.push(ChainStep.make({ step: 1 }));
    proxy.blackhole();
    const began = Date.now();
    const error = await q.push(ChainStep.make({ step: 2 })).then(
      () => null,
      (e: Error) => e,
    );
    const ms = Date.now() - began;
    expect(error).to.be.instanceOf(UnconfirmedWriteError);
    expect(error!.message).to.match(
      /^Redis did not answer the push to .*queues:default before the connection closed: it may or may not have run, and it was not sent again/,
    );
    expect(ms)
      .to.be.at.least(BOUND * 1000 - 200)
      .and.at.most(BOUND * 1000 + SLACK_MS);
    proxy.heal();
    await q.push(ChainStep.make({ step: 3 }));
    // The unconfirmed push reached Redis only once, or not at all: never sent again.
    expect(await direct(prefix).size()).to.be.within(2, 3);
  });
});
