// serializeToJsonString writes a command directly as the JSON string a payload holds, escaping piece by
// piece, and writes the objects of a class it has seen before from a remembered layout of their property
// keys. It must give exactly phpJsonEncode(serialize(value)), or throw what that throws: checked here for
// every character json_encode escapes, in values, keys and names; raw bytes (where it starts again the
// long way); layouts that stop fitting; more classes and names than any of its maps holds. As serialize()
// shares those layouts, objects are also checked against a plain reference writer that remembers nothing.
import { expect } from 'chai';
import { phpJsonEncode } from '../../../lib/payload/json';
import { formatPhpFloat } from '../../../lib/php/float';
import { serialize, serializeToJsonString } from '../../../lib/php/serialize';
import {
  PhpArray,
  PhpBytes,
  PhpCustomObject,
  PhpEnum,
  PhpObject,
  PhpReference,
  type PhpProperty,
  type PhpValue,
} from '../../../lib/php/values';

const pub = (name: string, value: PhpValue): PhpProperty => ({ name, visibility: 'public', value });
const prot = (name: string, value: PhpValue): PhpProperty => ({ name, visibility: 'protected', value });
const priv = (name: string, declaringClass: string, value: PhpValue): PhpProperty => ({
  name,
  visibility: 'private',
  declaringClass,
  value,
});

/** The outcome of a writer: its text, or the error's class and message. */
function outcome(write: () => string): string {
  try {
    return write();
  } catch (e) {
    return `${(e as Error).constructor.name}: ${(e as Error).message}`;
  }
}

/** serializeToJsonString against the long way, twice, so the second goes through what the first remembered. */
function same(value: PhpValue, label = ''): string {
  const expected = outcome(() => phpJsonEncode(serialize(value)));
  for (let twice = 0; twice < 2; twice++)
    expect(
      outcome(() => serializeToJsonString(value)),
      label,
    ).to.equal(expected);
  return expected;
}

const mangled = (p: PhpProperty) =>
  p.visibility === 'public'
    ? p.name
    : p.visibility === 'protected'
      ? `\0*\0${p.name}`
      : `\0${p.declaringClass}\0${p.name}`;

/** PHP's serialize() of valid text values, written out the slow way with nothing remembered. */
function reference(value: PhpValue): string {
  const text = (s: string) => `s:${Buffer.byteLength(s)}:"${s}";`;
  if (value === null) return 'N;';
  if (typeof value === 'boolean') return value ? 'b:1;' : 'b:0;';
  if (typeof value === 'bigint') return `i:${value};`;
  if (typeof value === 'number') return `d:${formatPhpFloat(value, 'E')};`;
  if (typeof value === 'string') return text(value);
  if (value instanceof PhpArray) {
    return `a:${value.size}:{${[...value.entries].map(([k, v]) => (typeof k === 'bigint' ? `i:${k};` : text(k)) + reference(v)).join('')}}`;
  }
  if (value instanceof PhpObject) {
    const body = value.properties.map((p) => text(mangled(p)) + reference(p.value)).join('');
    return `O:${Buffer.byteLength(value.className)}:"${value.className}":${value.properties.length}:{${body}}`;
  }
  throw new Error('reference: not written here');
}

/** json_encode(JSON_UNESCAPED_UNICODE) of a valid string, by JSON.stringify and the two differences. */
const jsonReference = (s: string) =>
  JSON.stringify(s).replace(/[/\u2028\u2029]/g, (c) => (c === '/' ? '\\/' : `\\u${c.charCodeAt(0).toString(16)}`));

/** same(), and the text the reference writers give. */
function exact(value: PhpValue, label = ''): void {
  expect(same(value, label), label).to.equal(jsonReference(reference(value)));
}

const SPECIAL = [
  '/',
  '"',
  '\\',
  '\u2028',
  '\u2029',
  'é',
  '\u0080',
  '中',
  '😀',
  '\x7f',
  '\0',
  '\n',
  '\t',
  '\x1f',
  '</script>',
  '',
];

describe('serializeToJsonString', () => {
  it('escapes every special character in string values, short and long, as json_encode escapes the serialized text', () => {
    for (const c of SPECIAL) {
      for (const length of [0, 1, 23, 24, 63, 64, 65, 200]) {
        const s = `${'a'.repeat(length >> 1)}${c}${'b'.repeat(length >> 1)}`;
        exact(s, JSON.stringify(s));
        exact(
          new PhpObject('App\\Jobs\\Esc', [pub('v', s), prot('w', c + s), priv('x', 'App\\Base', s + c)]),
          JSON.stringify(s),
        );
      }
    }
    expect(serializeToJsonString(new PhpObject('A/B', [pub('p/q', 'x/é\u2028')]))).to.equal(
      '"O:3:\\"A\\/B\\":1:{s:3:\\"p\\/q\\";s:7:\\"x\\/é\\u2028\\";}"',
    );
  });

  it('escapes class names, property names, array keys and enum cases that need it', () => {
    for (const c of SPECIAL) {
      const name = `N${c}`;
      exact(
        new PhpObject(`App\\${name}`, [pub(name, null), prot(name, 1n), priv(name, `Base${c}`, true)]),
        JSON.stringify(name),
      );
      exact(
        new PhpArray([
          [name, name],
          [7n, PhpArray.list([name])],
        ]),
        JSON.stringify(name),
      );
      same(new PhpEnum(`App\\Suit${c}`, `Hearts${c}`), JSON.stringify(name));
    }
  });

  it('writes every kind of value the same: ints, floats, bools, null, nested arrays and objects, references', () => {
    const inner = new PhpObject('App\\Inner', [pub('a', 1.5), pub('b', -0), pub('c', 1e25)]);
    same(
      new PhpObject('App\\Jobs\\All', [
        pub('ints', PhpArray.list([0n, -1n, 2n ** 63n - 1n, -(2n ** 63n)])),
        pub('floats', PhpArray.list([0.1, -2.5e-10, NaN, Infinity, -Infinity, 2 ** 53])),
        pub('bools', PhpArray.list([true, false, null])),
        pub('empty', new PhpArray()),
        pub('inner', inner),
        pub('again', new PhpReference('r', 9, inner)),
        pub('ref', new PhpReference('R', 2)),
        pub(
          'map',
          new PhpArray([
            ['x', new PhpArray([[1n, new PhpArray()]])],
            [5n, 'y'],
          ]),
        ),
      ]),
    );
  });

  it('gives the same text for PhpBytes and C: payloads, and the same error when the bytes are not UTF-8', () => {
    same(new PhpObject('J', [pub('a', new PhpBytes(Buffer.from('中é/"'))), pub('b', 'x/')]));
    same(PhpArray.list(['é', new PhpBytes(Buffer.from([0xff, 0x00]))]));
    same(new PhpObject('J', [pub('raw', new PhpBytes(Buffer.from([0xc3]))), pub('after', '\ud800')]));
    same(PhpArray.list([new PhpCustomObject('Legacy', Buffer.from('ok/"')), 'é']));
    same(PhpArray.list([new PhpCustomObject('Legacy', Buffer.from([0xfe]))]));
    expect(same(new PhpObject('J', [pub('a', new PhpBytes(Buffer.from([0xff])))]))).to.match(
      /^SerializeError: .*not valid UTF-8/,
    );
  });

  it('throws what serialize throws: lone surrogates, twice-written names, cycles, ints out of range, non-PHP values', () => {
    const self = new PhpObject('App\\Self', []);
    self.properties.push(pub('me', self));
    const loop = new PhpArray();
    loop.entries.set(0n, loop);
    const cases: PhpValue[] = [
      'a\ud800',
      new PhpObject('J', [pub('v', `${'x'.repeat(40)}\udc00`)]),
      new PhpObject('J\ud800', []),
      new PhpObject('J', [pub('k\udc00', null)]),
      new PhpObject('J', [pub('a', 1n), pub('a', 2n)]),
      new PhpObject('J', [{ name: 'p', visibility: 'private', value: null }]),
      loop,
      new PhpObject('J', [pub('n', 2n ** 63n)]),
      new PhpObject('J', [pub('v', undefined as unknown as PhpValue)]),
      new PhpObject('J', [pub('v', {} as unknown as PhpValue)]),
      new PhpObject('J', [pub('v', new PhpReference('r', 5))]),
      PhpArray.list(['x', new PhpReference('r', 2)]),
      new PhpEnum('E', 'a:b'),
    ];
    for (const value of cases) expect(same(value)).to.match(/Error: /);
    // an object holding itself is no error: PHP writes `r:` to it
    expect(same(self)).to.equal('"O:8:\\"App\\\\Self\\":1:{s:2:\\"me\\";r:1;}"');
  });

  it('writes what each object holds now when a class comes back with other values, names, visibilities or counts', () => {
    const shapes: PhpProperty[][] = [
      [pub('a', 1n), pub('b', null), pub('c', new PhpArray())],
      [pub('a', 'é/'), pub('b', 'x'), pub('c', PhpArray.list([null]))],
      [pub('a', null), prot('b', null), pub('c', null)],
      [pub('a', null), priv('b', 'App\\Jobs\\Shape', null), pub('c', null)],
      [pub('a', null), priv('b', 'App\\Base', null), pub('c', null)],
      [pub('a', null), pub('b', null)],
      [pub('a', null), pub('b', null), pub('c', null), pub('d', '\u2029')],
      [pub('c', null), pub('b', null), pub('a', null)],
      [pub('a', null), pub('a', 1n), pub('c', null)],
      [pub('a', null), prot('b', null), pub('\0*\0b', null)],
      [],
    ];
    for (let round = 0; round < 3; round++) {
      for (const props of shapes) {
        const label = JSON.stringify(props.map((p) => [p.name, p.visibility, p.declaringClass]));
        // a name written twice is an error, which the reference writer does not know of
        if (new Set(props.map(mangled)).size < props.length)
          expect(same(new PhpObject('App\\Jobs\\Shape', props), label)).to.match(/appears twice/);
        else exact(new PhpObject('App\\Jobs\\Shape', props), label);
      }
    }
    const object = new PhpObject('App\\Jobs\\Mutable', [pub('a', null), pub('b', 1n)]);
    exact(object);
    object.properties[1].value = 'now/é';
    exact(object);
    object.properties[0].name = 'renamed';
    exact(object);
    object.properties[0].visibility = 'protected';
    exact(object);
    object.properties.push(pub('c', null));
    exact(object);
    (object.properties as unknown[])[1] = null;
    expect(same(object)).to.match(/^TypeError: /);
  });

  it('keeps being right past the bounds of every remembered map and for objects too large to remember', () => {
    for (let i = 0; i < 5000; i++) {
      const name = i % 3 === 0 ? `p${i}/é` : `p${i}`;
      exact(new PhpObject(`App\\C${i}`, [pub(name, i % 2 === 0 ? null : `v${i}/`), prot('shared', BigInt(i))]));
    }
    for (let i = 0; i < 5000; i += 997)
      exact(new PhpObject(`App\\C${i}`, [pub(`p${i}`, 'again'), prot('shared', null)]));
    const wide = (n: number, value: PhpValue) =>
      new PhpObject(
        'App\\Wide',
        Array.from({ length: n }, (_, i) => pub(`w${i}`, i === n - 1 ? value : null)),
      );
    for (const n of [63, 64, 65, 200]) {
      exact(wide(n, 'é/'));
      exact(wide(n, 7n));
      same(new PhpObject('App\\Wide', [...wide(n, null).properties, pub('w0', null)]));
    }
  });
});
