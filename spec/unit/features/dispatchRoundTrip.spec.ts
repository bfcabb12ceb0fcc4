// Property-based: a job object made by phpClass(...).make() keeps every value's bytes through
// dispatchChain, dispatchBatch and dispatchUnique. What is pushed must equal serialize(make(...)) of the
// same values plus the properties the dispatch sets (chained, batchId, uniqueLockOwner), on every line:
// a whole-number float declared and built as php.float(2) stays `d:2;`, an int stays `i:2;`.
import { expect } from 'chai';
import fc from 'fast-check';
import { ArrayCacheStore } from '../../../lib/cache/ArrayCacheStore';
import { FakeClock } from '../../../lib/clock';
import { BatchRepository } from '../../../lib/features/batch';
import { dispatchBatch } from '../../../lib/features/batch';
import { dispatchChain } from '../../../lib/features/chain';
import { dispatchUnique, uniqueLockName } from '../../../lib/features/unique';
import { payloadFor, type JobInput } from '../../../lib/jobs/dispatch';
import type { LaravelLine } from '../../../lib/LaravelLine';
import { laravelJobTraits, php, phpClass, type PhpClass, type PropertySpec } from '../../../lib/php/builder';
import { serialize, serializeToBuffer } from '../../../lib/php/serialize';
import type { RedisQueue } from '../../../lib/RedisQueue';

const LINES: readonly LaravelLine[] = [8, 12, 13];
const RUNS = 150;

// A queue of one line that records the command bytes each push would write.
function recordingQueue(line: LaravelLine) {
  const commands: string[] = [];
  const clock = new FakeClock(1795276770000);
  const record = (job: JobInput) => {
    const decoded = JSON.parse(payloadFor(job, { line, clock })) as { data: { command: string } };
    commands.push(decoded.data.command);
  };
  const queue = {
    connectionName: 'redis',
    options: { laravel: { line } },
    push: async (job: JobInput) => (record(job), 'id'),
    later: async (_delay: number, job: JobInput) => (record(job), 'id'),
    bulk: async (jobs: JobInput[]) => (jobs.forEach(record), jobs.map(() => 'id')),
  };
  return { queue: queue as unknown as RedisQueue, commands };
}

// JS values as a user hands them to make(): ints (number or bigint), floats (whole ones through
// php.float), strings, bools, null, lists and string-keyed arrays of those, enum cases.
const { value: jsValue } = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    fc.integer({ min: -1_000_000, max: 1_000_000 }),
    fc.bigInt(-(2n ** 63n), 2n ** 63n - 1n),
    fc.integer({ min: -1_000_000, max: 1_000_000 }).map((n) => php.float(n)),
    fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e12, max: 1e12 }).map((n) => php.float(n)),
    fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 }).filter((n) => !Number.isInteger(n)),
    fc.string({ maxLength: 8 }),
    fc.constantFrom('Small', 'Large').map((c) => php.enum('App\\Enums\\Size', c)),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(fc.stringMatching(/^[a-z]{1,5}$/), tie('value'), { maxKeys: 3 }),
  ),
}));

// The class and values a case uses; printed as its declaration when a case fails.
class Declared {
  constructor(
    readonly spec: Record<string, PropertySpec>,
    readonly values: Record<string, unknown>,
    readonly cls: PhpClass,
  ) {}

  [fc.toStringMethod](): string {
    return `phpClass(${fc.stringify(this.spec)}, ${this.cls.omitsDefaults ? 'SerializesModels' : 'no SerializesModels'}).make(${fc.stringify(this.values)})`;
  }
}

// A job class with 1-4 own properties (any visibility, with or without a default), Laravel's job traits
// (Batchable too) for `line`, with or without SerializesModels; and values for some or all of them.
function declared(line: LaravelLine): fc.Arbitrary<Declared> {
  const property = fc.record({
    visibility: fc.constantFrom('public' as const, 'protected' as const, 'private' as const),
    default: fc.option(jsValue, { nil: undefined }),
    value: fc.option(jsValue, { nil: undefined }),
  });
  return fc
    .tuple(
      fc.uniqueArray(fc.tuple(fc.stringMatching(/^[a-z][a-zA-Z]{0,6}$/), property), {
        minLength: 1,
        maxLength: 4,
        selector: ([name]) => name,
      }),
      fc.boolean(),
    )
    .filter(([props]) => props.every(([name]) => !RESERVED.has(name)))
    .map(([props, serializesModels]) => {
      const spec: Record<string, PropertySpec> = {};
      const values: Record<string, unknown> = {};
      for (const [name, p] of props) {
        spec[name] = p.default === undefined ? p.visibility : { visibility: p.visibility, default: p.default };
        // a property without a default must be given
        const value = p.value ?? (p.default === undefined ? 0 : undefined);
        if (value !== undefined) values[name] = value;
      }
      const cls = phpClass('App\\Jobs\\Generated', spec, {
        traits: laravelJobTraits(line, { batchable: true }),
        serializesModels: serializesModels ? line : false,
      });
      return new Declared(spec, values, cls);
    });
}

// Names the traits declare (and `uniqueId`, read by dispatchUnique), kept out of the generated ones.
const RESERVED = new Set([
  ...LINES.flatMap((line) => laravelJobTraits(line, { batchable: true }).flatMap((t) => Object.keys(t.properties))),
  'uniqueId',
  'uniqueFor',
]);

describe('dispatch keeps the bytes of every value a phpClass made', () => {
  for (const line of LINES) {
    describe(`Laravel ${line} line`, () => {
      it('dispatchChain pushes the first job as serialize(make()) with the chain set, the rest as made', async () => {
        await fc.assert(
          fc.asyncProperty(
            declared(line),
            declared(line),
            fc.option(fc.constantFrom('node', 'high'), { nil: undefined }),
            async (a, b, queueName) => {
              const { queue, commands } = recordingQueue(line);
              const second = b.cls.make(b.values);
              await dispatchChain(queue, [a.cls.make(a.values), second], queueName ? { queue: queueName } : {});
              const chain = queueName ? { queue: queueName, chainQueue: queueName } : {};
              const expected = a.cls.make({
                ...a.values,
                ...chain,
                chained: [serialize(second)],
                chainCatchCallbacks: [],
              });
              expect(commands).to.deep.equal([serialize(expected)]);
            },
          ),
          { numRuns: RUNS },
        );
      });

      it('dispatchBatch pushes each job as serialize(make()) with its batchId', async () => {
        const repo = new BatchRepository({ driver: 'sqlite', database: ':memory:' });
        await repo.createTable();
        try {
          await fc.assert(
            fc.asyncProperty(fc.array(declared(line), { minLength: 1, maxLength: 3 }), async (jobs) => {
              const { queue, commands } = recordingQueue(line);
              const batch = await dispatchBatch(
                queue,
                repo,
                jobs.map((j) => j.cls.make(j.values)),
              );
              expect(commands).to.deep.equal(
                jobs.map((j) => serialize(j.cls.make({ ...j.values, batchId: batch.id }))),
              );
            }),
            { numRuns: RUNS },
          );
        } finally {
          await repo.close();
        }
      });

      it('dispatchUnique pushes the job as serialize(make()), with its lock owner from 13.24', async () => {
        await fc.assert(
          fc.asyncProperty(declared(line), async (a) => {
            const { queue, commands } = recordingQueue(line);
            const cache = new ArrayCacheStore();
            const command = a.cls.make(a.values);
            expect(await dispatchUnique(queue, cache, command, { uniqueId: () => '1' }, { laravel: line })).to.equal(
              'id',
            );
            const owner = await cache
              .lock(await uniqueLockName(command, { uniqueId: () => '1' }, { laravel: line }))
              .currentOwner();
            const expected = line >= 13 ? a.cls.make({ ...a.values, uniqueLockOwner: owner }) : command;
            expect(commands).to.deep.equal([serialize(expected)]);
          }),
          { numRuns: RUNS },
        );
      });
    });
  }

  it('a whole-number float built with php.float(2) is still d:2; after dispatchChain and dispatchUnique', async () => {
    const Weighed = phpClass(
      'App\\Jobs\\Weigh',
      { weight: 'public' },
      { traits: laravelJobTraits(13), serializesModels: 13 },
    );
    const made = serializeToBuffer(Weighed.make({ weight: php.float(2) })).toString();
    expect(made).to.contain('s:6:"weight";d:2;');
    const chained = recordingQueue(13);
    await dispatchChain(chained.queue, [Weighed.make({ weight: php.float(2) }), Weighed.make({ weight: 3 })]);
    expect(chained.commands[0]).to.contain('s:6:"weight";d:2;');
    const unique = recordingQueue(13);
    await dispatchUnique(
      unique.queue,
      new ArrayCacheStore(),
      Weighed.make({ weight: php.float(2) }),
      {},
      { laravel: 13 },
    );
    expect(unique.commands[0]).to.contain('s:6:"weight";d:2;');
  });
});
