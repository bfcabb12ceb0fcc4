// Every value shape a Laravel job can carry in data.command, against real PHP (compat-fixtures/php/shapes.php):
//   PHP serializes each shape, larq reads it and writes back the same bytes;
//   larq builds each shape from JS and writes PHP's bytes;
//   through Redis both ways, plain and ShouldBeEncrypted (the only way raw bytes travel), where
//   Laravel's own RedisJob::fire hands handle() what PHP itself would have serialized.
import { expect } from 'chai';
import { Encrypter } from '../../lib/php/Encrypter';
import { laravelJobTraits, php, phpClass, toPhp } from '../../lib/php/builder';
import { serializeToBuffer } from '../../lib/php/serialize';
import { unserialize } from '../../lib/php/unserialize';
import {
  PhpArray,
  PhpCustomObject,
  PhpObject,
  PhpReference,
  type PhpProperty,
  type PhpValue,
} from '../../lib/php/values';
import { toPlain } from '../../lib/php/view';
import { RedisQueue } from '../../lib/RedisQueue';
import { FIXTURE_APP_KEY } from '../support/fixtures';
import { LARAVEL_LINES, laravelEnv, laravelMajor, requirePhp, runPhp, type PhpLaravelLine } from '../support/php';
import { randomPrefix } from '../support/redis';
import { useRedisQueue } from '../support/useRedisQueue';

const pub = (name: string, value: PhpValue): PhpProperty => ({ name, visibility: 'public', value });

/** The shapes of shapes.php, each as a user builds it in JS (null: read from PHP and passed on as larq read it). */
const SHAPES: Record<string, (() => PhpValue) | null> = {
  null: () => toPhp(null),
  true: () => toPhp(true),
  false: () => toPhp(false),
  int: () => toPhp(42),
  'int-negative': () => toPhp(-7),
  'int-max': () => toPhp(2n ** 63n - 1n),
  'int-min': () => toPhp(-(2n ** 63n)),
  string: () => toPhp('plain'),
  'string-empty': () => toPhp(''),
  'string-utf8': () => toPhp('héllo “wörld” 😀'),
  'string-nul': () => toPhp('a\0b'),
  'string-punctuation': () => toPhp('a";}s:1:"x'),
  float: () => toPhp(1.5),
  'float-integral': () => toPhp(php.float(2)),
  'float-negative-zero': () => toPhp(-0),
  'float-inf': () => toPhp(Infinity),
  'float-negative-inf': () => toPhp(-Infinity),
  'float-nan': () => toPhp(NaN),
  'float-tenth': () => toPhp(0.1),
  'float-big': () => toPhp(php.float(1e25)),
  'float-small': () => toPhp(1.5e-7),
  'float-edges': () =>
    toPhp(
      [0.1 + 0.2, 5e-324, 1.7976931348623157e308, 1e15, 1e17, 123456789012345678, 0.0001, 0.00001, -2.5e-300, -1.5].map(
        php.float,
      ),
    ),
  list: () => toPhp([1, 'two', php.float(3)]),
  'array-mixed-keys': () =>
    toPhp(
      new Map<string, number>([
        ['z', 1],
        ['10', 2],
        ['2', 3],
        ['a', 4],
      ]),
    ),
  'array-negative-keys': () =>
    toPhp(
      new Map<string | number, string>([
        [-5, 'a'],
        [0, 'b'],
        ['07', 'c'],
        ['-0', 'd'],
      ]),
    ),
  'array-edge-keys': () =>
    toPhp(
      new Map<string, string>([
        ['9223372036854775807', 'a'],
        ['9223372036854775808', 'b'],
        ['', 'c'],
        [' 1', 'd'],
      ]),
    ),
  'array-nested': () => toPhp({ a: [1, [2, { deep: true }]], b: [] }),
  'object-visibility': () =>
    phpClass('App\\Shapes\\Visible', {
      secret: { visibility: 'private', declaringClass: 'App\\Shapes\\Base', default: 'base-secret' },
      open: { visibility: 'public', default: 'o' },
      guarded: { visibility: 'protected', default: 'g' },
      hidden: { visibility: 'private', default: 'h' },
    }).make(),
  'object-dynamic-numeric': () =>
    new PhpObject('stdClass', [pub('0', 'zero'), pub('12', 'twelve'), pub('name', 'named')]),
  'enum-backed': () => php.enum('App\\Shapes\\Suit', 'Hearts'),
  'enum-pure': () => php.enum('App\\Shapes\\Light', 'Green'),
  'enum-twice': () =>
    toPhp([
      php.enum('App\\Shapes\\Suit', 'Spades'),
      php.enum('App\\Shapes\\Light', 'Red'),
      php.enum('App\\Shapes\\Suit', 'Spades'),
      php.enum('App\\Shapes\\Light', 'Red'),
    ]),
  'shared-object': () => {
    const shared = new PhpObject('stdClass', [pub('n', 1n)]);
    return toPhp([shared, shared, { again: shared }]);
  },
  'self-object': () => {
    const self = new PhpObject('stdClass', []);
    self.properties.push(pub('me', self));
    return self;
  },
  'php-reference': () => toPhp(['aliased', new PhpReference('R', 2)]),
  'php-reference-property': () => new PhpObject('stdClass', [pub('a', 1n), pub('b', new PhpReference('R', 2))]),
  'array-object': () =>
    php.serialized('ArrayObject', [
      0,
      toPhp(
        new Map<string | number, unknown>([
          [0, 1],
          [1, 2],
          ['k', 'v'],
        ]),
      ),
      [],
      null,
    ]),
  'array-object-flags': () => php.serialized('ArrayObject', [2, { a: 1 }, [], null]),
  'array-iterator': () =>
    php.serialized('ArrayIterator', [
      0,
      new Map<string | number, number>([
        ['k', 1],
        [5, 2],
      ]),
      [],
      null,
    ]),
  'spl-object-storage': () =>
    php.serialized('SplObjectStorage', [[new PhpObject('stdClass', [pub('n', 1n)]), 'data'], []]),
  'spl-queue': () => php.serialized('SplQueue', [4, [1, 'two'], []]),
  'spl-stack': () => php.serialized('SplStack', [6, [3], []]),
  'spl-fixed-array': () => php.serialized('SplFixedArray', [1, 2, 3]),
  'serialize-list': () => php.serialized('App\\Shapes\\Pair', ['l', php.serialized('App\\Shapes\\Pair', [1, 2])]),
  'serialize-mixed-keys': () =>
    php.serialized(
      'App\\Shapes\\MixedKeys',
      new Map<string | number, string>([
        [10, 'ten'],
        ['name', 'mixed'],
        [2, 'two'],
        [-1, 'minus one'],
      ]),
    ),
  'serializable-legacy': () => new PhpCustomObject('App\\Shapes\\Legacy', Buffer.from('raw;}data')),
  'date-time': () =>
    php.dateTime(new Date('2024-05-06T05:08:09Z'), { timezone: 'Europe/Amsterdam', microsecond: 123456 }),
  'date-time-immutable': () => php.dateTime(new Date('2024-05-06T05:08:09Z'), { timezone: '+02:00', immutable: true }),
  carbon: () => php.dateTime(new Date('2024-05-06T07:08:09Z'), { className: 'Illuminate\\Support\\Carbon' }),
  'carbon-immutable': () =>
    php.dateTime(new Date('2024-01-02T08:04:05Z'), {
      timezone: 'America/New_York',
      className: 'Carbon\\CarbonImmutable',
    }),
  'date-time-zone': null,
  'date-interval': null,
  'date-period': null,
  'carbon-interval': null,
  collection: null,
  closure: null,
  bytes: () => toPhp(Buffer.from([0xff, 0xfe, 0x00, 0x80, ...Buffer.from('raw')])),
  'bytes-in-array': () =>
    toPhp({
      digest: Buffer.from('903e8977d6e53be09156673cd9a39322507d4a3278e477c309b2306b2e718142', 'hex'),
      half: Buffer.from([0xc3, 0x28]),
    }),
};

/** Shapes a plain (not encrypted) payload cannot carry: json_encode refuses bytes that are not UTF-8. */
const BYTE_SHAPES = ['bytes', 'bytes-in-array'];
/** An `R:` index counts slots from the start of the whole serialize(), so the standalone shape is left out of jobs built in JS. */
const STANDALONE = ['php-reference', 'php-reference-property'];

/** Job classes of shapes.php: the value array, a model and a collection, then Laravel's traits. */
const jobClass = (name: string, major: 8 | 12 | 13) =>
  phpClass(
    `App\\Shapes\\${name}`,
    { value: 'public', model: 'public', models: 'public' },
    { traits: laravelJobTraits(major), serializesModels: major },
  );

interface Values {
  shapes: Record<string, string>;
  commands: Record<string, string>;
}

interface Received {
  class: string;
  shapes: Record<string, string>;
  facts: Record<string, unknown>;
}

const bytesOf = (b64: string) => Buffer.from(b64, 'base64');
/** Bytes as one char per byte: readable in a failed comparison, and equal exactly when the bytes are. */
const text = (bytes: Buffer) => bytes.toString('latin1');

for (const line of LARAVEL_LINES) describeLine(line);

function describeLine(line: PhpLaravelLine): void {
  describe(`interop: every value shape of a job command, byte for byte (Laravel ${line})`, function () {
    this.timeout(60000);
    const redis = useRedisQueue();
    const LINE = laravelMajor(line);
    const ShapeJob = jobClass('ShapeJob', LINE);
    const SecretShapeJob = jobClass('SecretShapeJob', LINE);
    let values: Values;

    before(async function () {
      requirePhp(this, line);
      values = await shapesPhp<Values>(['values']);
    });

    async function shapesPhp<T>(args: string[], prefix = 'unused:'): Promise<T> {
      const res = await runPhp('shapes.php', args, {
        ...laravelEnv(line),
        LARQ_REDIS_PORT: String(redis.port ?? 6379),
        LARQ_PREFIX: prefix,
      });
      if (res.code !== 0)
        throw new Error(`shapes.php ${args.join(' ')} exited ${res.code ?? res.signal}:\n${res.stderr}`);
      return JSON.parse(res.stdout) as T;
    }

    /** The value array of a job, built in JS; the shapes with no builder as larq read them from PHP. */
    function nativeValue(withBytes: boolean): PhpValue {
      const entries = Object.entries(SHAPES)
        .filter(([name]) => (withBytes || !BYTE_SHAPES.includes(name)) && !STANDALONE.includes(name))
        .map(([name, build]): [string, PhpValue] => [
          name,
          build ? build() : unserialize(bytesOf(values.shapes[name])),
        ]);
      return new PhpArray(entries);
    }

    it('shapes.php writes exactly the shapes listed here', () => {
      expect(Object.keys(values.shapes)).to.deep.equal(Object.keys(SHAPES));
    });

    describe('PHP serializes, larq unserializes and serializes the same bytes', () => {
      for (const name of Object.keys(SHAPES)) {
        it(name, () => {
          const bytes = bytesOf(values.shapes[name]);
          expect(text(serializeToBuffer(unserialize(bytes)))).to.equal(text(bytes));
        });
      }
      for (const name of ['shape-job', 'secret-shape-job', 'closure-command']) {
        it(`the whole command of ${name}`, () => {
          const bytes = bytesOf(values.commands[name]);
          expect(text(serializeToBuffer(unserialize(bytes)))).to.equal(text(bytes));
        });
      }
    });

    describe('larq builds each shape from JS as PHP serializes it', () => {
      for (const [name, build] of Object.entries(SHAPES)) {
        if (build === null) continue;
        it(name, () => {
          expect(text(serializeToBuffer(build()))).to.equal(text(bytesOf(values.shapes[name])));
        });
      }
    });

    describe('through Redis', () => {
      const encrypter = new Encrypter(FIXTURE_APP_KEY);
      const RAW = Buffer.from([0xff, 0xfe, 0x00, 0x80, ...Buffer.from('raw')]);

      it('an encrypted PHP job holding bytes that are not UTF-8 reaches the larq handler as a Buffer of those bytes', async () => {
        const prefix = randomPrefix();
        await shapesPhp(['dispatch-bytes'], prefix);
        const queue = new RedisQueue({ connection: { port: redis.port }, prefix, laravel: LINE, encrypter });
        try {
          const job = (await queue.pop())!;
          const view = toPlain(job.command()) as { value: { bytes: unknown } };
          expect(view.value.bytes).to.deep.equal(RAW);
          expect(text(serializeToBuffer(job.command()))).to.equal(
            text(encrypter.decryptBuffer(job.payload().command!)),
          );
          await job.delete();
        } finally {
          await queue.close();
        }
      });

      it('an encrypted larq job holding a Buffer reaches handle() in PHP with the same bytes', async () => {
        const prefix = randomPrefix();
        const queue = new RedisQueue({ connection: { port: redis.port }, prefix, laravel: LINE, encrypter });
        try {
          await queue.push({
            command: SecretShapeJob.make({ value: { bytes: RAW }, model: null, models: null }),
            encrypt: true,
          });
        } finally {
          await queue.close();
        }
        const [received] = await shapesPhp<Received[]>(['work', '1'], prefix);
        expect(received.facts).to.deep.equal({ bytes: RAW.toString('hex') });
      });

      it('Laravel dispatches ShapeJob and the encrypted SecretShapeJob; larq reads both and writes their commands back byte for byte', async () => {
        const prefix = randomPrefix();
        const sent = await shapesPhp<{ ids: string[] }>(['dispatch'], prefix);
        const queue = new RedisQueue({ connection: { port: redis.port }, prefix, laravel: LINE, encrypter });
        try {
          for (const [i, className] of ['App\\Shapes\\ShapeJob', 'App\\Shapes\\SecretShapeJob'].entries()) {
            const job = (await queue.pop())!;
            expect(job.getJobId()).to.equal(sent.ids[i]);
            const command = job.payload().command!;
            const plaintext = className.includes('Secret')
              ? encrypter.decryptBuffer(command)
              : Buffer.from(command, 'utf8');
            expect(job.command().className).to.equal(className);
            expect(text(serializeToBuffer(job.command()))).to.equal(text(plaintext));
            const view = toPlain(job.command()) as { value: Record<string, unknown> };
            if (className.includes('Secret')) {
              expect(view.value.bytes).to.deep.equal(Buffer.from([0xff, 0xfe, 0x00, 0x80, ...Buffer.from('raw')]));
              expect((view.value['bytes-in-array'] as { half: Buffer }).half).to.deep.equal(Buffer.from([0xc3, 0x28]));
            }
            await job.delete();
          }
        } finally {
          await queue.close();
        }
      });

      it('larq dispatches both jobs built in JS; handle() in PHP gets every shape as PHP serializes it, identities kept', async () => {
        const prefix = randomPrefix();
        const queue = new RedisQueue({ connection: { port: redis.port }, prefix, laravel: LINE, encrypter });
        const model = php.model('App\\Models\\User', 7, { connection: 'mysql' }, LINE);
        const models = php.model('App\\Models\\User', [7, 8], { connection: 'mysql' }, LINE);
        try {
          await queue.push(ShapeJob.make({ value: nativeValue(false), model, models }));
          await queue.push({
            command: SecretShapeJob.make({ value: nativeValue(true), model, models }),
            encrypt: true,
          });
        } finally {
          await queue.close();
        }
        const received = await shapesPhp<Received[]>(['work', '2'], prefix);
        expect(received.map((r) => r.class)).to.deep.equal(['App\\Shapes\\ShapeJob', 'App\\Shapes\\SecretShapeJob']);
        for (const r of received) {
          const withBytes = r.class.includes('Secret');
          const names = Object.keys(SHAPES).filter(
            (n) => (withBytes || !BYTE_SHAPES.includes(n)) && !STANDALONE.includes(n),
          );
          expect(Object.keys(r.shapes)).to.deep.equal(names);
          // A closure's `self` is an object hash that changes with every serialize(): its fact says it runs.
          for (const name of names.filter((n) => n !== 'closure')) {
            expect(text(bytesOf(r.shapes[name])), name).to.equal(text(bytesOf(values.shapes[name])));
          }
          expect(r.facts).to.deep.include({
            sharedIsIdentical: true,
            selfIsIdentical: true,
            enumIsCase: true,
            arrayObject: 'ArrayObject {"0":1,"1":2,"k":"v"}',
            splQueue: '[1,"two"]',
            pair: ['l', 2],
            negativeZero: '-0.0',
            model: ['App\\Models\\User', 7, true],
            models: ['Illuminate\\Database\\Eloquent\\Collection', [7, 8]],
            closure: 42,
          });
          if (withBytes)
            expect(r.facts).to.deep.include({
              bytes: 'fffe0080726177',
              digest: '903e8977d6e53be09156673cd9a39322507d4a3278e477c309b2306b2e718142',
            });
        }
      });
    });
  });
}
