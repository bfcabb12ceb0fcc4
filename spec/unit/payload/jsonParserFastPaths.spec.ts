// The exact JSON reader assigns a new key directly and only falls back to defineProperty for a key that
// is already there (repeated in the text) or inherited ("__proto__", "toString"); it finds the plain runs
// of a string without allocating. These specs pin the hand-over: same keys, order, values and attributes.
import { expect } from 'chai';
import { KEY_ORDER, parseJsonExact } from '../../../lib/payload/jsonParser';

const DATA = { enumerable: true, writable: true, configurable: true };

function descriptors(value: unknown): Record<string, unknown> {
  const object = value as object;
  return Object.fromEntries(Object.keys(object).map((k) => [k, Object.getOwnPropertyDescriptor(object, k)]));
}

describe('parseJsonExact fast paths', () => {
  it('makes ordinary data properties of new keys, and of inherited names without touching the prototype', () => {
    const decoded = parseJsonExact(
      '{"a":1,"toString":2,"__proto__":{"x":3},"constructor":4,"hasOwnProperty":5}',
    ) as Record<string, unknown>;
    expect(Object.getPrototypeOf(decoded)).to.equal(Object.prototype);
    expect(descriptors(decoded)).to.deep.equal({
      a: { value: 1, ...DATA },
      toString: { value: 2, ...DATA },
      ['__proto__']: { value: { x: 3 }, ...DATA },
      constructor: { value: 4, ...DATA },
      hasOwnProperty: { value: 5, ...DATA },
    });
  });

  it('gives a repeated key its last value at its first position, as json_decode does', () => {
    const decoded = parseJsonExact('{"a":1,"b":2,"a":3,"__proto__":4,"__proto__":5}') as Record<string, unknown>;
    expect(Object.keys(decoded)).to.deep.equal(['a', 'b', '__proto__']);
    expect(descriptors(decoded)).to.deep.equal({
      a: { value: 3, ...DATA },
      b: { value: 2, ...DATA },
      ['__proto__']: { value: 5, ...DATA },
    });
  });

  it('records the text order of numeric keys once, repeated keys included', () => {
    const decoded = parseJsonExact('{"b":1,"1":2,"0":3,"b":4}') as Record<string | symbol, unknown>;
    expect(decoded[KEY_ORDER]).to.deep.equal(['b', '1', '0']);
    expect(decoded.b).to.equal(4);
  });

  it('joins plain runs and escapes of a string, including a serialized command', () => {
    expect(parseJsonExact('"O:8:\\"stdClass\\":1:{s:4:\\"\\u0000*\\u0000p\\";s:3:\\"a\\/\\\\\\";}"')).to.equal(
      'O:8:"stdClass":1:{s:4:"\0*\0p";s:3:"a/\\";}',
    );
    expect(parseJsonExact('["", "plain", "\\"", "a\\nb", "\\ud83d\\ude00é"]')).to.deep.equal([
      '',
      'plain',
      '"',
      'a\nb',
      '😀é',
    ]);
    expect(() => parseJsonExact('"abc')).to.throw(
      'Invalid JSON at character 4: unterminated string (found end of input)',
    );
    expect(() => parseJsonExact('"a\u0001"')).to.throw('Invalid JSON at character 2: control character in a string');
  });
});
