// PayloadFields writes the payload's top-level array without building a Map, with the envelope's key
// texts escaped ahead and larq's own uuid and id written unescaped. It must write exactly what
// phpJsonEncode writes for the Map built by the same steps: checked here for hook keys that replace
// envelope keys (even id and attempts), undefined values, keys that need escaping, and which error comes
// first; then createObjectPayload / createStringPayload with hooks against their exact text.
import { expect } from 'chai';
import { FakeClock } from '../../../lib/clock';
import { SerializeError } from '../../../lib/errors';
import { createObjectPayload, createStringPayload, randomJobId } from '../../../lib/payload/createPayload';
import { phpJsonEncode } from '../../../lib/payload/json';
import { PayloadFields, PlainText } from '../../../lib/payload/PayloadFields';
import type { ObjectJobSpec } from '../../../lib/payload/types';

type Step = ['add' | 'set', string, unknown];

/** The same steps on PayloadFields and on a Map written by phpJsonEncode: the outcome, text or error. */
function both(steps: Step[]): [string, string] {
  const fields = new PayloadFields();
  const map = new Map<string, unknown>();
  for (const [how, key, value] of steps) {
    fields[how](key, value);
    map.set(key, value instanceof PlainText ? value.text : value);
  }
  const outcome = (write: () => string) => {
    try {
      return write();
    } catch (e) {
      return `${(e as Error).name}: ${(e as Error).message}`;
    }
  };
  return [outcome(() => fields.toJson()), outcome(() => phpJsonEncode(map))];
}

const ENVELOPE: Step[] = [
  ['add', 'uuid', new PlainText('0f1e2d3c-0000-4000-8000-000000000000')],
  ['add', 'displayName', 'App\\Jobs\\Foo'],
  ['add', 'job', 'Illuminate\\Queue\\CallQueuedHandler@call'],
  ['add', 'maxTries', null],
  ['add', 'failOnTimeout', false],
  ['add', 'data', { commandName: 'App\\Jobs\\Foo', command: 'O:12:"App\\Jobs\\Foo":0:{}' }],
  ['add', 'createdAt', 1795276770],
];
const TAIL: Step[] = [
  ['set', 'id', new PlainText('AbC123')],
  ['set', 'attempts', 0],
  ['set', 'delay', null],
];

describe('PayloadFields', () => {
  it('writes what phpJsonEncode writes for the same Map', () => {
    const [fields, map] = both([...ENVELOPE, ...TAIL]);
    expect(fields).to.equal(map);
    expect(fields).to.equal(
      '{"uuid":"0f1e2d3c-0000-4000-8000-000000000000","displayName":"App\\\\Jobs\\\\Foo","job":"Illuminate\\\\Queue\\\\CallQueuedHandler@call",' +
        '"maxTries":null,"failOnTimeout":false,"data":{"commandName":"App\\\\Jobs\\\\Foo","command":"O:12:\\"App\\\\Jobs\\\\Foo\\":0:{}"},' +
        '"createdAt":1795276770,"id":"AbC123","attempts":0,"delay":null}',
    );
  });

  it('replaces a key set again in place, hook keys that name envelope keys included, and appends new ones', () => {
    const hooks: Step[][] = [
      [['set', 'displayName', 'Hooked']],
      [
        ['set', 'id', 'from-hook'],
        ['set', 'attempts', 5],
        ['set', 'delay', 9],
      ],
      [
        ['set', 'uuid', 'u/1'],
        ['set', 'data', []],
      ],
      [
        ['set', 'illuminate:log:context', { data: [], hidden: [] }],
        ['set', 'tags', ['a/b', 'é']],
      ],
      [
        ['set', 'a/b', 1],
        ['set', 'é\u2028', 2],
        ['set', '0', 3],
        ['set', '', 4],
      ],
    ];
    for (const hook of hooks) {
      const [fields, map] = both([...ENVELOPE, ...hook, ...TAIL]);
      expect(fields, JSON.stringify(hook)).to.equal(map);
    }
    expect(both([...ENVELOPE, ['set', 'id', 'x'], ...TAIL])[0]).to.contain(
      '"createdAt":1795276770,"id":"AbC123","attempts":0',
    );
  });

  it('leaves out a key whose value is undefined, first or last, and writes {} when nothing is left', () => {
    for (const steps of [
      [...ENVELOPE, ['set', 'uuid', undefined], ...TAIL],
      [...ENVELOPE, ['set', 'delay', undefined]],
      [['add', 'only', undefined]],
      [],
    ] as Step[][]) {
      const [fields, map] = both(steps);
      expect(fields).to.equal(map);
    }
    expect(new PayloadFields().toJson()).to.equal('{}');
  });

  it('reports the same first error as phpJsonEncode, and none for a value replaced before writing', () => {
    for (const steps of [
      [...ENVELOPE, ['set', 'k\ud800', NaN], ...TAIL],
      [...ENVELOPE, ['set', 'n', NaN], ['set', 'k\ud800', 1], ...TAIL],
      [...ENVELOPE, ['set', 'f', () => 1], ...TAIL],
      [
        ['add', 'displayName', 'bad\udc00'],
        ['set', 'displayName', 'fine'],
      ],
    ] as Step[][]) {
      const [fields, map] = both(steps);
      expect(fields).to.equal(map);
    }
    expect(() => both([['add', 'x', NaN]])).not.to.throw();
    expect(both([['add', 'x', NaN]])[0]).to.match(/^SerializeError: json_encode cannot write NaN/);
  });
});

describe('createObjectPayload and createStringPayload with hooks', () => {
  const clock = new FakeClock(1795276770 * 1000);
  const job: ObjectJobSpec = { commandName: 'App\\Jobs\\Foo', command: 'O:12:"App\\Jobs\\Foo":0:{}' };
  const fixed = { uuid: '00000000-0000-4000-8000-000000000000', id: 'abc', clock };
  const head =
    '{"uuid":"00000000-0000-4000-8000-000000000000","displayName":"App\\\\Jobs\\\\Foo","job":"Illuminate\\\\Queue\\\\CallQueuedHandler@call",';
  const tuning =
    '"maxTries":null,"maxExceptions":null,"failOnTimeout":false,"backoff":null,"timeout":null,"retryUntil":null,';

  it('writes a hook key named like a Redis addition where the hook put it, with the Redis value', () => {
    expect(createObjectPayload(job, { ...fixed, line: 8, extra: { id: 'hook', attempts: 3, tag: 'x/y' } })).to.equal(
      `${head}${tuning}"data":{"commandName":"App\\\\Jobs\\\\Foo","command":"O:12:\\"App\\\\Jobs\\\\Foo\\":0:{}"},"id":"abc","attempts":0,"tag":"x\\/y"}`,
    );
  });

  it('drops an envelope key a hook sets to undefined, and keeps the position of one it replaces', () => {
    const p = createObjectPayload(job, { ...fixed, line: 12, extra: { displayName: undefined, data: { x: 'é' } } });
    expect(p).to.equal(
      '{"uuid":"00000000-0000-4000-8000-000000000000","job":"Illuminate\\\\Queue\\\\CallQueuedHandler@call",' +
        `${tuning}"data":{"x":"é"},"createdAt":1795276770,"id":"abc","attempts":0,"delay":null}`,
    );
  });

  it('writes a drawn uuid and id as they are: a v4 uuid and 32 letters and digits', () => {
    for (let i = 0; i < 50; i++) {
      const p = JSON.parse(createObjectPayload(job, { clock })) as Record<string, unknown>;
      expect(p.uuid).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(p.id).to.match(/^[A-Za-z0-9]{32}$/);
    }
  });

  it('writes a given uuid and id escaped, as any other string', () => {
    const p = createStringPayload(
      { job: 'App\\H@handle', data: { a: '/' } },
      { ...fixed, uuid: 'u/"1"', id: 'i\u2028', line: 8 },
    );
    expect(p).to.equal(
      '{"uuid":"u\\/\\"1\\"","displayName":"App\\\\H","job":"App\\\\H@handle","maxTries":null,"maxExceptions":null,' +
        '"failOnTimeout":false,"backoff":null,"timeout":null,"data":{"a":"\\/"},"id":"i\\u2028","attempts":0}',
    );
  });

  it('refuses a lone surrogate in a hook key', () => {
    expect(() => createObjectPayload(job, { ...fixed, extra: { ['k\udc00']: 1 } })).to.throw(
      SerializeError,
      /U\+DC00 at index 1/,
    );
  });
});

describe('randomJobId from the pooled random bytes', () => {
  it('gives the asked length, longer than the id buffer too, and different ids', () => {
    expect(randomJobId(0)).to.equal('');
    expect(randomJobId(100)).to.match(/^[A-Za-z0-9]{100}$/);
    const ids = new Set(Array.from({ length: 2000 }, () => randomJobId()));
    expect(ids.size).to.equal(2000);
    for (const id of ids) expect(id).to.match(/^[A-Za-z0-9]{32}$/);
  });

  it('keeps every character about equally likely across many pool refills', () => {
    const counts = new Map<string, number>();
    for (const c of Array.from({ length: 4000 }, () => randomJobId()).join('')) counts.set(c, (counts.get(c) ?? 0) + 1);
    expect(counts.size).to.equal(62);
    // 128,000 letters: about 2,065 each; a bias of 4/62 (the bytes 248-255 kept) would show as +/- 6%
    for (const n of counts.values()) expect(n).to.be.within(1800, 2330);
  });
});
