// Every payload Laravel 8.x, 12.x and 13.x pushed in the recordings, rebuilt by larq byte for byte from
// what the PHP job declared, and every reserved copy (after Redis' cjson) read back.
import { expect } from 'chai';
import {
  createObjectPayload,
  createStringPayload,
  parsePayload,
  phpJsonDecode,
  phpJsonEncode,
  type LaravelLine,
  type ObjectJobSpec,
} from '../../lib/payload';
import { loadFixtures, pushedPayloads, type Described, type Fixture } from '../support/fixtures';

const LINES: Record<string, LaravelLine> = { '8.x': 8, '12.x': 12, '13.x': 13 };

/**
 * What a user states for jobs whose values do not show in the fixture's `job` description: results of
 * PHP methods (displayName(), retryUntil()) and the class of fixtures recorded without a description.
 */
const STATED: Record<string, Partial<ObjectJobSpec>> = {
  'object-tuned': { displayName: 'Tuned job (custom display name)', retryUntil: 1900000000 },
  closure: {
    commandName: 'Illuminate\\Queue\\CallQueuedClosure',
    displayName: 'Closure (fixtures.php:85)',
    deleteWhenMissingModels: true, // CallQueuedClosure declares it (13.x writes it)
  },
  bulk: { commandName: 'App\\Jobs\\ChainStep' },
  'object-models': { commandName: 'App\\Jobs\\ModelJob' },
};

function prop(job: Described | undefined, name: string): Described | undefined {
  if (!job || job.t !== 'object') return undefined;
  return job.props.find((p) => p.name === name)?.value;
}

/** A described PHP value as the JS value a user would write. */
function jsValue(d: Described): unknown {
  switch (d.t) {
    case 'null':
      return null;
    case 'int':
      return Number(d.v);
    case 'float':
      return Number(d.v);
    case 'string':
    case 'bool':
      return d.v;
    case 'array':
      return d.entries.map((e) => jsValue(e.v));
    default:
      throw new Error(`no JS value for ${d.t}`);
  }
}

/** The tuning a PHP job declared as properties, mapped to ObjectJobSpec. */
function declared(f: Fixture): Partial<ObjectJobSpec> {
  const out: Record<string, unknown> = {};
  const names: [string, keyof ObjectJobSpec][] = [
    ['tries', 'maxTries'],
    ['maxExceptions', 'maxExceptions'],
    ['timeout', 'timeout'],
    ['failOnTimeout', 'failOnTimeout'],
    ['backoff', 'backoff'],
    ['retryUntil', 'retryUntil'],
    ['deleteWhenMissingModels', 'deleteWhenMissingModels'],
    ['batchId', 'batchId'],
  ];
  for (const [php, spec] of names) {
    const value = prop(f.job, php);
    if (value && value.t !== 'null') out[spec] = jsValue(value);
  }
  if (f.job?.t === 'object') {
    out.commandName = f.job.class;
    // a queued listener is displayed as the listener class it wraps
    const listener = prop(f.job, 'class');
    if (f.job.class === 'Illuminate\\Events\\CallQueuedListener' && listener?.t === 'string')
      out.displayName = listener.v;
  }
  return out as Partial<ObjectJobSpec>;
}

function rebuild(f: Fixture, pushed: string): string {
  const recorded = phpJsonDecode(pushed) as Record<string, unknown>;
  const opts = {
    line: LINES[f.version],
    uuid: recorded.uuid as string,
    id: recorded.id as string,
    createdAt: recorded.createdAt as number | undefined,
    delay: recorded.delay as number | null | undefined,
  };
  if (f.name === 'raw') return phpJsonEncode(recorded); // pushRaw: the caller's own text
  if (f.name === 'string-fire')
    return createStringPayload({ job: 'App\\Handlers\\RawHandler', data: 'just a string' }, opts);
  if (f.name === 'string-method') {
    const data = (recorded as { data: unknown }).data; // as a user would hand it over: decoded
    return createStringPayload({ job: 'App\\Handlers\\RawHandler@handle', data }, opts);
  }
  const command = (recorded.data as { command: string }).command;
  const spec = { ...declared(f), ...STATED[f.name], command } as ObjectJobSpec;
  return createObjectPayload(spec, opts);
}

describe('compat: payloads', () => {
  for (const f of loadFixtures()) {
    describe(`${f.version} ${f.name}`, () => {
      pushedPayloads(f).forEach((pushed, i) => {
        it(`builds pushed payload #${i + 1} byte for byte`, () => {
          expect(rebuild(f, pushed)).to.equal(pushed);
        });

        it(`reads pushed payload #${i + 1}`, () => {
          const p = parsePayload(pushed);
          expect(p.attempts).to.equal(0);
          expect(p.raw).to.equal(pushed);
          expect(phpJsonEncode(p.decoded)).to.equal(pushed);
        });
      });

      if (f.popped) {
        const popped = f.popped;
        it('reads the reserved copy (cjson: reordered keys, {} for [], floats for big ints) with attempts 1', () => {
          const original = parsePayload(popped.raw);
          const reserved = parsePayload(popped.reserved);
          expect(reserved.attempts).to.equal(1).and.to.equal(popped.attempts);
          expect(original.attempts + 1).to.equal(popped.attempts);
          for (const field of [
            'uuid',
            'id',
            'job',
            'displayName',
            'maxTries',
            'backoff',
            'retryUntil',
            'commandName',
            'command',
            'createdAt',
            'delay',
          ] as const) {
            expect(reserved[field], field).to.equal(original[field]);
          }
        });
      }
    });
  }

  it("string-method: the reserved copy carries cjson's damage, which larq reads as is", () => {
    const f = loadFixtures().find((x) => x.version === '13.x' && x.name === 'string-method')!;
    const data = parsePayload(f.popped!.reserved).data as Record<string, unknown>;
    expect(data.big).to.equal(12345678901235000);
    expect(data.empty).to.deep.equal({});
    const original = parsePayload(f.popped!.raw).data as Record<string, unknown>;
    expect(original.big).to.equal(12345678901234567n);
    expect(original.empty).to.deep.equal([]);
    expect(original.f).to.equal(0.1);
  });
});
