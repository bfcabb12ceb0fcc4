// createObjectPayload / createStringPayload: field order per Laravel line, defaults, tuning values.
import { expect } from 'chai';
import { FakeClock } from '../../../lib/clock';
import { InvalidOptionError } from '../../../lib/errors';
import { createObjectPayload, createStringPayload, randomJobId } from '../../../lib/payload/createPayload';
import type { ObjectJobSpec } from '../../../lib/payload/types';

const NOW = 1795276770;
const clock = new FakeClock(NOW * 1000);
const job: ObjectJobSpec = { commandName: 'App\\Jobs\\Foo', command: 'O:12:"App\\Jobs\\Foo":0:{}' };
const fixed = { uuid: '00000000-0000-4000-8000-000000000000', id: 'abc', clock };

const keys = (payload: string) => Object.keys(JSON.parse(payload) as object);
const decode = (payload: string) => JSON.parse(payload) as Record<string, unknown>;

describe('createObjectPayload', () => {
  const common = [
    'uuid',
    'displayName',
    'job',
    'maxTries',
    'maxExceptions',
    'failOnTimeout',
    'backoff',
    'timeout',
    'retryUntil',
  ];

  it('writes the 8.x-11.x fields in their order', () => {
    const p = createObjectPayload(job, { ...fixed, line: 8 });
    expect(keys(p)).to.deep.equal([...common, 'data', 'id', 'attempts']);
    expect(Object.keys(decode(p).data as object)).to.deep.equal(['commandName', 'command']);
  });

  it('writes the 12.x fields in their order', () => {
    const p = createObjectPayload(job, { ...fixed, line: 12 });
    expect(keys(p)).to.deep.equal([...common, 'data', 'createdAt', 'id', 'attempts', 'delay']);
    expect(Object.keys(decode(p).data as object)).to.deep.equal(['commandName', 'command', 'batchId']);
  });

  it('writes the 13.x fields in their order, and 13 is the default line', () => {
    const expected = [...common, 'deleteWhenMissingModels', 'data', 'createdAt', 'id', 'attempts', 'delay'];
    expect(keys(createObjectPayload(job, { ...fixed, line: 13 }))).to.deep.equal(expected);
    expect(keys(createObjectPayload(job, fixed))).to.deep.equal(expected);
  });

  it('writes the exact text Laravel 13 writes for a plain job', () => {
    expect(createObjectPayload(job, fixed)).to.equal(
      '{"uuid":"00000000-0000-4000-8000-000000000000","displayName":"App\\\\Jobs\\\\Foo","job":"Illuminate\\\\Queue\\\\CallQueuedHandler@call",' +
        '"maxTries":null,"maxExceptions":null,"failOnTimeout":false,"backoff":null,"timeout":null,"retryUntil":null,' +
        '"deleteWhenMissingModels":false,"data":{"commandName":"App\\\\Jobs\\\\Foo","command":"O:12:\\"App\\\\Jobs\\\\Foo\\":0:{}","batchId":null},' +
        `"createdAt":${NOW},"id":"abc","attempts":0,"delay":null}`,
    );
  });

  it('defaults: a v4 uuid, 32 letters and digits as id, createdAt now, displayName = commandName', () => {
    const p = decode(createObjectPayload(job, { clock }));
    // RFC 4122 version 4 (random), variant 10xx, lower case as Laravel's Str::uuid() writes it
    expect(p.uuid).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(p.id).to.match(/^[A-Za-z0-9]{32}$/);
    expect(p.createdAt).to.equal(NOW);
    expect(p.displayName).to.equal('App\\Jobs\\Foo');
    expect(p.attempts).to.equal(0);
    expect(createObjectPayload(job)).to.not.equal(createObjectPayload(job));
  });

  it('writes the tuning values', () => {
    const p = decode(
      createObjectPayload(
        {
          ...job,
          displayName: 'Nice name',
          maxTries: 5,
          maxExceptions: 2,
          timeout: 30,
          failOnTimeout: true,
          retryUntil: 1900000000,
          deleteWhenMissingModels: true,
          batchId: 'b-1',
        },
        { ...fixed, delay: 120 },
      ),
    );
    expect(p).to.include({
      displayName: 'Nice name',
      maxTries: 5,
      maxExceptions: 2,
      timeout: 30,
      failOnTimeout: true,
      retryUntil: 1900000000,
      deleteWhenMissingModels: true,
      delay: 120,
    });
    expect((p.data as Record<string, unknown>).batchId).to.equal('b-1');
  });

  it("writes backoff as Laravel's comma-joined string, Dates as seconds from now (never negative)", () => {
    const backoff = (b: ObjectJobSpec['backoff']) => decode(createObjectPayload({ ...job, backoff: b }, fixed)).backoff;
    expect(backoff(3)).to.equal('3');
    expect(backoff('5,10')).to.equal('5,10');
    expect(backoff([1, 5, 10])).to.equal('1,5,10');
    expect(backoff([new Date((NOW + 30) * 1000 + 999), 5])).to.equal('30,5');
    expect(backoff(new Date((NOW - 10) * 1000))).to.equal('0');
    expect(backoff([1.5])).to.equal('1.5');
    expect(backoff([])).to.equal('');
    expect(backoff(null)).to.equal(null);
  });

  it('writes a retryUntil Date as its Unix seconds', () => {
    expect(decode(createObjectPayload({ ...job, retryUntil: new Date(1900000000999) }, fixed)).retryUntil).to.equal(
      1900000000,
    );
  });

  it('puts hook keys after createdAt and before id; a hook key that exists is replaced in place', () => {
    const p = createObjectPayload(job, {
      ...fixed,
      extra: { 'illuminate:log:context': { data: [], hidden: [] }, displayName: 'Hooked' },
    });
    expect(keys(p).slice(-6)).to.deep.equal(['data', 'createdAt', 'illuminate:log:context', 'id', 'attempts', 'delay']);
    expect(keys(p)[1]).to.equal('displayName');
    expect(decode(p).displayName).to.equal('Hooked');
    expect(p).to.contain('"illuminate:log:context":{"data":[],"hidden":[]}');
    expect(keys(createObjectPayload(job, { ...fixed, line: 8, extra: { x: 1 } })).slice(-4)).to.deep.equal([
      'data',
      'x',
      'id',
      'attempts',
    ]);
  });

  it('refuses values PHP would not write, naming the option', () => {
    expect(() => createObjectPayload({ ...job, maxTries: 1.5 }, fixed)).to.throw(
      InvalidOptionError,
      /^maxTries: must be an integer/,
    );
    expect(() => createObjectPayload({ ...job, timeout: NaN }, fixed)).to.throw(InvalidOptionError, /^timeout:/);
    expect(() => createObjectPayload({ ...job, backoff: [Infinity] }, fixed)).to.throw(InvalidOptionError, /^backoff:/);
    expect(() => createObjectPayload({ ...job, retryUntil: new Date(NaN) }, fixed)).to.throw(
      InvalidOptionError,
      /^retryUntil:/,
    );
    expect(() => createObjectPayload(job, { ...fixed, delay: -0.5 })).to.throw(InvalidOptionError, /^delay:/);
    expect(() => createObjectPayload(job, { ...fixed, line: 7 as 8 })).to.throw(InvalidOptionError, /^line:/);
  });
});

describe('createStringPayload', () => {
  const head = [
    'uuid',
    'displayName',
    'job',
    'maxTries',
    'maxExceptions',
    'failOnTimeout',
    'backoff',
    'timeout',
    'data',
  ];

  it('writes the fields of each line in order, with no retryUntil or deleteWhenMissingModels', () => {
    const spec = { job: 'App\\Handlers\\H@handle', data: { a: 1 } };
    expect(keys(createStringPayload(spec, { ...fixed, line: 8 }))).to.deep.equal([...head, 'id', 'attempts']);
    expect(keys(createStringPayload(spec, { ...fixed, line: 12 }))).to.deep.equal([
      ...head,
      'createdAt',
      'id',
      'attempts',
      'delay',
    ]);
    expect(keys(createStringPayload(spec, fixed))).to.deep.equal([...head, 'createdAt', 'id', 'attempts', 'delay']);
  });

  it('takes displayName from the part before the first @ and writes no tuning', () => {
    const p = decode(createStringPayload({ job: 'App\\H@handle@x', data: [1] }, fixed));
    expect(p).to.include({
      displayName: 'App\\H',
      job: 'App\\H@handle@x',
      maxTries: null,
      maxExceptions: null,
      failOnTimeout: false,
      backoff: null,
      timeout: null,
    });
    expect(decode(createStringPayload({ job: 'App\\H' }, fixed))).to.include({ displayName: 'App\\H', data: '' });
  });
});

describe('randomJobId', () => {
  it('uses all 62 letters and digits', () => {
    const seen = new Set(Array.from({ length: 200 }, () => randomJobId()).join(''));
    expect(seen.size).to.equal(62);
    expect(randomJobId(7)).to.have.length(7);
  });
});
