// Expected strings are PHP 8.2's serialize() output for the same values.
import { expect } from 'chai';
import { SerializeError } from '../../../lib/errors';
import { serialize, serializeToBuffer } from '../../../lib/php/serialize';
import { unserialize } from '../../../lib/php/unserialize';
import {
  PhpArray,
  PhpBytes,
  PhpCustomObject,
  PhpEnum,
  PhpObject,
  PhpReference,
  PhpValue,
} from '../../../lib/php/values';

function fails(value: PhpValue, message: RegExp): void {
  expect(() => serializeToBuffer(value)).to.throw(SerializeError, message);
}

describe('serialize', () => {
  describe('scalars', () => {
    it('writes ints from bigints and floats from numbers, so 2n and 2 differ', () => {
      expect(serialize(2n)).to.equal('i:2;');
      expect(serialize(2)).to.equal('d:2;');
      expect(serialize(-9223372036854775808n)).to.equal('i:-9223372036854775808;');
      expect(serialize(9007199254740993n)).to.equal('i:9007199254740993;');
    });

    it('writes floats with PHP text', () => {
      const floats = PhpArray.list([2, -0, 0.1, 1e25, 1.5e-7, NaN, Infinity, -Infinity, 1e15, 123456789012345678]);
      expect(serialize(floats)).to.equal(
        'a:10:{i:0;d:2;i:1;d:-0;i:2;d:0.1;i:3;d:1.0E+25;i:4;d:1.5E-7;i:5;d:NAN;i:6;d:INF;i:7;d:-INF;i:8;d:1000000000000000;i:9;d:1.2345678901234568E+17;}',
      );
    });

    it('writes null, booleans and strings with byte lengths', () => {
      expect(serialize(PhpArray.list([null, true, false, 'é/ü', 'a"b;c\0d', '😀']))).to.equal(
        'a:6:{i:0;N;i:1;b:1;i:2;b:0;i:3;s:5:"é/ü";i:4;s:7:"a"b;c\0d";i:5;s:4:"😀";}',
      );
    });

    it('rejects ints outside 64 bits and strings with lone surrogates', () => {
      fails(2n ** 63n, /outside PHP's 64-bit range/);
      fails(-(2n ** 63n) - 1n, /outside PHP's 64-bit range/);
      fails('a\uD800b', /lone UTF-16 surrogate/);
      fails(new PhpArray([['\uDC00', 1n]]), /array key holds a lone UTF-16 surrogate/);
    });
  });

  describe('bytes', () => {
    it('writes PhpBytes raw; serialize() refuses a result that is not UTF-8, serializeToBuffer() does not', () => {
      const value = PhpArray.list([new PhpBytes(Buffer.from([0xff, 0xfe])), 'ok']);
      expect(serializeToBuffer(value)).to.deep.equal(
        Buffer.concat([Buffer.from('a:2:{i:0;s:2:"'), Buffer.from([0xff, 0xfe]), Buffer.from('";i:1;s:2:"ok";}')]),
      );
      expect(() => serialize(value)).to.throw(SerializeError, /not valid UTF-8.*serializeToBuffer/);
      expect(serialize(new PhpBytes(Buffer.from('é')))).to.equal('s:2:"é";');
    });

    it('round-trips a binary PHP string byte for byte', () => {
      // base64 of serialize(["", "é/ü", "a\"b;c\0d", "\xff\xfe", "\xEF\xBB\xBFbom"])
      const bytes = Buffer.from(
        'YTo1OntpOjA7czowOiIiO2k6MTtzOjU6IsOpL8O8IjtpOjI7czo3OiJhImI7YwBkIjtpOjM7czoyOiL//iI7aTo0O3M6Njoi77u/Ym9tIjt9',
        'base64',
      );
      expect(serializeToBuffer(unserialize(bytes))).to.deep.equal(bytes);
    });
  });

  describe('arrays and objects', () => {
    it('keeps int keys and integer-like string keys as the model holds them', () => {
      const value = new PhpArray([
        [5n, 'a'],
        ['k', 'b'],
        [-3n, 'c'],
        ['07', 'd'],
      ]);
      expect(serialize(value)).to.equal('a:4:{i:5;s:1:"a";s:1:"k";s:1:"b";i:-3;s:1:"c";s:2:"07";s:1:"d";}');
    });

    it('mangles protected and private names', () => {
      const child = new PhpObject('Child', [
        { name: 'x', visibility: 'private', declaringClass: 'Base', value: 'base' },
        { name: 'p', visibility: 'protected', value: 1n },
        { name: 'x', visibility: 'public', value: 'child' },
      ]);
      expect(serialize(child)).to.equal(
        'O:5:"Child":3:{s:7:"\0Base\0x";s:4:"base";s:4:"\0*\0p";i:1;s:1:"x";s:5:"child";}',
      );
    });

    it('refuses a private property without a declaring class, and one mangled name twice', () => {
      fails(
        new PhpObject('A', [{ name: 'x', visibility: 'private', value: 1n }]),
        /private property x of A has no declaringClass/,
      );
      fails(
        new PhpObject('A', [
          { name: 'x', visibility: 'protected', value: 1n },
          { name: 'x', visibility: 'protected', value: 2n },
        ]),
        /property x of A appears twice/,
      );
    });

    it('writes enums and custom objects', () => {
      expect(serialize(new PhpEnum('App\\Enums\\Status', 'Active'))).to.equal('E:23:"App\\Enums\\Status:Active";');
      expect(serialize(new PhpCustomObject('Foo', Buffer.from('a}b;c}')))).to.equal('C:3:"Foo":6:{a}b;c}}');
      fails(new PhpEnum('A:B', 'C'), /invalid enum case/);
    });
  });

  describe('references', () => {
    it('writes r: and R: at the slot PHP would use', () => {
      const a = new PhpObject('stdClass');
      const b = new PhpObject('stdClass');
      const shared = new PhpArray([
        ['a', a],
        ['b', b],
        ['a2', new PhpReference('r', 2, a)],
        ['b2', new PhpReference('r', 3, b)],
      ]);
      expect(serialize(shared)).to.equal(
        'a:4:{s:1:"a";O:8:"stdClass":0:{}s:1:"b";O:8:"stdClass":0:{}s:2:"a2";r:2;s:2:"b2";r:3;}',
      );
    });

    it('round-trips PHP output with self references and R:', () => {
      const cyclic = 'O:8:"stdClass":3:{s:4:"self";r:1;s:4:"list";a:2:{i:0;i:1;i:1;i:2;}s:5:"alias";R:3;}';
      expect(serialize(unserialize(cyclic))).to.equal(cyclic);
      const refs = 'a:4:{i:0;O:8:"stdClass":0:{}i:1;r:2;i:2;O:8:"stdClass":0:{}i:3;r:4;}';
      expect(serialize(unserialize(refs))).to.equal(refs);
    });

    it('refuses an index pointing nowhere, at another value, or r: at a non-object', () => {
      const a = new PhpObject('stdClass');
      fails(PhpArray.list([a, new PhpReference('r', 9, a)]), /r:9 refers to no earlier value \(2 written so far\)/);
      fails(PhpArray.list([a, new PhpReference('r', 1, a)]), /r:1 points at a different value than its target/);
      fails(PhpArray.list([7n, new PhpReference('r', 2)]), /r:2 must point at an object/);
    });

    it('refuses a container that holds itself without a PhpReference', () => {
      const loop = new PhpArray();
      loop.entries.set(0n, loop);
      fails(loop, /contains itself; use a PhpReference/);
    });
  });
});
