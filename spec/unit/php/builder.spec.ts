// Expected serialized strings come from PHP 8.2 (`php -r 'echo serialize(...);'` on equivalent classes) or from
// the recorded Laravel fixtures.
import { expect } from 'chai';
import { PhpBuildError } from '../../../lib/errors';
import {
  laravelJobTraits,
  php,
  phpClass,
  phpIdentical,
  queueableTrait,
  interactsWithQueueTrait,
  toPhp,
} from '../../../lib/php/builder';
import { serialize } from '../../../lib/php/serialize';
import { PhpArray, PhpBytes, PhpEnum, PhpObject } from '../../../lib/php/values';
import { loadFixtures } from '../../support/fixtures';

describe('builder', () => {
  describe('toPhp', () => {
    it('makes integral numbers ints and others floats; php.float forces a float', () => {
      expect(toPhp(3)).to.equal(3n);
      expect(toPhp(1.5)).to.equal(1.5);
      expect(toPhp(php.float(2))).to.equal(2);
      expect(serialize(toPhp([2, php.float(2), 12n]))).to.equal('a:3:{i:0;i:2;i:1;d:2;i:2;i:12;}');
    });

    it('refuses integral numbers beyond 2^53, which could be an int or a float', () => {
      expect(() => toPhp(1e25, 'huge')).to.throw(
        PhpBuildError,
        /huge: 1e\+25 is beyond 2\^53; use a bigint .* or php.float/,
      );
      expect(toPhp(php.float(1e25))).to.equal(1e25);
    });

    it('turns arrays into lists and objects or Maps into PHP arrays with PHP key rules', () => {
      expect(serialize(toPhp({ plan: 'pro', seats: 3 }))).to.equal('a:2:{s:4:"plan";s:3:"pro";s:5:"seats";i:3;}');
      const keys = toPhp(
        new Map<unknown, unknown>([
          ['7', 'a'],
          ['07', 'b'],
          [-2, 'c'],
          ['-0', 'd'],
          [5n, 'e'],
        ]),
      ) as PhpArray;
      expect([...keys.entries.keys()]).to.deep.equal([7n, '07', -2n, '-0', 5n]);
      expect(serialize(toPhp([]))).to.equal('a:0:{}');
    });

    it('makes Buffers PhpBytes and passes PhpValues through', () => {
      const bytes = toPhp(Buffer.from([0xff])) as PhpBytes;
      expect(bytes).to.be.instanceOf(PhpBytes);
      expect(bytes.bytes).to.deep.equal(Buffer.from([0xff]));
      const e = new PhpEnum('A', 'B');
      expect(toPhp(e)).to.equal(e);
    });

    it('refuses values with no PHP form, naming where they were', () => {
      expect(() => toPhp({ when: new Date() }, 'job')).to.throw(PhpBuildError, /job\.when: use php\.dateTime/);
      expect(() => toPhp([undefined], 'list')).to.throw(PhpBuildError, /list\[0\]: undefined has no PHP form/);
      expect(() => toPhp(new (class Foo {})())).to.throw(PhpBuildError, /an instance of Foo has no PHP form/);
      expect(() => toPhp(new Map([[{}, 1]]))).to.throw(PhpBuildError, /cannot be a PHP array key/);
    });
  });

  describe('phpClass', () => {
    const Mail = (options = {}) =>
      phpClass(
        'App\\Jobs\\Mail',
        {
          to: 'public',
          subject: 'protected',
          meta: { visibility: 'private', default: null },
          tries: { visibility: 'public', default: 5 },
        },
        options,
      );

    it('mangles each property as declared, private ones under the class by default', () => {
      const job = Mail().make({ to: 'a@b.c', subject: 'Hi', meta: { seats: 3 } });
      expect(serialize(job)).to.equal(
        'O:13:"App\\Jobs\\Mail":4:{s:2:"to";s:5:"a@b.c";s:10:"\0*\0subject";s:2:"Hi";s:19:"\0App\\Jobs\\Mail\0meta";a:1:{s:5:"seats";i:3;}s:5:"tries";i:5;}',
      );
    });

    it('uses an explicit declaring class for a private property of a parent class', () => {
      const Child = phpClass('App\\Jobs\\Child', {
        secret: { visibility: 'private', declaringClass: 'App\\Jobs\\Base' },
      });
      expect(serialize(Child.make({ secret: 's' }))).to.equal(
        'O:14:"App\\Jobs\\Child":1:{s:21:"\0App\\Jobs\\Base\0secret";s:1:"s";}',
      );
      expect(() => phpClass('A', { x: { visibility: 'public', declaringClass: 'B' } })).to.throw(
        PhpBuildError,
        /only private/,
      );
    });

    it('refuses an unknown property and a missing one without a default, naming them', () => {
      expect(() => Mail().make({ to: 'x', subject: 'y', subjct: 'z' })).to.throw(
        PhpBuildError,
        /App\\Jobs\\Mail has no property subjct \(declared: to, subject, meta, tries\)/,
      );
      expect(() => Mail().make({ to: 'x' })).to.throw(
        PhpBuildError,
        /property subject has no default and was not given/,
      );
    });

    it('writes every property natively and on 8.x, and leaves defaults out with SerializesModels on 12 and 13', () => {
      const values = { to: 'x', subject: 'y', meta: null, tries: 5 };
      const names = (o: PhpObject) => o.properties.map((p) => p.name);
      expect(names(Mail().make(values))).to.deep.equal(['to', 'subject', 'meta', 'tries']);
      expect(names(Mail({ serializesModels: 8 }).make(values))).to.deep.equal(['to', 'subject', 'meta', 'tries']);
      expect(names(Mail({ serializesModels: 12 }).make(values))).to.deep.equal(['to', 'subject']);
      expect(names(Mail({ serializesModels: 13 }).make({ ...values, tries: 6 }))).to.deep.equal([
        'to',
        'subject',
        'tries',
      ]);
    });

    it('compares with PHP ===: a float is not its int default, an array must match in order', () => {
      const C = phpClass(
        'C',
        { n: { visibility: 'public', default: 5 }, a: { visibility: 'public', default: [1, 2] } },
        { serializesModels: 12 },
      );
      expect(C.make({ n: php.float(5), a: [1, 2] }).properties.map((p) => p.name)).to.deep.equal(['n']);
      expect(
        C.make({
          a: new Map([
            [1, 2],
            [0, 1],
          ]),
        }).properties.map((p) => p.name),
      ).to.deep.equal(['a']);
      expect(phpIdentical(new PhpBytes(Buffer.from('x')), 'x')).to.equal(true);
      expect(phpIdentical(NaN, NaN)).to.equal(false);
    });

    it('keeps a NAN default when omitting defaults (NAN !== NAN in PHP), and no two objects share an array that can change', () => {
      const C = phpClass(
        'C',
        { f: { visibility: 'public', default: NaN }, n: { visibility: 'public', default: 1 } },
        { serializesModels: 12 },
      );
      expect(C.make().properties.map((p) => p.name)).to.deep.equal(['f']);
      expect(C.make().properties.map((p) => p.name)).to.deep.equal(['f']); // the second make takes the cached path
      const L = phpClass(
        'L',
        { a: { visibility: 'public', default: [] }, b: { visibility: 'public', default: [1] } },
        { serializesModels: 8 },
      );
      const [x, y] = [L.make(), L.make()];
      const a = x.get('a') as PhpArray;
      expect(a).to.be.instanceOf(PhpArray);
      // an empty default is one shared array that refuses every change
      expect(a).to.equal(y.get('a'));
      expect(() => a.entries.set(0n, 1n)).to.throw(TypeError, /shared empty default/);
      expect(() => a.entries.delete(0n)).to.throw(TypeError);
      expect(() => a.entries.clear()).to.throw(TypeError);
      expect(a.size).to.equal(0);
      expect(serialize(x)).to.equal('O:1:"L":2:{s:1:"a";a:0:{}s:1:"b";a:1:{i:0;i:1;}}');
      // a default with entries is each object's own
      expect(x.get('b')).to.be.instanceOf(PhpArray);
      expect(x.get('b')).to.not.equal(y.get('b'));
      (x.get('b') as PhpArray).entries.set(1n, 2n);
      expect((y.get('b') as PhpArray).size).to.equal(1);
    });

    it('takes the line for serializesModels: true from the traits, and asks for it otherwise', () => {
      const Job = phpClass('J', { n: 'public' }, { traits: laravelJobTraits(12), serializesModels: true });
      expect(Job.omitsDefaults).to.equal(true);
      expect(
        phpClass('J', { n: 'public' }, { traits: laravelJobTraits(8), serializesModels: true }).omitsDefaults,
      ).to.equal(false);
      expect(() => phpClass('J', { n: 'public' }, { serializesModels: true })).to.throw(
        PhpBuildError,
        /serializesModels: true needs one Laravel line/,
      );
    });

    it("shares one frozen property per scalar or empty-array default among the objects it makes; given values are each object's own", () => {
      const Job = phpClass(
        'App\\Jobs\\Shared',
        { n: 'public', note: { visibility: 'private', default: 'x' } },
        { traits: laravelJobTraits(8) },
      );
      const [a, b] = [Job.make({ n: 1 }), Job.make({ n: 2 })];
      const prop = (o: PhpObject, name: string) => o.properties.find((p) => p.name === name)!;
      for (const name of ['note', 'connection', 'queue', 'delay', 'job']) {
        expect(prop(a, name), name).to.equal(prop(b, name));
        expect(Object.isFrozen(prop(a, name)), name).to.equal(true);
      }
      // changing a shared default in place would change every object: it throws instead
      expect(() => ((prop(a, 'queue') as { value: unknown }).value = 'high')).to.throw(TypeError);
      expect(prop(b, 'queue').value).to.equal(null);
      expect(prop(a, 'n')).to.not.equal(prop(b, 'n'));
      expect(prop(a, 'middleware')).to.equal(prop(b, 'middleware')); // the sealed empty array
      expect(Job.make({ n: 3, queue: 'high' }).get('queue')).to.equal('high');
      expect(serialize(a)).to.equal(serialize(Job.make({ n: 1 })));
    });

    it('refuses a property declared by the class and by a trait', () => {
      expect(() => phpClass('J', { queue: 'public' }, { traits: [queueableTrait(13)] })).to.throw(
        PhpBuildError,
        /property queue of trait Illuminate\\Bus\\Queueable is declared twice/,
      );
    });
  });

  describe('laravelJobTraits', () => {
    // The fixtures' job descriptions list every property; the trait part follows the job's own.
    for (const line of [8, 12, 13] as const) {
      it(`gives the trait properties, in order, of the ${line}.x fixtures' jobs`, () => {
        const fixture = loadFixtures().find((f) => f.version === `${line}.x` && f.name === 'object-batched');
        const described = fixture?.job;
        if (described?.t !== 'object') throw new Error('object-batched has no job description');
        const traitProps = described.props.slice(1).map((p) => `${p.visibility} ${p.name}`);
        const built = laravelJobTraits(line, { batchable: true }).flatMap((t) =>
          Object.entries(t.properties).map(
            ([name, spec]) => `${typeof spec === 'string' ? spec : spec.visibility} ${name}`,
          ),
        );
        expect(built).to.deep.equal(traitProps);
      });
    }

    it('offers the traits one by one for classes that use them in another order', () => {
      const Listener = phpClass('L', {}, { traits: [interactsWithQueueTrait(), queueableTrait(8)] });
      expect(Listener.properties.map((p) => p.name).slice(0, 3)).to.deep.equal(['job', 'connection', 'queue']);
    });
  });

  describe('php.dateTime', () => {
    it('writes a zone id with timezone_type 3 and the wall clock of that zone', () => {
      const at = php.dateTime(new Date(Date.UTC(2026, 6, 1, 12, 0, 0, 500)), {
        immutable: true,
        timezone: 'Europe/Amsterdam',
      });
      expect(serialize(at)).to.equal(
        'O:17:"DateTimeImmutable":3:{s:4:"date";s:26:"2026-07-01 14:00:00.500000";s:13:"timezone_type";i:3;s:8:"timezone";s:16:"Europe/Amsterdam";}',
      );
    });

    it('writes an offset with timezone_type 1, and UTC as a zone id by default', () => {
      const date = new Date(Date.UTC(2026, 6, 1, 12));
      expect(serialize(php.dateTime(date, { timezone: '-05:30' }))).to.equal(
        'O:8:"DateTime":3:{s:4:"date";s:26:"2026-07-01 06:30:00.000000";s:13:"timezone_type";i:1;s:8:"timezone";s:6:"-05:30";}',
      );
      expect(serialize(php.dateTime(date))).to.equal(
        'O:8:"DateTime":3:{s:4:"date";s:26:"2026-07-01 12:00:00.000000";s:13:"timezone_type";i:3;s:8:"timezone";s:3:"UTC";}',
      );
    });

    it('takes microseconds and another class name, and writes years before 1 as PHP does', () => {
      const carbon = php.dateTime(new Date(Date.UTC(2026, 2, 4, 4, 6, 7)), {
        timezone: 'Europe/Amsterdam',
        microsecond: 123456,
        className: 'Illuminate\\Support\\Carbon',
      });
      expect(carbon.className).to.equal('Illuminate\\Support\\Carbon');
      expect(carbon.get('date')).to.equal('2026-03-04 05:06:07.123456');
      expect(php.dateTime(new Date(-62198755200000)).get('date')).to.equal('-0001-01-01 00:00:00.000000');
    });

    it('refuses abbreviations, unknown zones and invalid dates', () => {
      expect(() => php.dateTime(new Date(0), { timezone: 'EST' })).to.throw(PhpBuildError, /abbreviation EST/);
      expect(() => php.dateTime(new Date(0), { timezone: 'Mars/Olympus' })).to.throw(PhpBuildError, /unknown timezone/);
      expect(() => php.dateTime(new Date(NaN))).to.throw(PhpBuildError, /invalid Date/);
    });
  });

  describe('php.model', () => {
    it('writes a ModelIdentifier with 4 properties on 8.x and 5 later', () => {
      expect(serialize(php.model('App\\Models\\User', 7, { connection: 'mysql' }, 8))).to.equal(
        'O:45:"Illuminate\\Contracts\\Database\\ModelIdentifier":4:{s:5:"class";s:15:"App\\Models\\User";s:2:"id";i:7;s:9:"relations";a:0:{}s:10:"connection";s:5:"mysql";}',
      );
      const users = php.model(
        'App\\Models\\User',
        [7, 8],
        { relations: ['posts.comments'], collectionClass: 'App\\Users' },
        13,
      );
      expect(serialize(users)).to.equal(
        'O:45:"Illuminate\\Contracts\\Database\\ModelIdentifier":5:{s:5:"class";s:15:"App\\Models\\User";s:2:"id";a:2:{i:0;i:7;i:1;i:8;}' +
          's:9:"relations";a:1:{i:0;s:14:"posts.comments";}s:10:"connection";N;s:15:"collectionClass";s:9:"App\\Users";}',
      );
      expect(() => php.model('App\\Models\\User', 1, { collectionClass: 'X' }, 8)).to.throw(
        PhpBuildError,
        /Laravel 8 has no collectionClass/,
      );
    });
  });
});
