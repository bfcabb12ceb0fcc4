// The serialized commands Laravel 8.x, 12.x and 13.x wrote: read back, written again byte for byte,
// described as the fixtures describe them, and rebuilt with the builder from class declarations.
import { expect } from 'chai';
import {
  interactsWithQueueTrait,
  LaravelLine,
  laravelJobTraits,
  php,
  PhpClass,
  phpClass,
  PropertySpec,
  queueableTrait,
} from '../../lib/php/builder';
import { serialize } from '../../lib/php/serialize';
import { unserialize } from '../../lib/php/unserialize';
import { PhpArray, PhpObject, PhpValue } from '../../lib/php/values';
import { describe as describeValue, exactJob, fromDescribed } from '../support/describe';
import { Described, Fixture, loadFixtures, pushedPayloads } from '../support/fixtures';
import { scalarZooValues } from '../support/phpJobs';

const fixtures = loadFixtures();

function commands(f: Fixture): string[] {
  return pushedPayloads(f)
    .map((p) => (JSON.parse(p) as { data?: { command?: unknown } }).data?.command)
    .filter((c): c is string => typeof c === 'string' && c.startsWith('O:'));
}

// Jobs riding along in a `chained` property, at any depth, as serialized strings.
function chainedJobs(value: PhpValue): string[] {
  if (value instanceof PhpArray) return [...value.entries.values()].flatMap(chainedJobs);
  if (!(value instanceof PhpObject)) return [];
  return value.properties.flatMap((p) => {
    const own =
      p.name === 'chained' && p.value instanceof PhpArray
        ? [...p.value.entries.values()].filter((v): v is string => typeof v === 'string' && v.startsWith('O:'))
        : [];
    return [...own, ...chainedJobs(p.value)];
  });
}

// Mismatches between what a command holds and the fixture's description. A 12.x/13.x command may leave
// out properties the description lists (they held their defaults), but never adds or reorders any.
function mismatches(actual: Described, expected: Described, exact: boolean, path = '$'): string[] {
  if (actual.t === 'object' && expected.t === 'object') {
    if (actual.class !== expected.class) return [`${path}: class ${actual.class} is not ${expected.class}`];
    const out: string[] = [];
    let last = -1;
    for (const p of actual.props) {
      const i = expected.props.findIndex(
        (e) => e.name === p.name && e.visibility === p.visibility && e.declaringClass === p.declaringClass,
      );
      if (i < 0) out.push(`${path}.${p.name}: not in the description (${p.visibility})`);
      else if (i < last) out.push(`${path}.${p.name}: out of order`);
      else out.push(...mismatches(p.value, expected.props[i].value, exact, `${path}.${p.name}`));
      last = Math.max(last, i);
    }
    if (exact && actual.props.length !== expected.props.length)
      out.push(`${path}: ${actual.props.length} properties, described ${expected.props.length}`);
    return out;
  }
  if (actual.t === 'array' && expected.t === 'array') {
    if (actual.entries.length !== expected.entries.length)
      return [`${path}: ${actual.entries.length} entries, described ${expected.entries.length}`];
    return actual.entries.flatMap((e, i) =>
      e.k !== expected.entries[i].k
        ? [`${path}: key ${e.k} is not ${expected.entries[i].k}`]
        : mismatches(e.v, expected.entries[i].v, exact, `${path}[${e.k}]`),
    );
  }
  return JSON.stringify(actual) === JSON.stringify(expected)
    ? []
    : [`${path}: ${JSON.stringify(actual)} is not ${JSON.stringify(expected)}`];
}

/** The PHP classes behind the fixtures, declared as a user of larq would declare them. */
function classes(line: LaravelLine): Record<string, PhpClass> {
  const job = { traits: laravelJobTraits(line), serializesModels: true };
  const listener: Record<string, PropertySpec> = { class: 'public', method: 'public', data: 'public' };
  const nullable = (...names: string[]) =>
    names.forEach((n) => (listener[n] = { visibility: 'public', default: null }));
  const falsy = (...names: string[]) => names.forEach((n) => (listener[n] = { visibility: 'public', default: false }));
  nullable('tries', 'maxExceptions', 'backoff', 'retryUntil', 'timeout');
  if (line >= 12) falsy('failOnTimeout');
  falsy('shouldBeEncrypted');
  if (line >= 13) nullable('deleteWhenMissingModels');
  if (line >= 12) falsy('shouldBeUnique', 'shouldBeUniqueUntilProcessing');
  if (line >= 12) nullable('uniqueId', 'uniqueFor');
  if (line >= 13) nullable('debounceId');
  const pub = (...names: string[]) => Object.fromEntries(names.map((n): [string, PropertySpec] => [n, 'public']));
  const list = [
    phpClass(
      'App\\Jobs\\SendWelcomeEmail',
      { to: 'public', subject: 'protected', meta: { visibility: 'private', default: null } },
      job,
    ),
    phpClass(
      'App\\Jobs\\BatchedJob',
      { n: 'public' },
      { traits: laravelJobTraits(line, { batchable: true }), serializesModels: true },
    ),
    phpClass('App\\Jobs\\ChainStep', { step: 'public' }, job),
    phpClass('App\\Jobs\\DateJob', pub('at', 'atUtc'), job),
    phpClass('App\\Jobs\\SecretJob', { card: 'public' }, job),
    phpClass('App\\Jobs\\EnumJob', pub('status', 'level', 'flag', 'list'), job),
    phpClass(
      'App\\Jobs\\ScalarZoo',
      pub(
        's',
        'unicode',
        'i',
        'neg',
        'big',
        'f',
        'whole',
        'tiny',
        'huge',
        'yes',
        'no',
        'nothing',
        'list',
        'map',
        'empty',
        'nested',
      ),
      job,
    ),
    phpClass(
      'App\\Jobs\\TunedJob',
      {
        tries: { visibility: 'public', default: 5 },
        timeout: { visibility: 'public', default: 30 },
        maxExceptions: { visibility: 'public', default: 2 },
        failOnTimeout: { visibility: 'public', default: true },
        backoff: { visibility: 'public', default: [1, 5, 10] },
        payload: 'public',
      },
      job,
    ),
    phpClass('App\\Jobs\\ModelJob', pub('user', 'users'), job),
    phpClass('Illuminate\\Events\\CallQueuedListener', listener, {
      traits: [interactsWithQueueTrait(), queueableTrait(line)],
    }),
  ];
  return Object.fromEntries(list.map((c) => [c.className, c]));
}

// Rebuild a described value as make() input, making objects of known classes through the builder so
// that each is serialized with its own class's rules (a job nested in a listener leaves its defaults
// out). Floats go in as php.float(): make() reads a bare integral JS number as an int.
function rebuild(d: Described, known: Record<string, PhpClass>): unknown {
  if (d.t === 'object' && known[d.class])
    return known[d.class].make(Object.fromEntries(d.props.map((p) => [p.name, rebuild(p.value, known)])));
  if (d.t === 'array') return new Map(d.entries.map((e) => [e.k, rebuild(e.v, known)]));
  if (d.t === 'float') return php.float(fromDescribed(d) as number);
  return fromDescribed(d);
}

/** Each fixture's job written by hand from JS values, as a producer would. */
function handWritten(line: LaravelLine, name: string): PhpObject[] | undefined {
  const c = classes(line);
  const step = (n: number) => c['App\\Jobs\\ChainStep'].make({ step: n });
  const user = (id: unknown) => php.model('App\\Models\\User', id, { connection: 'mysql' }, line);
  const jobs: Record<string, () => PhpObject[]> = {
    'object-basic': () => [
      c['App\\Jobs\\SendWelcomeEmail'].make({
        to: 'ada@example.com',
        subject: 'Welcome / “hi” \\ é',
        meta: { plan: 'pro', seats: 3 },
      }),
    ],
    'object-delayed': () => [c['App\\Jobs\\SendWelcomeEmail'].make({ to: 'later@example.com', subject: 'Later' })],
    'object-batched': () => [
      c['App\\Jobs\\BatchedJob'].make({ n: 3, batchId: '9a1b7c4e-0000-4000-8000-000000000001' }),
    ],
    'object-chain': () => [
      c['App\\Jobs\\ChainStep'].make({
        step: 1,
        queue: 'default',
        chainQueue: 'default',
        chained: [serialize(step(2)), serialize(step(3))],
      }),
    ],
    bulk: () => [step(1), step(2), step(3)],
    'object-dates': () => [
      c['App\\Jobs\\DateJob'].make({
        at: php.dateTime(new Date(Date.UTC(2026, 2, 4, 4, 6, 7)), {
          immutable: true,
          timezone: 'Europe/Amsterdam',
          microsecond: 123456,
        }),
        atUtc: php.dateTime(new Date(Date.UTC(2026, 2, 4, 5, 6, 7)), { timezone: '+00:00' }),
      }),
    ],
    'object-enums': () => [
      c['App\\Jobs\\EnumJob'].make({
        status: php.enum('App\\Enums\\Status', 'Active'),
        level: php.enum('App\\Enums\\Level', 'High'),
        flag: php.enum('App\\Enums\\Flag', 'Off'),
        list: [php.enum('App\\Enums\\Status', 'Closed'), php.enum('App\\Enums\\Level', 'Low')],
      }),
    ],
    'object-scalars': () => [c['App\\Jobs\\ScalarZoo'].make(scalarZooValues())],
    'object-tuned': () => [c['App\\Jobs\\TunedJob'].make({ payload: { x: 1 } })],
    'object-models': () => [c['App\\Jobs\\ModelJob'].make({ user: user(7), users: user([7, 8]) })],
    'queued-listener': () => [
      c['Illuminate\\Events\\CallQueuedListener'].make({
        class: 'App\\Listeners\\SendShipmentNotification',
        method: 'handle',
        data: [step(9)],
        tries: 4,
      }),
    ],
  };
  return jobs[name]?.();
}

describe('serialized commands in the Laravel fixtures', () => {
  for (const f of fixtures) {
    const line = Number.parseInt(f.version, 10) as LaravelLine;
    commands(f).forEach((command, i) => {
      const label = `${f.version}/${f.name}${commands(f).length > 1 ? ` #${i + 1}` : ''}`;

      it(`${label}: unserialize then serialize gives the same bytes`, () => {
        expect(serialize(unserialize(command))).to.equal(command);
      });

      for (const [j, nested] of chainedJobs(unserialize(command)).entries()) {
        it(`${label}: chained job ${j + 1} gives the same bytes too`, () => {
          expect(serialize(unserialize(nested))).to.equal(nested);
        });
      }

      const job = i === 0 ? exactJob(f) : undefined;
      if (job) {
        it(`${label}: reads as the fixture's job description${line === 8 ? ' (every property)' : ' (properties present)'}`, () => {
          expect(mismatches(describeValue(unserialize(command)), job, line === 8)).to.deep.equal([]);
        });

        it(`${label}: the builder makes the same bytes from the description's values`, () => {
          expect(serialize(rebuild(job, classes(line)) as PhpObject)).to.equal(command);
        });
      }
    });

    const built = handWritten(line, f.name);
    if (built) {
      it(`${f.version}/${f.name}: the builder makes the same bytes from hand-written JS values`, () => {
        expect(built.map((o) => serialize(o))).to.deep.equal(commands(f));
      });
    }
  }

  // Guards against fixtures whose checks above would silently vanish because no plain command was found.
  it('checks every described fixture except the encrypted ones, whose command is not plain', () => {
    const skipped = fixtures.filter((f) => f.job && commands(f).length === 0).map((f) => `${f.version}/${f.name}`);
    expect(skipped).to.deep.equal(['12.x/object-encrypted', '13.x/object-encrypted', '8.x/object-encrypted']);
  });
});
