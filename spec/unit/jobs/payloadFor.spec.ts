// payloadFor reads the tuning of a job object in one pass over its properties, with the declared defaults
// looked up once per class. Nothing of an object may be remembered: a property changed, removed or added
// between two pushes shows in the next payload. Checked against createObjectPayload given the same values.
import { expect } from 'chai';
import { FakeClock } from '../../../lib/clock';
import { delayAndPayloadFor, delayOf, payloadFor, type JobInput } from '../../../lib/jobs/dispatch';
import type { LaravelLine } from '../../../lib/LaravelLine';
import { createObjectPayload } from '../../../lib/payload/createPayload';
import type { ObjectJobSpec } from '../../../lib/payload/types';
import { laravelJobTraits, phpClass } from '../../../lib/php/builder';
import { serialize } from '../../../lib/php/serialize';
import { PhpObject } from '../../../lib/php/values';

const clock = new FakeClock(1795276770 * 1000);
const FIXED = { uuid: '00000000-0000-4000-8000-000000000000', id: 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' };

/** A payload with its random uuid and id replaced by FIXED's, to compare with createObjectPayload. */
function fixedIds(payload: string): string {
  const parsed = JSON.parse(payload) as { uuid: string; id: string };
  return payload
    .replace(`"uuid":"${parsed.uuid}"`, `"uuid":"${FIXED.uuid}"`)
    .replace(`"id":"${parsed.id}"`, `"id":"${FIXED.id}"`);
}

function expected(
  command: PhpObject,
  line: LaravelLine,
  values: Partial<ObjectJobSpec> = {},
  delay: number | null = null,
): string {
  return createObjectPayload(
    { commandName: command.className, command: serialize(command), ...values },
    { line, clock, delay, ...FIXED },
  );
}

const payload = (input: JobInput, line: LaravelLine, delay: number | null = null) =>
  fixedIds(payloadFor(input, { line, clock, delay }));

function tunedClass(line: LaravelLine) {
  return phpClass(
    'App\\Jobs\\Tuned',
    {
      tries: { visibility: 'public', default: 5 },
      backoff: { visibility: 'public', default: [1, 5, 10] },
      failOnTimeout: { visibility: 'public', default: true },
      n: 'public',
    },
    { traits: laravelJobTraits(line), serializesModels: true },
  );
}

describe('payloadFor', () => {
  for (const line of [8, 12, 13] as const) {
    it(`writes the bench job of line ${line} as createObjectPayload does, delay included`, () => {
      const BenchNoop = phpClass(
        'App\\Jobs\\BenchNoop',
        { n: 'public' },
        { traits: laravelJobTraits(line), serializesModels: true },
      );
      const job = BenchNoop.make({ n: 7 });
      expect(payload(job, line)).to.equal(expected(job, line));
      expect(payload(job, line, 30)).to.equal(expected(job, line, {}, 30));
    });
  }

  it('takes the declared defaults where the object leaves them out, and the object where it has them', () => {
    const Tuned = tunedClass(12);
    const defaults = Tuned.make({ n: 1 });
    expect(defaults.get('tries')).to.equal(undefined); // left out: equal to its default (SerializesModels, 9.4+)
    expect(payload(defaults, 12)).to.equal(
      expected(defaults, 12, { maxTries: 5, backoff: [1, 5, 10], failOnTimeout: true }),
    );
    const own = Tuned.make({ n: 1, tries: 2, backoff: 7, failOnTimeout: false });
    expect(payload(own, 12)).to.equal(expected(own, 12, { maxTries: 2, backoff: 7, failOnTimeout: false }));
  });

  it('writes what the object holds at each push: changed, removed and added properties', () => {
    const Tuned = tunedClass(8);
    const job = Tuned.make({ n: 1, tries: 3 });
    expect(JSON.parse(payloadFor(job, { line: 8, clock })).maxTries).to.equal(3);
    job.properties.find((p) => p.name === 'tries')!.value = 9n;
    expect(JSON.parse(payloadFor(job, { line: 8, clock })).maxTries).to.equal(9);
    job.properties.find((p) => p.name === 'tries')!.value = null;
    expect(JSON.parse(payloadFor(job, { line: 8, clock })).maxTries).to.equal(null);
    job.properties.splice(
      job.properties.findIndex((p) => p.name === 'tries'),
      1,
    );
    expect(JSON.parse(payloadFor(job, { line: 8, clock })).maxTries).to.equal(5);
    job.properties.push({ name: 'timeout', visibility: 'public', value: 60n });
    expect(payload(job, 8)).to.equal(
      expected(job, 8, { maxTries: 5, timeout: 60, backoff: [1, 5, 10], failOnTimeout: true }),
    );
  });

  it('reads the first property of a name, and the default when that one holds no value', () => {
    const Tuned = tunedClass(8);
    const job = Tuned.make({ n: 1 });
    job.properties.unshift({ name: 'tries', visibility: 'protected', value: 4n });
    expect(JSON.parse(payloadFor(job, { line: 8, clock })).maxTries).to.equal(4);
    // serialize() refuses a property without a value, but bulk() asks delayOf first
    const Delayed = phpClass(
      'App\\Jobs\\Delayed',
      { delay: { visibility: 'public', default: 30 } },
      { serializesModels: 8 },
    );
    const delayed = Delayed.make();
    delayed.properties.unshift({ name: 'delay', visibility: 'protected', value: undefined as never });
    expect(delayOf(delayed)).to.equal(30);
    delayed.properties[0].value = 4n;
    expect(delayOf(delayed)).to.equal(4);
  });

  it("bulk's delayAndPayloadFor gives delayOf's delay and payloadFor's payload for that delay", () => {
    const Delayed = phpClass(
      'App\\Jobs\\Delayed',
      { delay: { visibility: 'public', default: 30 }, tries: { visibility: 'public', default: 3 } },
      { serializesModels: 8 },
    );
    const inputs: JobInput[] = [
      Delayed.make(),
      Delayed.make({ delay: null }),
      { command: Delayed.make({ delay: 7n }), maxTries: 9 },
      { job: 'App\\Legacy@run', data: [1] },
    ];
    for (const input of inputs) {
      const got = delayAndPayloadFor(input, (d) => ({ line: 12, clock, delay: d ?? null, id: 'fixed-id' }));
      expect(got.delay).to.equal(delayOf(input));
      const again = payloadFor(input, { line: 12, clock, delay: got.delay ?? null, id: 'fixed-id' });
      // the drawn uuid differs between the two calls; everything else is the same text
      const uuid = /"uuid":"[^"]+"/;
      expect(got.payload.replace(uuid, '')).to.equal(again.replace(uuid, ''));
    }
  });

  it('reads tuning of an object not made by a declared class from its properties alone', () => {
    const job = new PhpObject('App\\Jobs\\Plain', [
      { name: 'tries', visibility: 'public', value: 2n },
      { name: 'batchId', visibility: 'public', value: 'b-1' },
    ]);
    expect(payload(job, 13)).to.equal(expected(job, 13, { maxTries: 2, batchId: 'b-1' }));
    expect(payload({ command: job, maxTries: 8, extra: { tags: ['t'] } }, 13)).to.equal(
      createObjectPayload(
        { commandName: job.className, command: serialize(job), maxTries: 8, batchId: 'b-1' },
        { line: 13, clock, extra: { tags: ['t'] }, ...FIXED },
      ),
    );
  });

  it('gives bulk the delay of the object, or of its class, at each call', () => {
    const Delayed = phpClass(
      'App\\Jobs\\Delayed',
      { delay: { visibility: 'public', default: 30 } },
      { serializesModels: 12 },
    );
    const job = Delayed.make();
    expect(delayOf(job)).to.equal(30);
    job.properties.push({ name: 'delay', visibility: 'public', value: 5n });
    expect(delayOf(job)).to.equal(5);
    expect(delayOf({ command: new PhpObject('X', []) })).to.equal(undefined);
    expect(delayOf({ job: 'App\\H@handle' })).to.equal(undefined);
  });
});
