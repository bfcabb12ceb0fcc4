// The PHP job classes of compat-fixtures/php/jobs.php, declared for larq's builder as a user would
// declare them for a Laravel line (8: every property is serialized; 12 and 13: their Queueable
// properties, and SerializesModels leaves out the ones still at their defaults), and the same job shapes
// dispatch.php makes. The top-level exports are the 8 line's; phpJobsFor(line) gives any line's.
import { laravelJobTraits, php, phpClass, type PhpClass } from '../../lib/php/builder';
import { serialize } from '../../lib/php/serialize';
import type { PhpObject } from '../../lib/php/values';
import type { JobInput } from '../../lib/jobs/dispatch';
import type { LaravelLine } from '../../lib/LaravelLine';

/** The ScalarZoo job's values as dispatch.php's object-scalars scenario sets them (fresh on each call). */
export function scalarZooValues(): Record<string, unknown> {
  return {
    s: 'line1\nline2\t"quoted" back\\slash /slash \0nul',
    unicode: 'naïve café 日本語 😀',
    i: 42,
    neg: -7,
    big: 9007199254740993n,
    f: 1.5,
    whole: php.float(2),
    tiny: 0.1,
    huge: php.float(1e25),
    yes: true,
    no: false,
    nothing: null,
    list: [1, 'two', php.float(3), null, true],
    map: { a: 1, b: { c: 'd' } },
    empty: [],
    nested: [[1, [2, [3]]], { k: [] }],
  };
}

/** The job classes, the dispatch.php shapes and nodeChain, declared for one Laravel line. */
export function phpJobsFor(line: LaravelLine) {
  const traits = laravelJobTraits(line);
  // jobs.php declares its properties untyped and without an initializer, which gives each the default
  // null: SerializesModels on 12/13 leaves such a property out while it is still null.
  const job = (name: string, props: Parameters<typeof phpClass>[1]): PhpClass =>
    phpClass(
      `App\\Jobs\\${name}`,
      Object.fromEntries(
        Object.entries(props).map(([n, spec]) => [
          n,
          typeof spec === 'string' ? { visibility: spec, default: null } : spec,
        ]),
      ),
      { traits, serializesModels: true },
    );

  const SendWelcomeEmail = job('SendWelcomeEmail', { to: 'public', subject: 'protected', meta: 'private' });
  const ScalarZoo = job(
    'ScalarZoo',
    Object.fromEntries(
      [
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
      ].map((n) => [n, 'public' as const]),
    ),
  );
  const EnumJob = job('EnumJob', { status: 'public', level: 'public', flag: 'public', list: 'public' });
  const ModelJob = job('ModelJob', { user: 'public', users: 'public' });
  const DateJob = job('DateJob', { at: 'public', atUtc: 'public' });
  const ChainStep = job('ChainStep', { step: 'public' });
  const SecretJob = job('SecretJob', { card: 'public' });
  const TunedJob = job('TunedJob', {
    tries: { visibility: 'public', default: 5 },
    timeout: { visibility: 'public', default: 30 },
    maxExceptions: { visibility: 'public', default: 2 },
    failOnTimeout: { visibility: 'public', default: true },
    backoff: { visibility: 'public', default: [1, 5, 10] },
    payload: 'public',
  });

  /** The job shapes dispatch.php makes, built in Node: scenario name -> what to push. */
  const NODE_SHAPES: Record<string, () => JobInput> = {
    'object-basic': () =>
      SendWelcomeEmail.make({ to: 'ada@example.com', subject: 'Welcome / “hi” \\ é', meta: { plan: 'pro', seats: 3 } }),
    'object-scalars': () => ScalarZoo.make(scalarZooValues()),
    'object-enums': () =>
      EnumJob.make({
        status: php.enum('App\\Enums\\Status', 'Active'),
        level: php.enum('App\\Enums\\Level', 'High'),
        flag: php.enum('App\\Enums\\Flag', 'Off'),
        list: [php.enum('App\\Enums\\Status', 'Closed'), php.enum('App\\Enums\\Level', 'Low')],
      }),
    'object-models': () =>
      ModelJob.make({
        user: php.model('App\\Models\\User', 7, { connection: 'mysql' }, line),
        users: php.model('App\\Models\\User', [7, 8], { connection: 'mysql' }, line),
      }),
    'object-dates': () =>
      DateJob.make({
        at: php.dateTime(new Date('2026-03-04T04:06:07Z'), {
          immutable: true,
          timezone: 'Europe/Amsterdam',
          microsecond: 123456,
        }),
        atUtc: php.dateTime(new Date('2026-03-04T05:06:07Z'), { timezone: '+00:00' }),
      }),
    'object-tuned': () => ({
      command: TunedJob.make({ payload: { x: 1 } }),
      displayName: 'Tuned job (custom display name)',
      retryUntil: 1900000000,
    }),
    'object-encrypted': () => ({ command: SecretJob.make({ card: '4242 4242 4242 4242' }), encrypt: true }),
    'string-method': () => ({
      job: 'App\\Handlers\\RawHandler@handle',
      data: {
        order: 17,
        items: ['a', 'b'],
        empty: [],
        obj: { k: 'v' },
        big: 12345678901234567n,
        f: 0.1,
        url: 'https://x.test/a/b',
      },
    }),
    'string-fire': () => ({ job: 'App\\Handlers\\RawHandler', data: 'just a string' }),
  };

  /** A chain of ChainSteps built in Node as Laravel's Bus::chain builds it: the rest rides along serialized. */
  function nodeChain(steps: number[], queue = 'default'): PhpObject {
    const [first, ...rest] = steps;
    const chained = rest.map((step) => serialize(ChainStep.make({ step, queue })));
    return ChainStep.make({ step: first, queue, chainQueue: queue, chained, chainCatchCallbacks: [] });
  }

  return {
    SendWelcomeEmail,
    ScalarZoo,
    EnumJob,
    ModelJob,
    DateJob,
    ChainStep,
    SecretJob,
    TunedJob,
    NODE_SHAPES,
    nodeChain,
  };
}

/** One Laravel line's job classes and shapes (phpJobsFor's result). */
export type PhpJobs = ReturnType<typeof phpJobsFor>;

export const {
  SendWelcomeEmail,
  ScalarZoo,
  EnumJob,
  ModelJob,
  DateJob,
  ChainStep,
  SecretJob,
  TunedJob,
  NODE_SHAPES,
  nodeChain,
} = phpJobsFor(8);
