// Vectors below were written by PHP 8.2's serialize() (see the php -r snippets next to them).
import { expect } from 'chai';
import { unserialize } from '../../../lib/php/unserialize';
import { unserializeFailure as failure } from '../../support/unserializeFailure';
import { PhpArray, PhpBytes, PhpCustomObject, PhpEnum, PhpObject, PhpReference } from '../../../lib/php/values';

function list(v: unknown): unknown[] {
  expect(v).to.be.instanceOf(PhpArray);
  return [...(v as PhpArray).entries.values()];
}

describe('unserialize', () => {
  describe('scalars', () => {
    it('reads null and booleans', () => {
      expect(unserialize('N;')).to.equal(null);
      expect(unserialize('b:1;')).to.equal(true);
      expect(unserialize('b:0;')).to.equal(false);
    });

    it('reads ints as exact bigints, including the 64-bit limits', () => {
      // serialize([0, -1, PHP_INT_MAX, PHP_INT_MIN, 9007199254740993])
      const v = unserialize(
        'a:5:{i:0;i:0;i:1;i:-1;i:2;i:9223372036854775807;i:3;i:-9223372036854775808;i:4;i:9007199254740993;}',
      );
      expect(list(v)).to.deep.equal([0n, -1n, 9223372036854775807n, -9223372036854775808n, 9007199254740993n]);
    });

    it('reads floats as numbers, keeping d:2 apart from i:2', () => {
      // serialize([2.0, -0.0, 0.1, 1e25, 1.5e-7, NAN, INF, -INF, 1e15, 123456789012345678.0])
      const v = list(
        unserialize(
          'a:10:{i:0;d:2;i:1;d:-0;i:2;d:0.1;i:3;d:1.0E+25;i:4;d:1.5E-7;i:5;d:NAN;i:6;d:INF;i:7;d:-INF;i:8;d:1000000000000000;i:9;d:1.2345678901234568E+17;}',
        ),
      );
      expect(v[0]).to.be.a('number').and.equal(2);
      expect(Object.is(v[1], -0)).to.equal(true);
      expect(v.slice(2, 5)).to.deep.equal([0.1, 1e25, 1.5e-7]);
      expect(Number.isNaN(v[5])).to.equal(true);
      expect(v.slice(6)).to.deep.equal([Infinity, -Infinity, 1e15, 123456789012345678]);
      expect(unserialize('i:2;')).to.equal(2n);
    });
  });

  describe('strings', () => {
    it('uses byte lengths and needs no escaping for quotes, semicolons or NUL', () => {
      expect(unserialize('s:5:"é/ü";')).to.equal('é/ü');
      expect(unserialize('s:7:"a"b;c\0d";')).to.equal('a"b;c\0d');
      expect(unserialize('s:0:"";')).to.equal('');
    });

    it('gives PhpBytes for invalid UTF-8 and keeps a byte-order mark', () => {
      // base64 of serialize(["", "é/ü", "a\"b;c\0d", "\xff\xfe", "\xEF\xBB\xBFbom"])
      const bytes = Buffer.from(
        'YTo1OntpOjA7czowOiIiO2k6MTtzOjU6IsOpL8O8IjtpOjI7czo3OiJhImI7YwBkIjtpOjM7czoyOiL//iI7aTo0O3M6Njoi77u/Ym9tIjt9',
        'base64',
      );
      const v = list(unserialize(bytes));
      expect(v[3]).to.be.instanceOf(PhpBytes);
      expect((v[3] as PhpBytes).bytes).to.deep.equal(Buffer.from([0xff, 0xfe]));
      expect(v[4]).to.equal('\uFEFFbom');
    });

    it('reads a JS string input as its UTF-8 bytes', () => {
      expect(unserialize(Buffer.from('s:2:"é";'))).to.equal('é');
      expect(unserialize('s:2:"é";')).to.equal('é');
    });
  });

  describe('arrays', () => {
    it('keeps int and string keys apart and in order', () => {
      // serialize([5 => 'a', 'k' => 'b', '-3' => 'c', '07' => 'd'])
      const v = unserialize('a:4:{i:5;s:1:"a";s:1:"k";s:1:"b";i:-3;s:1:"c";s:2:"07";s:1:"d";}') as PhpArray;
      expect([...v.entries.keys()]).to.deep.equal([5n, 'k', -3n, '07']);
      expect(v.isList()).to.equal(false);
      expect((unserialize('a:2:{i:0;s:1:"x";i:1;s:1:"y";}') as PhpArray).isList()).to.equal(true);
    });
  });

  describe('objects', () => {
    it('demangles public, protected and private names with the declaring class', () => {
      // class Base { private $x = 'base'; protected $p = 1; } class Child extends Base { public $x = 'child'; }
      const v = unserialize(
        'O:5:"Child":3:{s:7:"\0Base\0x";s:4:"base";s:4:"\0*\0p";i:1;s:1:"x";s:5:"child";}',
      ) as PhpObject;
      expect(v.className).to.equal('Child');
      expect(v.properties).to.deep.equal([
        { name: 'x', visibility: 'private', declaringClass: 'Base', value: 'base' },
        { name: 'p', visibility: 'protected', value: 1n },
        { name: 'x', visibility: 'public', value: 'child' },
      ]);
    });

    it('reads enum cases', () => {
      const v = unserialize('E:23:"App\\Enums\\Status:Active";');
      expect(v).to.deep.equal(new PhpEnum('App\\Enums\\Status', 'Active'));
    });

    it('keeps C: custom objects as opaque bytes', () => {
      const v = unserialize('C:3:"Foo":6:{a}b;c}}') as PhpCustomObject;
      expect(v).to.be.instanceOf(PhpCustomObject);
      expect(v.className).to.equal('Foo');
      expect(v.data.toString()).to.equal('a}b;c}');
    });
  });

  describe('references', () => {
    it('numbers slots as PHP does: r: takes a slot, keys do not', () => {
      // $a = new stdClass; $b = new stdClass; serialize(['a'=>$a, 'b'=>$b, 'a2'=>$a, 'b2'=>$b])
      const v = unserialize(
        'a:4:{s:1:"a";O:8:"stdClass":0:{}s:1:"b";O:8:"stdClass":0:{}s:2:"a2";r:2;s:2:"b2";r:3;}',
      ) as PhpArray;
      const a2 = v.entries.get('a2') as PhpReference;
      const b2 = v.entries.get('b2') as PhpReference;
      expect(a2).to.deep.include({ kind: 'r', index: 2 });
      expect(a2.target).to.equal(v.entries.get('a'));
      expect(b2.target).to.equal(v.entries.get('b'));
      // serialize([$a, $a, $b, $b]): $b sits in slot 4 because the r:2 before it took slot 3
      const w = list(unserialize('a:4:{i:0;O:8:"stdClass":0:{}i:1;r:2;i:2;O:8:"stdClass":0:{}i:3;r:4;}'));
      expect((w[3] as PhpReference).target).to.equal(w[2]);
    });

    it('resolves self references and R: references, where R: takes no slot', () => {
      // $o = new stdClass; $o->self = $o; $o->list = [1, 2]; $o->alias = &$o->list;
      const o = unserialize(
        'O:8:"stdClass":3:{s:4:"self";r:1;s:4:"list";a:2:{i:0;i:1;i:1;i:2;}s:5:"alias";R:3;}',
      ) as PhpObject;
      expect((o.get('self') as PhpReference).target).to.equal(o);
      expect((o.get('alias') as PhpReference).kind).to.equal('R');
      expect((o.get('alias') as PhpReference).target).to.equal(o.get('list'));
      // $x = 1; serialize([&$x, &$x, 5, &$x])
      const v = list(unserialize('a:4:{i:0;i:1;i:1;R:2;i:2;i:5;i:3;R:2;}'));
      expect((v[3] as PhpReference).target).to.equal(1n);
    });
  });

  describe('malformed input', () => {
    const cases: [string, string | Buffer, RegExp, number][] = [
      ['an empty input', '', /expected a value .* input ended/, 0],
      ['a truncated string', 's:5:"abc', /string of 5 byte\(s\) runs past the end/, 5],
      [
        'a string shorter than its length',
        's:2:"abc";',
        /expected '"' after 2 byte\(s\) of a string \(wrong length\?\), found 'c'/,
        7,
      ],
      [
        'a string longer than its length',
        's:4:"ab";',
        /expected '"' after 4 byte\(s\) of a string \(wrong length\?\), found the end/,
        9,
      ],
      ['an unknown type letter', 'x:1;', /unknown type letter 'x'/, 0],
      ['a nested unknown type letter', 'a:1:{i:0;Q;}', /unknown type letter 'Q'/, 9],
      ['trailing bytes', 'N;N;', /end of the input .* 2 trailing byte/, 2],
      ['a trailing newline', 'i:1;\n', /trailing byte/, 4],
      ['a truncated array', 'a:2:{i:0;i:1;', /expected an array key .* end of the input/, 13],
      ['a missing closing brace', 'a:1:{i:0;i:1;i:1;i:2;}', /expected '}' to close an array of 1 element/, 13],
      ['an int without digits', 'i:;', /expected an integer, found ""/, 2],
      ['an int out of range', 'i:9223372036854775808;', /outside PHP's 64-bit range/, 2],
      ['a bad float', 'd:1.2.3;', /expected a float, found "1.2.3"/, 2],
      ['a bad bool', 'b:2;', /expected 0 or 1 in a bool/, 2],
      ['a missing semicolon', 'N', /expected ';' after N, found the end of the input/, 1],
      ['an array key that is not i or s', 'a:1:{d:1;i:1;}', /expected an array key \(i or s\)/, 5],
      ['a duplicate array key', 'a:2:{i:0;i:1;i:0;i:2;}', /duplicate array key 0/, 13],
      ['a back-reference to nothing', 'a:1:{i:0;r:5;}', /r:5 refers to no earlier value/, 9],
      ['a back-reference to slot 0', 'a:1:{i:0;R:0;}', /R:0 refers to no earlier value/, 9],
      ['r: pointing at a non-object', 'a:2:{i:0;i:7;i:1;r:2;}', /r:2 must refer to an object/, 17],
      ['a corrupt mangled name', 'O:8:"stdClass":1:{s:3:"\0ab";i:1;}', /malformed mangled property name/, 18],
      [
        'a property key that is neither a name nor an integer',
        'O:8:"stdClass":1:{b:1;i:1;}',
        /expected a property name \(s\) or an integer key \(i\), found 'b'/,
        18,
      ],
      ['an integer key that is not an integer', 'O:8:"stdClass":1:{i:x;i:1;}', /expected an integer, found "x"/, 20],
      [
        'an integer key next to the same name',
        'O:11:"ArrayObject":2:{s:1:"0";i:1;i:0;i:2;}',
        /duplicate property "0" in ArrayObject/,
        34,
      ],
      ['an enum without a case', 'E:3:"Foo";', /expected "Class:Case"/, 5],
      ['a class name that is not UTF-8', Buffer.from('O:1:"\xff":0:{}', 'latin1'), /class name is not valid UTF-8/, 5],
    ];
    for (const [what, input, message, offset] of cases) {
      it(`rejects ${what} with the problem and its byte offset`, () => {
        const e = failure(input);
        expect(e.message).to.match(message);
        expect(e.offset).to.equal(offset);
        expect(e.message).to.contain(`at byte ${offset}`);
      });
    }

    it('reads deep nesting up to its limit and rejects deeper input instead of overflowing the stack', () => {
      const nest = (n: number) => 'a:1:{i:0;'.repeat(n) + 'N;' + '}'.repeat(n);
      expect(unserialize(nest(1000))).to.be.instanceOf(PhpArray);
      expect(failure(nest(5000)).message).to.match(/nesting deeper than 1024 levels/);
    });

    it('rejects a JS string with a lone surrogate instead of reading U+FFFD', () => {
      expect(failure('s:3:"\uD800";').message).to.match(/lone UTF-16 surrogate/);
    });
  });
});
