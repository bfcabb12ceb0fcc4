// phpJsonEncode/phpJsonDecode against PHP 8.2's json_encode/json_decode. The expected texts were
// produced by PHP once and recorded here, so these specs run without PHP; the last block re-checks the
// recordings against a real `php` when there is one (and fails in CI when there is not).
import { spawnSync } from 'child_process';
import { expect } from 'chai';
import { phpJsonDecode, phpJsonEncode } from '../../../lib/payload/json';
import { InvalidPayloadError, SerializeError } from '../../../lib/errors';

interface EncodeVector {
  name: string;
  /** A PHP expression for the value. */
  php: string;
  /** The same value as larq is given it. */
  js: () => unknown;
  /** json_encode(value, JSON_UNESCAPED_UNICODE), or null when PHP refuses. */
  unicode: string | null;
  /** json_encode(value) with no flags, when it differs. */
  plain?: string;
}

const nested = (levels: number): unknown => {
  let v: unknown = 1;
  for (let i = 0; i < levels; i++) v = [v];
  return v;
};
const phpNested = (levels: number) =>
  `(function () { $a = 1; for ($i = 0; $i < ${levels}; $i++) $a = [$a]; return $a; })()`;

const ENCODE: EncodeVector[] = [
  {
    name: 'slashes and quotes',
    php: String.raw`"a/b \"q\" back\\slash"`,
    js: () => 'a/b "q" back\\slash',
    unicode: String.raw`"a\/b \"q\" back\\slash"`,
  },
  {
    name: 'control characters (DEL stays raw)',
    php: String.raw`"\x00\x01\x08\x09\x0a\x0b\x0c\x0d\x1f\x7f"`,
    js: () => '\x00\x01\x08\x09\x0a\x0b\x0c\x0d\x1f\x7f',
    unicode: String.raw`"\u0000\u0001\b\t\n\u000b\f\r\u001f` + '\x7f"',
  },
  {
    name: 'non-ASCII',
    php: '"naïve café 日本語 😀"',
    js: () => 'naïve café 日本語 😀',
    unicode: '"naïve café 日本語 😀"',
    plain: String.raw`"na\u00efve caf\u00e9 \u65e5\u672c\u8a9e \ud83d\ude00"`,
  },
  {
    name: 'line terminators',
    php: String.raw`"\u{2028}x\u{2029}"`,
    js: () => '\u2028x\u2029',
    unicode: String.raw`"\u2028x\u2029"`,
  },
  { name: 'HTML characters', php: `"<>&'"`, js: () => "<>&'", unicode: `"<>&'"` },
  { name: 'empty strings', php: '["", "0"]', js: () => ['', '0'], unicode: '["","0"]' },
  {
    name: 'integers',
    php: '[0, -7, 42, 9007199254740993, PHP_INT_MAX, PHP_INT_MIN]',
    js: () => [0, -7, 42, 9007199254740993n, 9223372036854775807n, -9223372036854775808n],
    unicode: '[0,-7,42,9007199254740993,9223372036854775807,-9223372036854775808]',
  },
  {
    name: 'floats',
    php: '[0.1, 1.5, 2.0, -0.0, 1e25, 1.5e-7, 0.0001, 0.00001, 1e15, 1e16, 1e17, 123456789.125, -2.5e-300, 5e-324, 1.7976931348623157e308, 0.30000000000000004]',
    js: () => [
      0.1,
      1.5,
      2.0,
      -0,
      1e25,
      1.5e-7,
      0.0001,
      0.00001,
      1e15,
      1e16,
      1e17,
      123456789.125,
      -2.5e-300,
      5e-324,
      1.7976931348623157e308,
      0.1 + 0.2,
    ],
    unicode:
      '[0.1,1.5,2,-0,1.0e+25,1.5e-7,0.0001,1.0e-5,1000000000000000,10000000000000000,1.0e+17,123456789.125,-2.5e-300,5.0e-324,1.7976931348623157e+308,0.30000000000000004]',
  },
  { name: 'literals', php: '[true, false, null]', js: () => [true, false, null], unicode: '[true,false,null]' },
  {
    name: 'empty array and empty object',
    php: '[[], new stdClass, ["k" => []], [[[]]]]',
    js: () => [[], {}, { k: [] }, [[[]]]],
    unicode: '[[],{},{"k":[]},[[[]]]]',
  },
  {
    name: 'array that is not a list',
    php: '[1 => "a", 2 => "b"]',
    js: () => ({ 1: 'a', 2: 'b' }),
    unicode: '{"1":"a","2":"b"}',
  },
  {
    name: 'numeric keys out of order (a Map in JS)',
    php: '["2" => "a", "1" => "b", "x" => "c"]',
    js: () =>
      new Map([
        ['2', 'a'],
        ['1', 'b'],
        ['x', 'c'],
      ]),
    unicode: '{"2":"a","1":"b","x":"c"}',
  },
  {
    name: 'keys needing escapes',
    php: String.raw`["a/b" => 1, "é" => 2, "\n" => 3, "" => 4]`,
    js: () => ({ 'a/b': 1, é: 2, '\n': 3, '': 4 }),
    unicode: String.raw`{"a\/b":1,"é":2,"\n":3,"":4}`,
    plain: String.raw`{"a\/b":1,"\u00e9":2,"\n":3,"":4}`,
  },
  {
    name: 'serialized command',
    php: String.raw`"O:8:\"App\\Foo\":2:{s:1:\"a\";s:3:\"x/y\";s:6:\"\0*\0sec\";s:2:\"é\";}"`,
    js: () => 'O:8:"App\\Foo":2:{s:1:"a";s:3:"x/y";s:6:"\0*\0sec";s:2:"é";}',
    unicode: String.raw`"O:8:\"App\\Foo\":2:{s:1:\"a\";s:3:\"x\/y\";s:6:\"\u0000*\u0000sec\";s:2:\"é\";}"`,
    plain: String.raw`"O:8:\"App\\Foo\":2:{s:1:\"a\";s:3:\"x\/y\";s:6:\"\u0000*\u0000sec\";s:2:\"\u00e9\";}"`,
  },
  {
    name: 'nested',
    php: '["a" => [1, ["b" => null]], "c" => ["d" => [true]]]',
    js: () => ({ a: [1, { b: null }], c: { d: [true] } }),
    unicode: '{"a":[1,{"b":null}],"c":{"d":[true]}}',
  },
  { name: 'NAN', php: 'NAN', js: () => NaN, unicode: null },
  { name: 'INF', php: 'INF', js: () => Infinity, unicode: null },
  {
    name: 'invalid UTF-8 (a lone surrogate in JS)',
    php: String.raw`"\xed\xa0\x80"`,
    js: () => '\ud800',
    unicode: null,
  },
  {
    name: '512 levels of arrays',
    php: phpNested(512),
    js: () => nested(512),
    unicode: '['.repeat(512) + '1' + ']'.repeat(512),
  },
  { name: '513 levels of arrays', php: phpNested(513), js: () => nested(513), unicode: null },
];

/** [text, json_encode(json_decode(text, true), JSON_UNESCAPED_UNICODE)], null when json_decode fails. */
const DECODE: [string, string | null][] = [
  [
    '{"big":12345678901234567,"min":-9223372036854775808,"max":9223372036854775807}',
    '{"big":12345678901234567,"min":-9223372036854775808,"max":9223372036854775807}',
  ],
  ['[12345678901234567890,-12345678901234567890]', '[1.2345678901234567e+19,-1.2345678901234567e+19]'],
  ['[-0,-0.0,0.0,1.0,1e2,1E-7,2.50,-1.5e+300]', '[0,-0,0,1,100,1.0e-7,2.5,-1.5e+300]'],
  [String.raw`"\u00e9\ud83d\ude00\/\u2028\u0041"`, String.raw`"é😀\/\u2028A"`],
  [' { "a" :\t[ 1 ,\n2 ]\r} ', '{"a":[1,2]}'],
  ['{"2":"a","1":"b","x":{"10":1,"9":2}}', '{"2":"a","1":"b","x":{"10":1,"9":2}}'],
  ['{"a":1,"b":2,"a":3}', '{"a":3,"b":2}'],
  ['{"__proto__":{"x":1},"constructor":1}', '{"__proto__":{"x":1},"constructor":1}'],
  [String.raw`"\u0000\u001f` + '\x7f"', String.raw`"\u0000\u001f` + '\x7f"'],
  ['{"a":[],"b":[[]],"c":{"d":[]}}', '{"a":[],"b":[[]],"c":{"d":[]}}'],
  // what JSON.parse gets wrong, nested where only a walk of the whole value finds it
  [
    '{"a":[{"b":{"x":1,"7":2}}],"c":[[-0]],"d":{"e":[9007199254740993]}}',
    '{"a":[{"b":{"x":1,"7":2}}],"c":[[0]],"d":{"e":[9007199254740993]}}',
  ],
  ...[
    String.raw`"\ud800"`,
    String.raw`"\udc00"`,
    String.raw`{"k":[{"\udc00":1}]}`,
    String.raw`[[{"k":"a\ud800"}]]`,
    String.raw`"\ud800\u0041"`,
    '[1,]',
    '{"a":1,}',
    '01',
    "['x']",
    '[1] x',
    'NaN',
    '"\x01"',
    '.5',
    '1.',
    '+1',
    '-',
    '',
    '{"a"}',
    '{1:2}',
    String.raw`"\x"`,
    'tru',
    '[',
    '"abc',
  ].map((t): [string, null] => [t, null]),
];

describe('phpJsonEncode matches PHP json_encode', () => {
  for (const v of ENCODE) {
    it(v.name, () => {
      if (v.unicode === null) {
        expect(() => phpJsonEncode(v.js())).to.throw(SerializeError);
        expect(() => phpJsonEncode(v.js(), { unescapedUnicode: false })).to.throw(SerializeError);
        return;
      }
      expect(phpJsonEncode(v.js())).to.equal(v.unicode);
      expect(phpJsonEncode(v.js(), { unescapedUnicode: false }), 'plain json_encode').to.equal(v.plain ?? v.unicode);
    });
  }

  it('JSON_UNESCAPED_SLASHES leaves / alone', () => {
    expect(phpJsonEncode({ 'a/b': 'c/d' }, { unescapedSlashes: true })).to.equal('{"a/b":"c/d"}');
  });
});

describe('phpJsonDecode matches PHP json_decode (re-encoded)', () => {
  for (const [text, expected] of DECODE) {
    it(`${JSON.stringify(text)} ${expected === null ? 'is rejected' : ''}`, () => {
      if (expected === null) {
        expect(() => phpJsonDecode(text)).to.throw(InvalidPayloadError, /Invalid JSON/);
      } else {
        expect(phpJsonEncode(phpJsonDecode(text))).to.equal(expected);
      }
    });
  }
});

function phpAvailable(): boolean {
  return spawnSync('php', ['-v'], { encoding: 'utf8' }).status === 0;
}

/** Run a PHP script that prints JSON; the result decoded. */
function runPhp(script: string): unknown {
  const r = spawnSync('php', ['-d', 'display_errors=stderr'], { input: script, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`php failed: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

describe('the recorded PHP outputs still match real PHP', function () {
  before(function () {
    if (phpAvailable()) return;
    if (process.env.CI === 'true')
      throw new Error('php is required in CI to re-check the recorded json_encode outputs');
    this.skip();
  });

  const b64 = (s: string | null) => (s === null ? null : Buffer.from(s, 'base64').toString('utf8'));

  it('json_encode', () => {
    const script = `<?php
      $out = [];
      foreach ([${ENCODE.map((v) => v.php).join(',\n')}] as $x) {
        $u = json_encode($x, JSON_UNESCAPED_UNICODE); $p = json_encode($x);
        $out[] = [$u === false ? null : base64_encode($u), $p === false ? null : base64_encode($p)];
      }
      echo json_encode($out);`;
    const results = runPhp(script) as [string | null, string | null][];
    ENCODE.forEach((v, i) => {
      expect(b64(results[i][0]), v.name).to.equal(v.unicode);
      expect(b64(results[i][1]), `${v.name} (plain)`).to.equal(v.unicode === null ? null : (v.plain ?? v.unicode));
    });
  });

  it('json_decode', () => {
    const texts = DECODE.map(([t]) => `base64_decode('${Buffer.from(t, 'utf8').toString('base64')}')`);
    const script = `<?php
      $out = [];
      foreach ([${texts.join(',')}] as $t) {
        $d = json_decode($t, true);
        $out[] = json_last_error() ? null : base64_encode(json_encode($d, JSON_UNESCAPED_UNICODE));
      }
      echo json_encode($out);`;
    const results = runPhp(script) as (string | null)[];
    DECODE.forEach(([text, expected], i) => expect(b64(results[i]), text).to.equal(expected));
  });
});
