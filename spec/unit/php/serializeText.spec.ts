// serialize() writes a JS string and counts UTF-8 bytes without encoding ASCII strings, remembers the text
// of class and property names, and switches to Buffers only for raw bytes. These pin the edges where a
// fast path hands over: non-ASCII either side of the length where isAscii switches to a native count,
// raw bytes inside objects, names that change between calls, and every error still thrown.
import { expect } from 'chai';
import { SerializeError } from '../../../lib/errors';
import { isAscii } from '../../../lib/php/ascii';
import { serialize, serializeToBuffer } from '../../../lib/php/serialize';
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

/** PHP's `s:N:"...";` written out the slow way: N is the UTF-8 byte count. */
const phpString = (s: string) => `s:${Buffer.from(s, 'utf8').length}:"${s}";`;

function fails(value: PhpValue, message: RegExp): void {
  expect(() => serialize(value)).to.throw(SerializeError, message);
  expect(() => serializeToBuffer(value)).to.throw(SerializeError, message);
}

describe('serialize: the text writer', () => {
  describe('byte counts', () => {
    it('counts UTF-8 bytes of non-ASCII strings, short and long, wherever the wide character sits', () => {
      for (const length of [0, 1, 22, 23, 24, 25, 63, 200]) {
        for (const wide of ['\u0080', 'é', 'ÿ', '中', '😀', '\u2028']) {
          for (const s of [
            wide + 'a'.repeat(length),
            'a'.repeat(length) + wide,
            `${'a'.repeat(length >> 1)}${wide}${'b'.repeat(length >> 1)}`,
          ]) {
            expect(serialize(s)).to.equal(phpString(s));
            expect(serializeToBuffer(s)).to.deep.equal(Buffer.from(phpString(s), 'utf8'));
          }
        }
      }
    });

    it('counts DEL and controls as one byte each', () => {
      const s = '\x7f\0\n'.repeat(10);
      expect(serialize(s)).to.equal(`s:30:"${s}";`);
    });

    it('writes non-ASCII class names, property names, values and array keys with their byte counts', () => {
      const object = new PhpObject('App\\Café', [
        pub('naïve', 'ü'.repeat(30)),
        {
          name: 'p',
          visibility: 'protected',
          value: new PhpArray([
            ['clé', '😀'],
            [1n, 'x'],
          ]),
        },
        { name: 'é', visibility: 'private', declaringClass: 'Base', value: null },
      ]);
      expect(serialize(object)).to.equal(
        `O:9:"App\\Café":3:{s:6:"naïve";s:60:"${'ü'.repeat(30)}";s:4:"\0*\0p";a:2:{s:4:"clé";s:4:"😀";i:1;s:1:"x";}s:8:"\0Base\0é";N;}`,
      );
      expect(serializeToBuffer(object).toString('utf8')).to.equal(serialize(object));
    });
  });

  describe('raw bytes', () => {
    it('writes PhpBytes inside an object between text on both sides, non-ASCII text included', () => {
      const object = new PhpObject('J', [
        pub('before', 'é'),
        pub('raw', new PhpBytes(Buffer.from([0xff, 0x00, 0xc3]))),
        pub('after', 'ü/'),
      ]);
      expect(serializeToBuffer(object)).to.deep.equal(
        Buffer.concat([
          Buffer.from('O:1:"J":3:{s:6:"before";s:2:"é";s:3:"raw";s:3:"'),
          Buffer.from([0xff, 0x00, 0xc3]),
          Buffer.from('";s:5:"after";s:3:"ü/";}'),
        ]),
      );
      expect(() => serialize(object)).to.throw(SerializeError, /not valid UTF-8/);
    });

    it('gives the same text for PhpBytes holding valid UTF-8 as for the string', () => {
      const asBytes = new PhpObject('J', [pub('a', new PhpBytes(Buffer.from('中é'))), pub('b', 'x')]);
      const asText = new PhpObject('J', [pub('a', '中é'), pub('b', 'x')]);
      expect(serialize(asBytes)).to.equal(serialize(asText));
      expect(serializeToBuffer(asBytes)).to.deep.equal(serializeToBuffer(asText));
    });

    it('passes a C: payload through untouched inside an array', () => {
      const value = PhpArray.list([new PhpCustomObject('Legacy', Buffer.from([0x78, 0xfe])), 'é']);
      expect(serializeToBuffer(value)).to.deep.equal(
        Buffer.concat([
          Buffer.from('a:2:{i:0;C:6:"Legacy":2:{'),
          Buffer.from([0x78, 0xfe]),
          Buffer.from('}i:1;s:2:"é";}'),
        ]),
      );
      expect(() => serialize(value)).to.throw(SerializeError, /not valid UTF-8/);
    });
  });

  describe('remembered names', () => {
    it('writes what each object holds now, when the same class is written again with other values and names', () => {
      const object = new PhpObject('App\\Jobs\\Same', [pub('a', 1n), pub('b', 'x')]);
      expect(serialize(object)).to.equal('O:13:"App\\Jobs\\Same":2:{s:1:"a";i:1;s:1:"b";s:1:"x";}');
      object.properties[0].value = 'é';
      object.properties[1].name = 'renamed';
      object.properties[1].visibility = 'protected';
      object.properties.push(pub('c', null));
      expect(serialize(object)).to.equal(
        'O:13:"App\\Jobs\\Same":3:{s:1:"a";s:2:"é";s:10:"\0*\0renamed";s:1:"x";s:1:"c";N;}',
      );
    });

    it('keeps being right after more distinct names than it remembers', () => {
      for (let i = 0; i < 5000; i++) {
        const name = `p${i}`;
        expect(serialize(new PhpObject(`C${i}`, [pub(name, null)]))).to.equal(
          `O:${`C${i}`.length}:"C${i}":1:{s:${name.length}:"${name}";N;}`,
        );
      }
      expect(serialize(new PhpObject('C1', [pub('p1', 1n)]))).to.equal('O:2:"C1":1:{s:2:"p1";i:1;}');
    });
  });

  describe('errors the fast paths must not skip', () => {
    it('refuses lone surrogates in short and long strings, keys, names and enum cases, every time', () => {
      for (const lone of ['\uD800', '\uDC00']) {
        for (const s of [`a${lone}`, `${'a'.repeat(40)}${lone}b`]) {
          fails(s, /a string holds a lone UTF-16 surrogate/);
          fails(new PhpObject('J', [pub('v', s)]), /a string holds a lone UTF-16 surrogate/);
          fails(new PhpArray([[s, 1n]]), /an array key holds a lone UTF-16 surrogate/);
          for (let twice = 0; twice < 2; twice++) {
            fails(new PhpObject(`J${s}`, []), /a class name holds a lone UTF-16 surrogate/);
            fails(new PhpObject('J', [pub(s, null)]), /a property name holds a lone UTF-16 surrogate/);
            fails(
              new PhpObject('J', [{ name: 'x', visibility: 'private', declaringClass: s, value: null }]),
              /a property name holds a lone UTF-16 surrogate/,
            );
          }
          fails(new PhpEnum('E', s), /an enum case holds a lone UTF-16 surrogate/);
          fails(new PhpCustomObject(s, Buffer.alloc(0)), /a class name holds a lone UTF-16 surrogate/);
        }
      }
      expect(serialize('\uD83D\uDE00')).to.equal('s:4:"😀";');
    });

    it('refuses a mangled name twice, in small objects and in objects past the scan limit', () => {
      const props = (n: number) => Array.from({ length: n }, (_, i) => pub(`p${i}`, null));
      fails(new PhpObject('A', [...props(3), pub('p1', 1n)]), /property p1 of A appears twice/);
      fails(new PhpObject('A', [...props(40), pub('p3', 1n)]), /property p3 of A appears twice/);
      fails(new PhpObject('A', [...props(40), pub('p39', 1n)]), /property p39 of A appears twice/);
      const fine = new PhpObject('A', [...props(40), { name: 'p3', visibility: 'protected', value: 1n }]);
      expect(serialize(fine)).to.match(/^O:1:"A":41:\{s:2:"p0";N;.*s:5:"\0\*\0p3";i:1;\}$/);
    });

    it('still counts slots for references and refuses cycles and out-of-range ints', () => {
      const inner = new PhpObject('I', []);
      expect(serialize(PhpArray.list([inner, new PhpReference('r', 2, inner)]))).to.equal(
        'a:2:{i:0;O:1:"I":0:{}i:1;r:2;}',
      );
      // an object inside itself is the same object met again: `r:` to its slot, as PHP writes `$o->me = $o`
      const self = new PhpObject('S', []);
      self.properties.push(pub('me', self));
      expect(serialize(self)).to.equal('O:1:"S":1:{s:2:"me";r:1;}');
      const loop = new PhpArray();
      loop.entries.set(0n, loop);
      fails(loop, /array contains itself/);
      fails(new PhpObject('J', [pub('n', 2n ** 63n)]), /outside PHP's 64-bit range/);
    });
  });
});

describe('isAscii', () => {
  it('answers the same below and above the length where it switches to a native count', () => {
    for (const length of [0, 1, 23, 24, 25, 100]) {
      expect(isAscii('a'.repeat(length) + '\x7f'), `${length} + DEL`).to.equal(true);
      for (const wide of ['\u0080', 'é', '\uD800', '\uDC00', '😀']) {
        expect(isAscii('a'.repeat(length) + wide), `${length} + U+${wide.charCodeAt(0).toString(16)}`).to.equal(false);
        expect(isAscii(wide + 'a'.repeat(length))).to.equal(false);
      }
    }
  });
});
