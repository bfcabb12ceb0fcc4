// Smoke tests of the PHP harness itself (compat-fixtures/php), on every Laravel line: real Laravel
// dispatches, real Laravel runs, on a private redis-server. They prove the harness boots the line it
// was asked for and hands back what PHP had, so the Node-side interop specs can rely on it.
import { expect } from 'chai';
import { join } from 'path';
import { rawClient, randomPrefix, requireRedis } from '../support/redis';
import {
  LARAVEL_LINES,
  LaravelBoot,
  PhpLaravelLine,
  laravelHarness,
  requirePhp,
  runPhp,
  laravelEnv,
  WorkerRecord,
} from '../support/php';

/** Where each line's Illuminate classes must come from: Debian's package, or the unpacked release. */
const SOURCES: Record<PhpLaravelLine, { version: RegExp; illuminate: string }> = {
  '8.83': { version: /^8\.83\.\d+$/, illuminate: '/usr/share/php/Illuminate' },
  '12.67': {
    version: /^12\.67\.0$/,
    illuminate: join(__dirname, '..', '..', '.cache', 'laravel', '12.67', 'src', 'Illuminate'),
  },
  '13.26': {
    version: /^13\.26\.1$/,
    illuminate: join(__dirname, '..', '..', '.cache', 'laravel', '13.26', 'src', 'Illuminate'),
  },
};

describe('interop: PHP harness, the Laravel lines', function () {
  it('lists 8.83, 12.67 and 13.26, oldest first', () => {
    expect(LARAVEL_LINES).to.deep.equal(['8.83', '12.67', '13.26']);
  });

  it('refuses a line it does not know', async () => {
    const res = await runPhp('version.php', [], { LARQ_LARAVEL: '9.52' });
    expect(res.code).to.equal(3);
    expect(res.stderr).to.contain('LARQ_LARAVEL=9.52');
  });
});

for (const line of LARAVEL_LINES)
  describe(`interop: PHP harness (Laravel ${line})`, function () {
    let port: number;
    let boot: LaravelBoot;

    before(async function () {
      boot = requirePhp(this, line);
      port = await requireRedis(this);
    });

    const { phpDispatch, runLaravelWorker, runLaravelWorkerDetailed, startLaravelWorker } = laravelHarness(line);

    it('boots the real release of the line, from its own source', async () => {
      expect(boot.line).to.equal(line);
      expect(boot.version).to.match(SOURCES[line].version);
      expect(boot.illuminate).to.equal(SOURCES[line].illuminate);
      expect(boot.php).to.match(/^8\.2\./);

      // The worker and the dispatcher run the same framework the boot check saw.
      const res = await runPhp('version.php', [], laravelEnv(line));
      expect(res.code, res.stderr).to.equal(0);
      expect(JSON.parse(res.stdout)).to.deep.equal(boot);
    });

    /** Queue keys left under the prefix, with their sizes. */
    async function leftovers(prefix: string): Promise<Record<string, number>> {
      const redis = rawClient(port);
      try {
        const out: Record<string, number> = {};
        for (const key of await redis.keys(`${prefix}*`)) {
          const type = await redis.type(key);
          out[key.slice(prefix.length)] =
            type === 'list' ? await redis.llen(key) : type === 'zset' ? await redis.zcard(key) : -1;
        }
        return out;
      } finally {
        redis.disconnect();
      }
    }

    const single = [
      'object-basic',
      'object-scalars',
      'object-enums',
      'object-models',
      'object-dates',
      'object-tuned',
      'object-encrypted',
      'string-method',
      'string-fire',
      'raw',
    ];

    for (const scenario of single) {
      it(`runs ${scenario} once, with the job PHP dispatched`, async () => {
        const prefix = randomPrefix();
        const sent = await phpDispatch(scenario, { port, prefix });
        expect(sent.ids).to.have.length(1);

        const records = await runLaravelWorker({ port, prefix });

        expect(records).to.have.length(1);
        expect(records[0].jobId).to.equal(sent.ids[0]);
        expect(records[0].attempts).to.equal(1);
        expect(records[0].queue).to.equal('default');
        expect(records[0].description).to.deep.equal(sent.described[0]);
        expect(await leftovers(prefix)).to.deep.equal({});
      });
    }

    it('keeps big ints exact and floats as PHP prints them', async () => {
      const sent = await phpDispatch('object-scalars', { port, prefix: randomPrefix() });
      const zoo = sent.described[0];
      if (zoo.t !== 'object') throw new Error('expected an object');
      const prop = (name: string) => zoo.props.find((p) => p.name === name)?.value;
      expect(prop('big')).to.deep.equal({ t: 'int', v: '9007199254740993' });
      expect(prop('i')).to.deep.equal({ t: 'int', v: 42 });
      expect(prop('whole')).to.deep.equal({ t: 'float', v: '2.0' });
      expect(prop('huge')).to.deep.equal({ t: 'float', v: '1.0E+25' });
      expect(prop('tiny')).to.deep.equal({ t: 'float', v: '0.1' });
    });

    it('restores models from the database in the worker', async () => {
      const prefix = randomPrefix();
      await phpDispatch('object-models', { port, prefix });
      const [record] = await runLaravelWorker({ port, prefix });
      if (record.description.t !== 'object') throw new Error('expected an object');
      const user = record.description.props.find((p) => p.name === 'user')?.value;
      expect(user).to.include({ t: 'model', class: 'App\\Models\\User', connection: 'mysql', exists: true });
      expect(user).to.have.deep.property('key', { t: 'int', v: 7 });
    });

    for (const scenario of ['chain', 'chain-queueable']) {
      it(`runs a ${scenario} of three steps in order, the first as dispatched`, async () => {
        const prefix = randomPrefix();
        const sent = await phpDispatch(scenario, { port, prefix });

        const records = await runLaravelWorker({ port, prefix });

        expect(records.map(stepOf)).to.deep.equal([1, 2, 3]);
        expect(records[0].jobId).to.equal(sent.ids[0]);
        expect(records[0].description).to.deep.equal(sent.described[0]);
        expect(new Set(records.map((r) => r.jobId)).size).to.equal(3);
        expect(await leftovers(prefix)).to.deep.equal({});
      });
    }

    it('does not run a delayed job before its time, then runs it once', async () => {
      const prefix = randomPrefix();
      // 3 s: due 2-3 s after dispatch (whole seconds), which leaves the early worker time to start.
      const sent = await phpDispatch('delayed', { port, prefix, args: [3] });
      // The job's time is its score in :delayed: 3 s after Laravel's clock reading during the dispatch.
      const redis = rawClient(port);
      const [, score] = await redis
        .zrange(`${prefix}queues:default:delayed`, 0, '0', 'WITHSCORES')
        .finally(() => redis.disconnect());
      const due = Number(score);
      expect(due).to.be.within(sent.before + 3, sent.after + 3);

      const early = await runLaravelWorker({ port, prefix });
      expect(early).to.deep.equal([]);
      expect(await leftovers(prefix)).to.deep.equal({ 'queues:default:delayed': 1 });

      const worker = startLaravelWorker({ port, prefix, maxTime: 10, maxJobs: 1 });
      const [record] = await worker.waitForRecords(1, 10000);
      await worker.done;
      expect(record.jobId).to.equal(sent.ids[0]);
      expect(Math.floor(record.time)).to.be.at.least(due);
      expect(record.description).to.deep.equal(sent.described[0]);
      expect(await leftovers(prefix)).to.deep.equal({});
    });

    it('runs each of a bulk of 100 exactly once', async () => {
      const prefix = randomPrefix();
      const sent = await phpDispatch('bulk', { port, prefix, args: [100] });
      expect(new Set(sent.ids).size).to.equal(100);

      const records = await runLaravelWorker({ port, prefix });

      expect(records).to.have.length(100);
      expect(records.map((r) => r.jobId).sort()).to.deep.equal([...sent.ids].sort());
      expect(records.map(stepOf)).to.deep.equal(sent.described.map((_, i) => i + 1));
      expect(await leftovers(prefix)).to.deep.equal({});
    });

    it('logs a failing job through the failer and calls its failed() hook', async () => {
      const prefix = randomPrefix();
      const sent = await phpDispatch('object-failing', { port, prefix, args: [2, 'nope'] });

      const run = await runLaravelWorkerDetailed({ port, prefix, backoff: 0 });

      expect(run.code).to.equal(0);
      // 8.x calls failed() on a command without its queue job; later lines hand it the job first
      // (CallQueuedHandler::failed's setJobInstanceIfNecessary), so attempts() answers there.
      const failedAttempts = line === '8.83' ? null : 2;
      expect(run.records.map((r) => `${r.hook}:${r.attempts}`)).to.deep.equal([
        'handle:1',
        'handle:2',
        `failed:${failedAttempts}`,
      ]);
      expect(run.records[2].exception).to.deep.equal({ class: 'RuntimeException', message: 'nope' });
      expect(run.failed).to.have.length(1);
      expect(run.failed[0]).to.include({ connection: 'redis', queue: 'default', message: 'nope' });
      expect(JSON.parse(run.failed[0].payload).id).to.equal(sent.ids[0]);
      expect(run.events.map((e) => e.event)).to.include.members([
        'JobFailed',
        'JobExceptionOccurred',
        'WorkerStopping',
      ]);
      expect(await leftovers(prefix)).to.deep.equal({});
    });

    it('keeps a started worker running until it is stopped', async () => {
      const prefix = randomPrefix();
      const worker = startLaravelWorker({ port, prefix, maxTime: 20 });
      try {
        const sent = await phpDispatch('on-queue', { port, prefix, args: ['default'] });
        const [record] = await worker.waitForRecords(1);
        expect(record.jobId).to.equal(sent.ids[0]);
      } finally {
        const run = await worker.stop();
        expect(run.code).to.equal(0);
      }
    });
  });

function stepOf(record: WorkerRecord): number | string | undefined {
  if (record.description.t !== 'object') return undefined;
  const step = record.description.props.find((p) => p.name === 'step')?.value;
  return step?.t === 'int' ? step.v : undefined;
}
