// larq's serialize/unserialize against an independent implementation of PHP's format, the npm package
// php-serialize, on random values (fast-check) from the subset both implement: null, bools, 64-bit
// ints, floats written without an exponent and not integral (php-serialize writes 2.0 as `i:2;` and
// uses JS's exponent rules), valid UTF-8 strings, lists, arrays with int and string keys in any order,
// and objects with public, protected and private properties. For each value:
//   - both write the same bytes;
//   - php-serialize reads larq's bytes as it reads its own;
//   - larq reads php-serialize's bytes back to the exact value (int/float, key types and order, visibility).
import { expect } from 'chai';
import fc from 'fast-check';
import { serialize as theirSerialize, unserialize as theirUnserialize } from 'php-serialize';
import { serialize } from '../../../lib/php/serialize';
import { unserialize } from '../../../lib/php/unserialize';
import { PhpArray, PhpObject, type PhpArrayKey, type PhpValue, type Visibility } from '../../../lib/php/values';

/** The generated value: a description both sides are built from, and what a reader must give back. */
type Model =
  | { t: 'null' }
  | { t: 'bool'; v: boolean }
  | { t: 'int'; v: bigint }
  | { t: 'float'; v: number }
  | { t: 'string'; v: string }
  | { t: 'array'; entries: [PhpArrayKey, Model][] }
  | {
      t: 'object';
      className: string;
      properties: { name: string; visibility: Visibility; declaringClass?: string; value: Model }[];
    };

const CASES = 10_000;

const CLASS_NAMES = ['stdClass', 'App\\Jobs\\SendInvoice', 'App\\Models\\User', 'Illuminate\\Support\\Collection'];
const PARENT = 'App\\Jobs\\BaseJob';

// Printable ASCII (quotes, semicolons and braces included) or any code point; valid UTF-8 only, so no lone surrogates.
const text = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.string({ unit: 'binary', maxLength: 12 }).filter((s) => !/\p{Cs}/u.test(s)),
);
// A PHP array cannot hold a string key that reads as an int ("5" becomes 5), so those are left out.
const stringKey = text.filter((s) => !/^(0|-?[1-9][0-9]*)$/.test(s));
const int = fc.bigInt(-(2n ** 63n), 2n ** 63n - 1n);
const propertyName = fc.stringMatching(/^[a-zA-Z_][a-zA-Z0-9_]{0,8}$/);

const { value: model } = fc.letrec<{ value: Model }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant<Model>({ t: 'null' }),
    fc.boolean().map<Model>((v) => ({ t: 'bool', v })),
    int.map<Model>((v) => ({ t: 'int', v })),
    fc
      .double({ noNaN: true, noDefaultInfinity: true, min: -1e15, max: 1e15 })
      .filter((v) => !Number.isInteger(v) && Math.abs(v) >= 1e-4)
      .map<Model>((v) => ({ t: 'float', v })),
    text.map<Model>((v) => ({ t: 'string', v })),
    fc
      .array(tie('value'), { maxLength: 4 })
      .map<Model>((items) => ({ t: 'array', entries: items.map((m, i) => [BigInt(i), m]) })),
    fc
      .uniqueArray(fc.tuple(fc.oneof(int, fc.bigInt(0n, 5n), stringKey), tie('value')), {
        maxLength: 4,
        selector: ([k]) => k,
      })
      .map<Model>((entries) => ({ t: 'array', entries })),
    fc
      .tuple(
        fc.constantFrom(...CLASS_NAMES),
        fc.uniqueArray(
          fc.tuple(
            propertyName,
            fc.constantFrom<Visibility | 'parent-private'>('public', 'protected', 'private', 'parent-private'),
            tie('value'),
          ),
          {
            maxLength: 4,
            selector: ([name, visibility]) => `${visibility}:${name}`,
          },
        ),
      )
      .map<Model>(([className, props]) => ({
        t: 'object',
        className,
        properties: props.map(([name, v, value]) =>
          v === 'parent-private'
            ? { name, visibility: 'private', declaringClass: PARENT, value }
            : { name, visibility: v, ...(v === 'private' ? { declaringClass: className } : {}), value },
        ),
      })),
  ),
}));

// larq's value for a model.
function ours(m: Model): PhpValue {
  switch (m.t) {
    case 'null':
      return null;
    case 'bool':
    case 'int':
    case 'float':
    case 'string':
      return m.v;
    case 'array':
      return new PhpArray(m.entries.map(([k, v]) => [k, ours(v)]));
    case 'object':
      return new PhpObject(
        m.className,
        m.properties.map((p) => ({
          name: p.name,
          visibility: p.visibility,
          ...(p.declaringClass ? { declaringClass: p.declaringClass } : {}),
          value: ours(p.value),
        })),
      );
  }
}

// php-serialize's classes are JS classes found by instanceof in a scope keyed by the PHP class name.
const scope: Record<string, new () => object> = Object.fromEntries(CLASS_NAMES.map((name) => [name, class {}]));

// php-serialize's value for a model: ints as bigint, arrays as a list or a Map (keeps key types and
// order), objects as instances whose own keys are PHP's mangled property names.
function theirs(m: Model): unknown {
  switch (m.t) {
    case 'null':
      return null;
    case 'bool':
    case 'int':
    case 'float':
    case 'string':
      return m.v;
    case 'array':
      return isList(m.entries)
        ? m.entries.map(([, v]) => theirs(v))
        : new Map(m.entries.map(([k, v]) => [k, theirs(v)]));
    case 'object': {
      const object = new scope[m.className]() as Record<string, unknown>;
      for (const p of m.properties) object[mangled(p)] = theirs(p.value);
      return object;
    }
  }
}

function isList(entries: [PhpArrayKey, Model][]): boolean {
  return entries.every(([k], i) => k === BigInt(i));
}

function mangled(p: { name: string; visibility: Visibility; declaringClass?: string }): string {
  if (p.visibility === 'public') return p.name;
  return p.visibility === 'protected' ? `\0*\0${p.name}` : `\0${p.declaringClass}\0${p.name}`;
}

// What php-serialize's unserialize gives for a model's bytes, in comparable form: ints as numbers (bigint
// when a number would change the digits), lists as arrays, other arrays as objects keyed in JS's order, objects as their class name
// and properties with the object's own visibility prefixes removed.
function theirReading(m: Model): unknown {
  switch (m.t) {
    case 'null':
      return null;
    case 'bool':
    case 'float':
    case 'string':
      return m.v;
    case 'int':
      return readInt(m.v);
    case 'array': {
      if (isList(m.entries)) return m.entries.map(([, v]) => theirReading(v));
      const record: Record<string, unknown> = {};
      for (const [k, v] of m.entries) record[String(k)] = theirReading(v);
      return { entries: Object.entries(record) };
    }
    case 'object': {
      const record: Record<string, unknown> = {};
      const own = `\0${m.className}\0`;
      for (const p of m.properties) {
        const key = mangled(p);
        record[key.startsWith('\0*\0') ? key.slice(3) : key.startsWith(own) ? key.slice(own.length) : key] =
          theirReading(p.value);
      }
      return { className: m.className, entries: Object.entries(record) };
    }
  }
}

// php-serialize keeps an int as a number when the number prints the same digits, else as a bigint.
function readInt(v: bigint): number | bigint {
  const n = Number(v);
  return String(n) === v.toString() ? n : v;
}

// php-serialize's output in the same comparable form.
function comparable(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(comparable);
  if (typeof value !== 'object' || value === null) return value;
  const record = value as Record<string, unknown>;
  const entries = Object.entries(record)
    .filter(([k]) => k !== '__PHP_Incomplete_Class_Name')
    .map(([k, v]) => [k, comparable(v)]);
  return '__PHP_Incomplete_Class_Name' in record
    ? { className: record.__PHP_Incomplete_Class_Name, entries }
    : { entries };
}

// larq's reading as a model, keeping every distinction PHP's format makes.
function modelOf(value: PhpValue): Model {
  if (value === null) return { t: 'null' };
  if (typeof value === 'boolean') return { t: 'bool', v: value };
  if (typeof value === 'bigint') return { t: 'int', v: value };
  if (typeof value === 'number') return { t: 'float', v: value };
  if (typeof value === 'string') return { t: 'string', v: value };
  if (value instanceof PhpArray) return { t: 'array', entries: [...value.entries].map(([k, v]) => [k, modelOf(v)]) };
  if (value instanceof PhpObject) {
    return {
      t: 'object',
      className: value.className,
      properties: value.properties.map((p) => ({
        name: p.name,
        visibility: p.visibility,
        ...(p.declaringClass ? { declaringClass: p.declaringClass } : {}),
        value: modelOf(p.value),
      })),
    };
  }
  throw new Error(`unexpected value in the shared subset: ${String(value)}`);
}

describe('serialize and unserialize against php-serialize (property-based)', function () {
  this.timeout(120_000);

  it(`agree on ${CASES} random PHP values: same bytes, and each reads the other's`, () => {
    fc.assert(
      fc.property(model, (m) => {
        const ourBytes = serialize(ours(m));
        const theirBytes = theirSerialize(theirs(m), scope);
        expect(ourBytes, 'the bytes each writes').to.equal(theirBytes);
        expect(
          comparable(theirUnserialize(ourBytes, {}, { strict: false })),
          'php-serialize reading larq',
        ).to.deep.equal(theirReading(m));
        expect(modelOf(unserialize(theirBytes)), 'larq reading php-serialize').to.deep.equal(m);
      }),
      { numRuns: CASES },
    );
  });

  it('generates every kind of value in the subset, nested', () => {
    const kinds = new Set<string>();
    const visit = (m: Model, depth: number): void => {
      kinds.add(m.t);
      if (depth > 0) kinds.add(`nested ${m.t}`);
      if (m.t === 'array') {
        if (!isList(m.entries)) kinds.add('map');
        if (m.entries.some(([k]) => typeof k === 'string')) kinds.add('string key');
        for (const [, v] of m.entries) visit(v, depth + 1);
      }
      if (m.t === 'object')
        for (const p of m.properties)
          (kinds.add(p.declaringClass === PARENT ? 'parent private' : p.visibility), visit(p.value, depth + 1));
    };
    for (const m of fc.sample(model, { numRuns: 2000, seed: 1 })) visit(m, 0);
    for (const kind of [
      'null',
      'bool',
      'int',
      'float',
      'string',
      'array',
      'object',
      'map',
      'string key',
      'public',
      'protected',
      'private',
      'parent private',
      'nested array',
      'nested object',
    ]) {
      expect(kinds, kind).to.include(kind);
    }
  });
});
