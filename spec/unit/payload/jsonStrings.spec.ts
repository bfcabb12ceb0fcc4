// phpJsonEncode's fast paths for strings and integers: plain short strings are quoted as they are, ASCII
// without `/` goes to JSON.stringify alone, short escaped strings are remembered, integral numbers skip
// PHP's float formatting. Each is checked where it hands over to the full path: `/`, U+2028/U+2029, other
// wide characters, lengths either side of the limits, lone surrogates, -0 and huge numbers.
import { expect } from 'chai';
import { SerializeError } from '../../../lib/errors';
import { phpJsonEncode, phpJsonEncodeMember, type PhpJsonEncodeOptions } from '../../../lib/payload/json';
import { formatPhpFloat } from '../../../lib/php/float';

const FLAGS: PhpJsonEncodeOptions[] = [
  {},
  { unescapedUnicode: false },
  { unescapedSlashes: true },
  { unescapedUnicode: false, unescapedSlashes: true },
];

/** PHP's json_encode of a valid string, written out the slow way, character by character. */
function reference(s: string, { unescapedUnicode = true, unescapedSlashes = false }: PhpJsonEncodeOptions): string {
  let out = '"';
  for (const c of s) {
    const code = c.codePointAt(0)!;
    if (c === '"' || c === '\\') out += `\\${c}`;
    else if (c === '/') out += unescapedSlashes ? '/' : '\\/';
    else if (c === '\b') out += '\\b';
    else if (c === '\f') out += '\\f';
    else if (c === '\n') out += '\\n';
    else if (c === '\r') out += '\\r';
    else if (c === '\t') out += '\\t';
    else if (code < 0x20) out += `\\u${code.toString(16).padStart(4, '0')}`;
    else if (code === 0x2028 || code === 0x2029 || (code > 0x7f && !unescapedUnicode)) {
      for (const unit of code > 0xffff ? [c.charCodeAt(0), c.charCodeAt(1)] : [code])
        out += `\\u${unit.toString(16).padStart(4, '0')}`;
    } else out += c;
  }
  return `${out}"`;
}

const SPECIAL = ['/', '"', '\\', '\u2028', '\u2029', 'é', '\u0080', '中', '😀', '\x7f', '\0', '\n', '\x1f', '@', '-'];

describe('phpJsonEncode strings', () => {
  it('matches PHP for every special character at the start, middle and end of strings either side of the limits', () => {
    for (const length of [0, 1, 20, 23, 24, 47, 48, 62, 63, 64, 65, 200]) {
      for (const c of SPECIAL) {
        const half = 'a'.repeat(length >> 1);
        for (const s of [c + 'x'.repeat(length), 'x'.repeat(length) + c, half + c + half]) {
          for (const flags of FLAGS)
            expect(phpJsonEncode(s, flags), `${JSON.stringify(s)} ${JSON.stringify(flags)}`).to.equal(
              reference(s, flags),
            );
        }
      }
    }
  });

  it('writes the exact bytes for `/`, U+2028 and wide characters, short and long', () => {
    expect(phpJsonEncode('a/b')).to.equal('"a\\/b"');
    expect(phpJsonEncode('a/b', { unescapedSlashes: true })).to.equal('"a/b"');
    expect(phpJsonEncode(`${'x'.repeat(70)}/`)).to.equal(`"${'x'.repeat(70)}\\/"`);
    expect(phpJsonEncode('a\u2028b\u2029')).to.equal('"a\\u2028b\\u2029"');
    expect(phpJsonEncode(`${'x'.repeat(70)}\u2028`)).to.equal(`"${'x'.repeat(70)}\\u2028"`);
    expect(phpJsonEncode('café')).to.equal('"café"');
    expect(phpJsonEncode('café', { unescapedUnicode: false })).to.equal('"caf\\u00e9"');
    expect(phpJsonEncode('App\\Jobs\\Send"Mail"')).to.equal('"App\\\\Jobs\\\\Send\\"Mail\\""');
  });

  it('gives a remembered escaped string back unchanged, under every flag set, also after the memory filled up', () => {
    const name = 'App\\Jobs\\Remembered';
    for (let round = 0; round < 3; round++)
      for (const flags of FLAGS) expect(phpJsonEncode(name, flags)).to.equal('"App\\\\Jobs\\\\Remembered"');
    for (let i = 0; i < 3000; i++) expect(phpJsonEncode(`N\\${i}"`)).to.equal(`"N\\\\${i}\\""`);
    expect(phpJsonEncode(name)).to.equal('"App\\\\Jobs\\\\Remembered"');
  });

  it('still names a lone surrogate in short and long strings, also once the same prefix was written', () => {
    expect(phpJsonEncode('ab')).to.equal('"ab"');
    expect(() => phpJsonEncode('ab\udc00')).to.throw(SerializeError, /U\+DC00 at index 2/);
    expect(() => phpJsonEncode(`${'a'.repeat(70)}\ud800`)).to.throw(SerializeError, /U\+D800 at index 70/);
    expect(() => phpJsonEncode({ [`k\ud800`]: 1 })).to.throw(SerializeError, /U\+D800 at index 1/);
  });
});

describe('phpJsonEncode numbers', () => {
  it('writes integral numbers as PHP writes the float, -0 and the edges of exact integers included', () => {
    const numbers = [
      0,
      -0,
      1,
      -1,
      42,
      1795276770,
      1e15,
      2 ** 53 - 1,
      -(2 ** 53 - 1),
      2 ** 53,
      1e17,
      1e21,
      -1e21,
      1.5,
      0.1,
      1e-7,
    ];
    for (const n of numbers) expect(phpJsonEncode(n), String(n)).to.equal(formatPhpFloat(n, 'e'));
    expect(phpJsonEncode([0, -0, 2 ** 53])).to.equal('[0,-0,9007199254740992]');
  });
});

describe('phpJsonEncodeMember', () => {
  it('writes what phpJsonEncode writes for the same value inside a Map', () => {
    const values: unknown[] = ['a/b', 'é', 7, -0, null, true, [1, { x: 'y' }], new Map([['k', 1]]), 12n];
    for (const v of values) expect(`{"k":${phpJsonEncodeMember(v)}}`).to.equal(phpJsonEncode(new Map([['k', v]])));
  });

  it('counts depth from inside the top-level container', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 512; i++) deep = [deep];
    expect(() => phpJsonEncodeMember(deep)).to.throw(SerializeError, /depth/);
    expect(() => phpJsonEncode(new Map([['k', deep]]))).to.throw(SerializeError, /depth/);
    expect(() => phpJsonEncode(deep)).not.to.throw();
  });
});
