// A payload without hooks is written field by field as it is built (PayloadWriter), with the command
// already in its JSON form (serializeToJsonString) and a uuid drawn from the pooled random bytes. Each
// must give the text of the general path: PayloadFields, which phpJsonEncode's specs pin, given a hook
// that changes nothing (extra: {}), and createObjectPayload given the serialized command. Checked for
// every line, tuning values, strings json_encode escapes, options and strings it refuses (the same
// error first), and payloadFor over objects of more classes than the serializer remembers.
import { expect } from 'chai';
import { FakeClock } from '../../../lib/clock';
import { payloadFor } from '../../../lib/jobs/dispatch';
import type { LaravelLine } from '../../../lib/LaravelLine';
import { createObjectPayload, createObjectPayloadOf, createStringPayload } from '../../../lib/payload/createPayload';
import { phpJsonDecode, phpJsonEncode } from '../../../lib/payload/json';
import { JsonText } from '../../../lib/payload/PayloadFields';
import { randomUuid } from '../../../lib/uuid';
import type { ObjectJobSpec, PayloadOptions, StringJobSpec } from '../../../lib/payload/types';
import { Encrypter } from '../../../lib/php/Encrypter';
import { laravelJobTraits, php, phpClass } from '../../../lib/php/builder';
import { serialize, serializeToJsonString } from '../../../lib/php/serialize';
import { PhpObject } from '../../../lib/php/values';

const clock = new FakeClock(1795276770 * 1000);
const FIXED = { uuid: '00000000-0000-4000-8000-000000000000', id: 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', clock };
const LINES: LaravelLine[] = [8, 12, 13];

function outcome(write: () => string): string {
  try {
    return write();
  } catch (e) {
    return `${(e as Error).constructor.name}: ${(e as Error).message}`;
  }
}

const STRINGS = [
  'App\\Jobs\\Foo',
  'a/b',
  'é中😀',
  'line\u2028sep\u2029',
  'q"uo\\te',
  'ctl\0\n\x1f\x7f',
  '',
  'x'.repeat(70) + '/',
];
const BAD = 'lone\ud800';

const JOBS: ObjectJobSpec[] = [
  { commandName: 'App\\Jobs\\Foo', command: 'O:12:"App\\Jobs\\Foo":0:{}' },
  ...STRINGS.map((s) => ({ commandName: s, command: `O:1:"${s}":0:{}`, displayName: s, batchId: s, backoff: s })),
  {
    commandName: 'App\\Jobs\\Tuned',
    command: 'x',
    maxTries: 5,
    maxExceptions: 0,
    timeout: 60,
    failOnTimeout: true,
    retryUntil: 1900000000,
    deleteWhenMissingModels: true,
  },
  // the values written with their key as one piece (null, false, 0), and a -0 that is not 0's piece
  {
    commandName: 'App\\Jobs\\Zeros',
    command: 'x',
    maxTries: 0,
    maxExceptions: -0,
    timeout: 0,
    retryUntil: 0,
    failOnTimeout: false,
    deleteWhenMissingModels: false,
  },
  {
    commandName: 'App\\Jobs\\Dates',
    command: 'x',
    backoff: [new Date(1795276800 * 1000), 5, 1.5, '7'],
    retryUntil: new Date(1900000000999),
  },
  { commandName: undefined as unknown as string, command: undefined as unknown as string },
  { commandName: 'App\\Jobs\\Bad', command: BAD },
  { commandName: BAD, command: 'x', displayName: 'fine' },
  { commandName: 'x', command: 'x', displayName: BAD, maxTries: 1.5 },
  { commandName: 'x', command: 'x', backoff: [BAD] },
  { commandName: 'x', command: 'x', batchId: BAD },
  { commandName: 'x', command: 'x', failOnTimeout: NaN as unknown as boolean },
  { commandName: 'x', command: 'x', backoff: [Infinity], displayName: BAD },
];

const OPTIONS: PayloadOptions[] = [
  FIXED,
  { clock, uuid: 'u/é', id: 'i\u2028' },
  { ...FIXED, delay: 30, createdAt: 1700000000 },
  { ...FIXED, uuid: BAD },
  { ...FIXED, uuid: BAD, delay: 1.5 },
  { ...FIXED, id: BAD, createdAt: NaN },
];

describe('PayloadWriter: payloads without hooks', () => {
  it('writes each object payload as the general path does, or fails with the same first error', () => {
    for (const line of LINES) {
      for (const job of JOBS) {
        for (const opts of OPTIONS) {
          const label = `${line} ${JSON.stringify(job)} ${JSON.stringify(opts)}`;
          const direct = outcome(() => createObjectPayload(job, { ...opts, line }));
          expect(direct, label).to.equal(outcome(() => createObjectPayload(job, { ...opts, line, extra: {} })));
        }
      }
    }
  });

  it('writes data as phpJsonEncode writes the object {commandName, command, batchId}', () => {
    for (const line of LINES) {
      for (const job of JOBS) {
        const data: Record<string, unknown> = { commandName: job.commandName, command: job.command };
        if (line >= 12) data.batchId = job.batchId ?? null;
        const expected = outcome(() => phpJsonEncode(data));
        if (expected.includes('Error: ')) continue;
        const payload = outcome(() => createObjectPayload(job, { ...FIXED, line }));
        if (!payload.includes('Error: ')) expect(payload, JSON.stringify(job)).to.contain(`,"data":${expected},`);
      }
    }
  });

  it('writes each string payload as the general path does', () => {
    const jobs: StringJobSpec[] = [
      { job: 'App\\H@handle', data: { a: '/', b: ['é', 1.5] } },
      { job: 'App\\H' },
      { job: `App\\${BAD}@x`, data: 1 },
      { job: 'App\\H', data: NaN },
      { job: 7 as unknown as string },
    ];
    for (const line of LINES) {
      for (const job of jobs) {
        for (const opts of OPTIONS) {
          const label = `${line} ${JSON.stringify(job)} ${JSON.stringify(opts)}`;
          expect(
            outcome(() => createStringPayload(job, { ...opts, line })),
            label,
          ).to.equal(outcome(() => createStringPayload(job, { ...opts, line, extra: {} })));
        }
      }
    }
  });

  it('writes a command given as its JSON text as the same command given as a string', () => {
    for (const line of LINES) {
      for (const s of STRINGS) {
        const command = new PhpObject(`App\\${s}`, [{ name: s, visibility: 'protected', value: s }]);
        const spec = { commandName: command.className, displayName: s, batchId: s };
        const asString = createObjectPayload({ ...spec, command: serialize(command) }, { ...FIXED, line });
        expect(createObjectPayloadOf(spec, new JsonText(serializeToJsonString(command)), { ...FIXED, line })).to.equal(
          asString,
        );
        expect(
          createObjectPayloadOf(spec, new JsonText(serializeToJsonString(command)), { ...FIXED, line, extra: {} }),
        ).to.equal(asString);
      }
    }
  });
});

describe('payloadFor with the command written as JSON', () => {
  const fixedIds = (payload: string) => {
    const parsed = phpJsonDecode(payload) as { uuid: string; id: string };
    return payload
      .replace(`"uuid":"${parsed.uuid}"`, `"uuid":"${FIXED.uuid}"`)
      .replace(`"id":"${parsed.id}"`, `"id":"${FIXED.id}"`);
  };
  const expected = (command: PhpObject, line: LaravelLine) =>
    createObjectPayload({ commandName: command.className, command: serialize(command) }, { ...FIXED, line });

  it('writes property values json_encode escapes, for objects of more classes than any remembered map holds', () => {
    for (let i = 0; i < 1500; i++) {
      const line = LINES[i % 3];
      const s = STRINGS[i % STRINGS.length];
      const Job = phpClass(
        `App\\Jobs\\J${i}${i % 7 === 0 ? 'é' : ''}`,
        { text: 'public', other: 'protected', own: { visibility: 'private', default: s } },
        {
          traits: laravelJobTraits(line),
          serializesModels: true,
        },
      );
      for (const value of [s, `${s}/${i}`, php.float(i / 7), [s, { k: s }]]) {
        const job = Job.make({ text: value, other: s });
        expect(fixedIds(payloadFor(job, { line, clock })), `${i} ${JSON.stringify(s)}`).to.equal(expected(job, line));
      }
    }
  });

  it('still encrypts the serialized text itself', () => {
    const encrypter = new Encrypter(Buffer.alloc(32, 7));
    const job = new PhpObject('App\\Jobs\\Secret', [{ name: 'v', visibility: 'public', value: 'é/x' }]);
    const payload = phpJsonDecode(payloadFor({ command: job, encrypt: true }, { line: 13, clock, encrypter })) as {
      data: { command: string };
    };
    expect(encrypter.decrypt(payload.data.command)).to.equal(serialize(job));
  });
});

describe('randomUuid', () => {
  it('gives v4 uuids (version 4, variant 10xx) in lower case, all different, across many pool refills', () => {
    const seen = new Set<string>();
    const digits = new Map<string, number>();
    for (let i = 0; i < 20000; i++) {
      const uuid = randomUuid();
      expect(uuid).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      seen.add(uuid);
      for (const c of uuid.slice(0, 8)) digits.set(c, (digits.get(c) ?? 0) + 1);
    }
    expect(seen.size).to.equal(20000);
    // 160,000 random digits: 10,000 each expected
    expect(digits.size).to.equal(16);
    for (const n of digits.values()) expect(n).to.be.within(9300, 10700);
  });
});
