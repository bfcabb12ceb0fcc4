// What phpJsonEncode/phpJsonDecode do beyond PHP's behaviour: JS value mapping, keeping shapes and key
// order across decode -> encode, error positions, and the JSON.parse fast path agreeing with the exact reader.
import { expect } from 'chai';
import { phpJsonDecode, phpJsonEncode } from '../../../lib/payload/json';
import { parseJsonExact } from '../../../lib/payload/jsonParser';
import { InvalidPayloadError, SerializeError } from '../../../lib/errors';
import { loadFixtures, pushedPayloads } from '../../support/fixtures';

describe('phpJsonDecode', () => {
  it('keeps integers beyond 2^53 as bigint and smaller ones as number', () => {
    expect(phpJsonDecode('[9007199254740991,9007199254740992,-9007199254740993,1234567890123456]')).to.deep.equal([
      9007199254740991,
      9007199254740992n,
      -9007199254740993n,
      1234567890123456,
    ]);
  });

  it('reads integers beyond 64 bits as floats, like PHP', () => {
    expect(phpJsonDecode('[92233720368547758070]')).to.deep.equal([92233720368547758070]);
  });

  it('reads an integer -0 as 0 and a float -0.0 as -0', () => {
    const [a, b] = phpJsonDecode('[-0,-0.0]') as number[];
    expect(Object.is(a, 0)).to.equal(true);
    expect(Object.is(b, -0)).to.equal(true);
  });

  it('keeps {} and [] apart, at any depth, so re-encoding gives back the same text', () => {
    const text = '{"a":{},"b":[],"c":[{}],"d":{"e":[]}}';
    const v = phpJsonDecode(text) as Record<string, unknown>;
    expect(v.a).to.deep.equal({});
    expect(v.b).to.deep.equal([]);
    expect(phpJsonEncode(v)).to.equal(text);
  });

  it('keeps an object with keys 0..n-1 an object (PHP would re-encode it as a list)', () => {
    expect(phpJsonEncode(phpJsonDecode('{"0":"a","1":"b"}'))).to.equal('{"0":"a","1":"b"}');
  });

  it('keeps the text order of numeric keys; keys added later go last, deleted ones are dropped', () => {
    const v = phpJsonDecode('{"b":1,"10":2,"2":3}') as Record<string, unknown>;
    expect(Object.keys(v)).to.deep.equal(['2', '10', 'b']); // what JS itself enumerates
    v.z = 4;
    delete v['10'];
    expect(phpJsonEncode(v)).to.equal('{"b":1,"2":3,"z":4}');
  });

  it('stores a "__proto__" key as data without touching the prototype', () => {
    for (const text of ['{"__proto__":{"polluted":1}}', '{"__proto__":{"polluted":1},"1":2}']) {
      const v = phpJsonDecode(text) as Record<string, unknown>;
      expect(Object.getPrototypeOf(v)).to.equal(Object.prototype);
      expect(({} as Record<string, unknown>).polluted).to.equal(undefined);
      expect(phpJsonEncode(v)).to.equal(text);
    }
  });

  it('names the position of the error', () => {
    expect(() => phpJsonDecode('{"a":1,"b":}')).to.throw(
      InvalidPayloadError,
      /at character 11: expected a JSON value \(found '}'\)/,
    );
    expect(() => phpJsonDecode('{"a":1')).to.throw(InvalidPayloadError, /at character 6: .*found end of input/);
    expect(() => phpJsonDecode('"\\ud83d x"')).to.throw(
      InvalidPayloadError,
      /character 1: single unpaired UTF-16 surrogate/,
    );
  });

  it('reports nesting too deep for the exact reader as InvalidPayloadError, not RangeError', () => {
    const deep = '[' + '{"1":['.repeat(100000) + ']}'.repeat(100000) + ']';
    expect(() => phpJsonDecode(deep)).to.throw(InvalidPayloadError, /nested too deeply/);
  });

  it('gives the same result through the JSON.parse fast path and the exact reader', () => {
    const texts = loadFixtures().flatMap((f) => [...pushedPayloads(f), ...(f.popped ? [f.popped.reserved] : [])]);
    texts.push('{"a":[1,2.5,-3e5,"x\\n\\u00e9"],"b":{"c":null,"d":true,"e":false},"f":""}');
    for (const t of texts) expect(phpJsonDecode(t)).to.deep.equal(parseJsonExact(t));
  });
});

describe('phpJsonEncode', () => {
  it('writes Maps as objects in insertion order, empty ones as {}', () => {
    expect(
      phpJsonEncode(
        new Map<unknown, unknown>([
          [2, 'a'],
          ['x', new Map()],
        ]),
      ),
    ).to.equal('{"2":"a","x":{}}');
  });

  it('leaves out undefined properties and writes undefined list items as null', () => {
    expect(phpJsonEncode({ a: undefined, b: [undefined, 1] })).to.equal('{"b":[null,1]}');
  });

  it('uses toJSON when a value has one (a Date becomes its ISO text)', () => {
    expect(phpJsonEncode({ at: new Date(Date.UTC(2026, 0, 2, 3, 4, 5)) })).to.equal(
      '{"at":"2026-01-02T03:04:05.000Z"}',
    );
  });

  it('refuses functions, symbols, undefined at the top, cycles and NaN, naming the problem', () => {
    expect(() => phpJsonEncode({ f: () => 1 })).to.throw(SerializeError, /function/);
    expect(() => phpJsonEncode([Symbol('s')])).to.throw(SerializeError, /symbol/);
    expect(() => phpJsonEncode(undefined)).to.throw(SerializeError, /undefined/);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => phpJsonEncode(cyclic)).to.throw(SerializeError, /depth/);
    expect(() => phpJsonEncode({ n: NaN })).to.throw(SerializeError, /NaN/);
  });

  it('names the index of a lone surrogate', () => {
    expect(() => phpJsonEncode('ab\udc00')).to.throw(SerializeError, /U\+DC00 at index 2/);
  });

  it('writes valid surrogate pairs raw, or as two escapes without JSON_UNESCAPED_UNICODE', () => {
    expect(phpJsonEncode('𝄞')).to.equal('"𝄞"');
    expect(phpJsonEncode('𝄞', { unescapedUnicode: false })).to.equal('"\\ud834\\udd1e"');
  });
});
