// Interop with real Laravel on one redis-server, on every line of LARAVEL_LINES (8.83 from Debian's
// packages, 12.67 and 13.26 from their releases), both ways:
//   PHP dispatches, larq pops and decodes: every property's value and type as PHP had it;
//   larq dispatches, Laravel's worker runs: handle() sees exactly what larq sent.
import { expect } from 'chai';
import Redis from 'ioredis';
import { FakeClock } from '../../lib/clock';
import { Encrypter } from '../../lib/php/Encrypter';
import { PhpObject, type PhpValue } from '../../lib/php/values';
import { RedisQueue } from '../../lib/RedisQueue';
import { describe as describeValue } from '../support/describe';
import { FIXTURE_APP_KEY } from '../support/fixtures';
import { describedOnTheWire, LARAVEL_LINES, laravelHarness, requirePhp, type PhpDescribed } from '../support/php';
import { phpJobsFor } from '../support/phpJobs';
import { randomPrefix, rawClient, requireRedis } from '../support/redis';

/** PHP's description of a value PHP's json_decode(..., true) would give for this decoded JSON. */
function describeJson(v: unknown): PhpDescribed {
  if (v === null) return { t: 'null' };
  if (typeof v === 'boolean') return { t: 'bool', v };
  if (typeof v === 'bigint') return describeValue(v) as PhpDescribed;
  if (typeof v === 'number') return describeValue(Number.isInteger(v) ? BigInt(v) : v) as PhpDescribed;
  if (typeof v === 'string') return { t: 'string', v };
  const entries = Array.isArray(v) ? v.map((x, i) => [i, x] as const) : Object.entries(v as object);
  return {
    t: 'array',
    entries: entries.map(([k, x]) => ({
      k: typeof k === 'string' && /^(0|-?[1-9]\d*)$/.test(k) ? Number(k) : k,
      v: describeJson(x),
    })),
  } as PhpDescribed;
}

type Node = {
  t: string;
  v?: unknown;
  class?: string;
  key?: Node;
  connection?: unknown;
  props?: { name: string; value: Node }[];
  entries?: { v: Node }[];
};

/** What identifies the model(s) in a description: PHP's restored model or Collection, or a ModelIdentifier. */
function modelRef(d: PhpDescribed): { class?: string; connection: unknown; keys: unknown[] } {
  const x = d as Node;
  const prop = (o: Node, n: string) => o.props!.find((p) => p.name === n)!.value;
  if (x.t === 'model') return { class: x.class, connection: x.connection, keys: [x.key!.v] };
  if (x.class === 'Illuminate\\Database\\Eloquent\\Collection') {
    const models = prop(x, 'items').entries!.map((e) => e.v);
    return { class: models[0].class, connection: models[0].connection, keys: models.map((m) => m.key!.v) };
  }
  const id = prop(x, 'id');
  return {
    class: prop(x, 'class').v as string,
    connection: prop(x, 'connection').v,
    keys: id.t === 'array' ? id.entries!.map((e) => e.v.v) : [id.v],
  };
}

for (const line of LARAVEL_LINES)
  describe(`interop: larq and Laravel ${line} on one Redis`, function () {
    this.timeout(60000);
    const { major, phpDispatch, runLaravelWorker, startLaravelWorker } = laravelHarness(line);
    const { ChainStep, NODE_SHAPES, nodeChain } = phpJobsFor(major);
    let port: number;
    let client: Redis;
    const queues: RedisQueue[] = [];

    before(async function () {
      requirePhp(this, line);
      port = await requireRedis(this);
      client = rawClient(port);
    });
    after(async () => {
      client?.disconnect();
      await Promise.all(queues.map((q) => q.close()));
    });

    function larq(prefix: string): RedisQueue {
      const q = new RedisQueue({
        connection: { port },
        prefix,
        laravel: major,
        retryAfter: 90,
        encrypter: new Encrypter(FIXTURE_APP_KEY),
      });
      queues.push(q);
      return q;
    }

    describe('PHP dispatches, larq pops and decodes', function () {
      const objectScenarios = [
        'object-basic',
        'object-scalars',
        'object-enums',
        'object-dates',
        'object-tuned',
        'object-encrypted',
        'chain',
      ];

      for (const scenario of objectScenarios) {
        it(`${scenario}: every property's value and type as PHP had it`, async function () {
          const prefix = randomPrefix();
          const sent = await phpDispatch(scenario, { port, prefix });
          const q = larq(prefix);
          const job = await q.pop();
          expect(job, 'a job to pop').to.not.equal(null);
          expect(job!.getJobId()).to.equal(sent.ids[0]);
          expect(job!.attempts()).to.equal(1);
          expect(describeValue(job!.command())).to.deep.equal(describedOnTheWire(sent));
          await job!.delete();
          expect(await q.size()).to.equal(0);
        });
      }

      it('object-models: ModelIdentifier references with the class, keys and connection of the models', async function () {
        const prefix = randomPrefix();
        const sent = await phpDispatch('object-models', { port, prefix });
        const job = await larq(prefix).pop();
        const command = job!.command();
        const sentProps = (sent.described[0] as { props: { name: string; value: PhpDescribed }[] }).props;
        for (const name of ['user', 'users']) {
          const ours = describeValue(command.get(name) as PhpValue) as PhpDescribed;
          expect((ours as { class: string }).class).to.equal('Illuminate\\Contracts\\Database\\ModelIdentifier');
          expect(modelRef(ours)).to.deep.equal(modelRef(sentProps.find((p) => p.name === name)!.value));
        }
      });

      for (const scenario of ['string-method', 'string-fire']) {
        it(`${scenario}: the data PHP pushed, big integers exact`, async function () {
          const prefix = randomPrefix();
          const sent = await phpDispatch(scenario, { port, prefix });
          const job = await larq(prefix).pop();
          expect(job!.payload().isObjectJob).to.equal(false);
          expect(describeJson(job!.payload().data)).to.deep.equal(sent.described[0]);
        });
      }

      it('a job PHP delayed 2 s is not popped before it is due, then once', async function () {
        const prefix = randomPrefix();
        const sent = await phpDispatch('delayed', { port, prefix, args: [2] });
        const q = larq(prefix);
        const [, score] = await client.zrange(`${prefix}queues:default:delayed`, 0, '-1', 'WITHSCORES');
        // due 2 s after Laravel's clock reading during the dispatch, which lies in [before, after]
        expect(Number(score)).to.be.within(sent.before + 2, sent.after + 2);
        let job = null;
        while (job === null) {
          const before = Math.floor(Date.now() / 1000);
          job = await q.pop();
          if (job === null) expect(before, 'popped nothing although due').to.be.below(Number(score));
          else expect(Math.floor(Date.now() / 1000)).to.be.at.least(Number(score));
          if (job === null) await new Promise((r) => setTimeout(r, 100));
        }
        expect(job.getJobId()).to.equal(sent.ids[0]);
        expect(await q.pop()).to.equal(null);
      });
    });

    describe('larq dispatches, Laravel runs', function () {
      for (const [scenario, shape] of Object.entries(NODE_SHAPES)) {
        it(`${scenario}: handle() sees exactly what larq sent`, async function () {
          const prefix = randomPrefix();
          const input = shape();
          const id = await larq(prefix).push(input);
          const records = await runLaravelWorker({ port, prefix });
          expect(records).to.have.length(1);
          expect(records[0].jobId).to.equal(id);
          expect(records[0].attempts).to.equal(1);
          if (scenario === 'object-models') {
            // PHP restored the models from its database; PHP's own dispatch of the same job gives the same view.
            const reference = randomPrefix();
            await phpDispatch('object-models', { port, prefix: reference });
            const [theirs] = await runLaravelWorker({ port, prefix: reference });
            expect(records[0].description).to.deep.equal(theirs.description);
            return;
          }
          const expected =
            input instanceof PhpObject
              ? describeValue(input)
              : 'command' in input
                ? describeValue(input.command)
                : describeJson(input.data);
          if (major === 8 || expected.t !== 'object') {
            expect(records[0].description).to.deep.equal(expected);
          } else {
            // 12 and 13 leave properties at their declared defaults out of the payload, and PHP restores
            // them from the class: every property larq wrote arrives as written, and the whole object is
            // the one PHP's own dispatch of the same job hands to handle().
            const got = records[0].description as { props: { name: string }[] };
            const written = new Set(expected.props.map((p) => p.name));
            expect(got.props.filter((p) => written.has(p.name))).to.deep.equal(expected.props);
            const reference = randomPrefix();
            await phpDispatch(scenario, { port, prefix: reference });
            const [theirs] = await runLaravelWorker({ port, prefix: reference });
            expect(records[0].description).to.deep.equal(theirs.description);
          }
          expect(await client.keys(`${prefix}*`)).to.deep.equal([]);
        });
      }

      // An encrypted command differs in every dispatch (a random IV): it is compared decrypted, the
      // envelope around it byte for byte.
      for (const scenario of Object.keys(NODE_SHAPES)) {
        it(`${scenario}: the payload Laravel writes for the same job, byte for byte (uuid and id aside)`, async function () {
          // Both clocks stand still at the same second, so createdAt (12.11+) agrees too.
          const now = 1_767_225_600;
          const theirs = randomPrefix();
          await phpDispatch(scenario, { port, prefix: theirs, now });
          const [phpRaw] = await client.lrange(`${theirs}queues:default`, 0, -1);
          const ours = randomPrefix();
          const encrypter = new Encrypter(FIXTURE_APP_KEY);
          const q = new RedisQueue({
            connection: { port },
            prefix: ours,
            laravel: major,
            clock: new FakeClock(now * 1000),
            encrypter,
          });
          queues.push(q);
          await q.push(NODE_SHAPES[scenario]());
          const [larqRaw] = await client.lrange(`${ours}queues:default`, 0, -1);
          const masked = (raw: string): string => {
            const { uuid, id } = JSON.parse(raw) as { uuid: string; id: string };
            const masks = raw.replace(uuid, '<uuid>').replace(id, '<id>');
            // base64 text holds no '"', so the command's JSON string ends at the next quote
            return scenario === 'object-encrypted'
              ? masks.replace(/"command":"[^"]*"/, '"command":"<encrypted>"')
              : masks;
          };
          expect(masked(larqRaw)).to.equal(masked(phpRaw));
          if (scenario === 'object-encrypted') {
            const command = (raw: string) =>
              encrypter.decryptBuffer((JSON.parse(raw) as { data: { command: string } }).data.command, false);
            expect(command(larqRaw).equals(command(phpRaw)), 'the decrypted commands, byte for byte').to.equal(true);
          }
        });
      }

      it('a chain built in Node runs in PHP, step by step, in order', async function () {
        const prefix = randomPrefix();
        await larq(prefix).push(nodeChain([1, 2, 3]));
        const records = await runLaravelWorker({ port, prefix });
        const steps = records.map(
          (r) =>
            (r.description as { props: { name: string; value: { v: unknown } }[] }).props.find(
              (p) => p.name === 'step',
            )!.value.v,
        );
        expect(steps).to.deep.equal([1, 2, 3]);
      });

      it('a bulk of 100 in one round trip: Laravel runs each exactly once', async function () {
        const prefix = randomPrefix();
        const ids = await larq(prefix).bulk(Array.from({ length: 100 }, (_, i) => ChainStep.make({ step: i + 1 })));
        const records = await runLaravelWorker({ port, prefix });
        expect(records.map((r) => r.jobId).sort()).to.deep.equal([...ids].sort());
        expect(await client.keys(`${prefix}*`)).to.deep.equal([]);
      });

      it('a job larq delayed 2 s does not run early in Laravel', async function () {
        const prefix = randomPrefix();
        const worker = startLaravelWorker({ port, prefix });
        try {
          const q = larq(prefix);
          const id = await q.later(2, ChainStep.make({ step: 42 }));
          const [{ availableAt }] = await q.delayedJobs();
          const [record] = await worker.waitForRecords(1, 15000);
          expect(record.jobId).to.equal(id);
          expect(record.time).to.be.at.least(availableAt!);
        } finally {
          await worker.stop();
        }
      });
    });
  });
