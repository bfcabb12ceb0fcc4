// The reader takes shortcuts: an ASCII string is read in place (chars are bytes), other input through its
// UTF-8 bytes; short ints and lengths are summed digit by digit; small objects find duplicate names by a
// scan. These specs pin the edges where a shortcut hands over to the general path: results and errors
// (message and byte offset) must be what the general path gives.
import { expect } from 'chai';
import { UnserializeError } from '../../../lib/errors';
import { unserialize } from '../../../lib/php/unserialize';
import { unserializeFailure as failure } from '../../support/unserializeFailure';
import { PhpArray, PhpBytes, PhpCustomObject, PhpEnum, PhpObject } from '../../../lib/php/values';

/** Laravel 8's BenchNoop job as serialize() writes it. */
const NOOP =
  'O:18:"App\\Jobs\\BenchNoop":11:{s:1:"n";i:0;s:10:"connection";N;s:5:"queue";N;s:15:"chainConnection";N;s:10:"chainQueue";N;' +
  's:19:"chainCatchCallbacks";N;s:5:"delay";N;s:11:"afterCommit";N;s:10:"middleware";a:0:{}s:7:"chained";a:0:{}s:3:"job";N;}';

function outcome(input: string | Buffer): { value?: unknown; error?: [string, number] } {
  try {
    return { value: unserialize(input) };
  } catch (e) {
    expect(e).to.be.instanceOf(UnserializeError);
    return { error: [(e as UnserializeError).message, (e as UnserializeError).offset] };
  }
}

function expectError(input: string | Buffer, message: string, offset: number): void {
  const e = failure(input);
  expect(e.message).to.equal(`${message} at byte ${offset}`);
  expect(e.offset).to.equal(offset);
}

describe('unserialize fast paths', () => {
  describe('ASCII input read in place', () => {
    it('reads the typical Laravel command', () => {
      const job = unserialize(NOOP) as PhpObject;
      expect(job.className).to.equal('App\\Jobs\\BenchNoop');
      expect(job.properties.map((p) => p.name)).to.deep.equal([
        'n',
        'connection',
        'queue',
        'chainConnection',
        'chainQueue',
        'chainCatchCallbacks',
        'delay',
        'afterCommit',
        'middleware',
        'chained',
        'job',
      ]);
      expect(job.properties[0]).to.deep.equal({ name: 'n', visibility: 'public', value: 0n });
      expect(Object.keys(job.properties[0])).to.deep.equal(['name', 'visibility', 'value']);
      expect(job.get('middleware')).to.be.instanceOf(PhpArray);
    });

    it('gives the same value or the same error (message and offset) for every prefix, read as a string or as bytes', () => {
      for (let n = 0; n <= NOOP.length; n++) {
        const prefix = NOOP.slice(0, n);
        expect(outcome(prefix), `prefix of ${n}`).to.deep.equal(outcome(Buffer.from(prefix)));
      }
    });

    it('reports truncated input at the byte where reading stopped', () => {
      expectError(NOOP.slice(0, 10), 'a class name of 18 byte(s) runs past the end of the input (4 left)', 6);
      expectError(
        NOOP.slice(0, 31),
        "expected ':' before the length of a property name, found the end of the input",
        31,
      );
      expectError(
        NOOP.slice(0, 36),
        "expected '\"' after 1 byte(s) of a property name (wrong length?), found the end of the input",
        36,
      );
      expectError(NOOP.slice(0, 40), "expected ';' to end an int, but the input ended", 40);
      expectError(NOOP.slice(0, 44), 'expected the length of a property name (digits), found the end of the input', 44);
      expectError(NOOP.slice(0, 180), 'a property name of 11 byte(s) runs past the end of the input (10 left)', 170);
      expectError(
        NOOP.slice(0, -1),
        "expected '}' to close an object of 11 properties, found the end of the input",
        241,
      );
    });
  });

  describe('non-ASCII text, where byte lengths differ from char lengths', () => {
    it('reads a non-ASCII string inside an otherwise ASCII command by its byte length', () => {
      const job = unserialize(NOOP.replace('s:1:"n";i:0;', 's:1:"n";s:9:"Zoë 😀";')) as PhpObject;
      expect(job.get('n')).to.equal('Zoë 😀');
      // the ASCII tokens after it are still found at the right bytes
      expect(job.properties.map((p) => p.name).slice(-2)).to.deep.equal(['chained', 'job']);
      expect(job.get('chained')).to.be.instanceOf(PhpArray);
    });

    it('rejects a length counted in chars instead of bytes, at the byte where the quote was expected', () => {
      expectError('s:1:"é";', "expected '\"' after 1 byte(s) of a string (wrong length?), found byte 0xa9", 6);
      expectError(
        'O:8:"stdClass":1:{s:1:"n";s:1:"é";}',
        "expected '\"' after 1 byte(s) of a string (wrong length?), found byte 0xa9",
        32,
      );
      expectError(
        'O:18:"App\\Jobs\\BenchNoop":1:{s:1:"n";s:2:"😀";}',
        "expected '\"' after 2 byte(s) of a string (wrong length?), found byte 0x98",
        44,
      );
      expectError('s:3:"é";', "expected '\"' after 3 byte(s) of a string (wrong length?), found ';'", 8);
      expectError(
        'O:5:"Clašš":1:{s:4:"náme";i:1;}',
        "expected '\"' after 5 byte(s) of a class name (wrong length?), found byte 0xc5",
        10,
      );
    });

    it('decodes non-ASCII class names, property names, array keys and enum cases', () => {
      const object = unserialize('O:7:"Clašš":1:{s:5:"náme";a:1:{s:2:"é";E:13:"Lévél:Hïgh";}}') as PhpObject;
      expect(object.className).to.equal('Clašš');
      expect(object.properties[0].name).to.equal('náme');
      const array = object.properties[0].value as PhpArray;
      expect(array.entries.get('é')).to.deep.equal(new PhpEnum('Lévél', 'Hïgh'));
    });

    it('gives the same result for a string and for its UTF-8 bytes', () => {
      const text = 'a:3:{i:0;s:9:"Zoë 😀";s:2:"é";O:8:"stdClass":1:{s:5:"\0*\0é";s:0:"";}i:1;C:3:"Foo":2:{é}}';
      expect(unserialize(text)).to.deep.equal(unserialize(Buffer.from(text)));
      expect((unserialize(text) as PhpArray).entries.get(1n)).to.deep.equal(
        new PhpCustomObject('Foo', Buffer.from('é')),
      );
    });

    it('keeps bytes that are not UTF-8 as PhpBytes and reads the ASCII after them', () => {
      const v = unserialize(
        Buffer.from('a:3:{i:0;s:2:"\xff\xfe";i:1;s:3:"abc";i:2;s:2:"\xc3\xa9";}', 'latin1'),
      ) as PhpArray;
      expect(v.entries.get(0n)).to.deep.equal(new PhpBytes(Buffer.from([0xff, 0xfe])));
      expect(v.entries.get(1n)).to.equal('abc');
      expect(v.entries.get(2n)).to.equal('é');
    });

    it('rejects names that are not UTF-8 at the byte where they start', () => {
      expectError(Buffer.from('a:1:{s:1:"\xff";i:1;}', 'latin1'), 'array key is not valid UTF-8', 5);
      expectError(Buffer.from('E:5:"\xff:Foo";', 'latin1'), 'enum case is not valid UTF-8', 5);
      expectError(Buffer.from('C:1:"\xff":0:{}', 'latin1'), 'class name is not valid UTF-8', 5);
      expectError(Buffer.from('O:1:"C":1:{s:1:"\xff";N;}', 'latin1'), 'property name is not valid UTF-8', 11);
    });

    it('reads a real U+FFFD but still rejects a lone surrogate after one', () => {
      expect(unserialize('s:3:"\uFFFD";')).to.equal('\uFFFD');
      expectError(
        'a:2:{i:0;s:3:"\uFFFD";i:1;s:3:"\uD800";}',
        'input string holds a lone UTF-16 surrogate, which has no UTF-8 bytes',
        28,
      );
    });
  });

  describe('ints and lengths', () => {
    it('reads up to 15 digits directly and longer ones exactly', () => {
      expect(unserialize('i:123456789012345;')).to.equal(123456789012345n);
      expect(unserialize('i:-123456789012345;')).to.equal(-123456789012345n);
      expect(unserialize('i:1234567890123456;')).to.equal(1234567890123456n);
      expect(unserialize('i:9007199254740993;')).to.equal(9007199254740993n);
      expect(unserialize('i:+5;')).to.equal(5n);
      expect(unserialize('i:-0;')).to.equal(0n);
      expect(unserialize('i:007;')).to.equal(7n);
      expect(unserialize('a:1:{i:-12;i:3;}')).to.deep.equal(new PhpArray([[-12n, 3n]]));
    });

    it('reports malformed ints as before', () => {
      expectError('i:-;', 'expected an integer, found "-"', 2);
      expectError('i:1x;', 'expected an integer, found "1x"', 2);
      expectError('i:1', "expected ';' to end an int, but the input ended", 3);
      expectError('i:-9223372036854775809;', "integer -9223372036854775809 is outside PHP's 64-bit range", 2);
      expectError('a:1:{i:1x;N;}', 'expected an integer, found "1x"', 7);
    });

    it('reads lengths of more than 15 digits as Number() does', () => {
      expect(unserialize('s:0000000000000001:"a";')).to.equal('a');
      expectError('s:9999999999999999:"a";', 'the length of a string 10000000000000000 is too large', 2);
      expectError('a:99999999999999999:{}', 'an array count 100000000000000000 is too large', 2);
    });
  });

  describe('duplicate property names', () => {
    const props = (n: number) =>
      Array.from({ length: n }, (_, i) => `s:2:"p${String.fromCharCode(97 + i)}";i:${i};`).join('');

    it('tells names apart by visibility and declaring class in small and large objects', () => {
      for (const filler of [0, 20]) {
        const o = unserialize(
          `O:1:"C":${filler + 4}:{${props(filler)}s:4:"\0*\0x";i:1;s:1:"x";i:2;s:4:"\0A\0x";i:3;s:4:"\0B\0x";i:4;}`,
        ) as PhpObject;
        expect(o.properties.slice(filler)).to.deep.equal([
          { name: 'x', visibility: 'protected', value: 1n },
          { name: 'x', visibility: 'public', value: 2n },
          { name: 'x', visibility: 'private', declaringClass: 'A', value: 3n },
          { name: 'x', visibility: 'private', declaringClass: 'B', value: 4n },
        ]);
      }
    });

    it('rejects a repeated mangled name in small and large objects', () => {
      expectError('O:1:"C":2:{s:4:"\0*\0x";i:1;s:4:"\0*\0x";i:2;}', 'duplicate property "\\u0000*\\u0000x" in C', 26);
      expectError('O:1:"C":2:{s:4:"\0A\0x";i:1;s:4:"\0A\0x";i:2;}', 'duplicate property "\\u0000A\\u0000x" in C', 26);
      expectError('O:1:"C":2:{s:1:"x";i:1;s:1:"x";i:2;}', 'duplicate property "x" in C', 23);
      expectError('O:1:"C":2:{s:3:"ñn";i:1;s:3:"ñn";i:2;}', 'duplicate property "ñn" in C', 25);
      expectError(`O:1:"C":21:{${props(20)}s:2:"pc";i:0;}`, 'duplicate property "pc" in C', 282);
    });
  });
});

// The reader remembers each class's property names by position and reuses them when the same name comes
// again; a name that changed, moved or lost its mangling must be read afresh every time.
describe('unserialize: property names remembered per class', () => {
  const props = (input: string) =>
    (unserialize(input) as PhpObject).properties.map(({ name, visibility, declaringClass }) => ({
      name,
      visibility,
      declaringClass,
    }));

  it('reads a class whose names change between payloads as each payload says', () => {
    expect(props('O:1:"K":2:{s:1:"a";i:1;s:1:"b";i:2;}')).to.deep.equal([
      { name: 'a', visibility: 'public', declaringClass: undefined },
      { name: 'b', visibility: 'public', declaringClass: undefined },
    ]);
    expect(props('O:1:"K":2:{s:1:"b";i:1;s:4:"\0*\0a";i:2;}')).to.deep.equal([
      { name: 'b', visibility: 'public', declaringClass: undefined },
      { name: 'a', visibility: 'protected', declaringClass: undefined },
    ]);
    expect(props('O:1:"K":3:{s:4:"\0K\0a";i:1;s:1:"b";i:2;s:2:"é";i:3;}')).to.deep.equal([
      { name: 'a', visibility: 'private', declaringClass: 'K' },
      { name: 'b', visibility: 'public', declaringClass: undefined },
      { name: 'é', visibility: 'public', declaringClass: undefined },
    ]);
    expect(props('O:1:"K":1:{s:1:"a";i:1;}')).to.deep.equal([
      { name: 'a', visibility: 'public', declaringClass: undefined },
    ]);
  });

  it('still finds a duplicate property and a malformed name when the names were seen before', () => {
    unserialize('O:1:"D":2:{s:1:"a";i:1;s:1:"b";i:2;}');
    expectError('O:1:"D":2:{s:1:"a";i:1;s:1:"a";i:2;}', 'duplicate property "a" in D', 23);
    unserialize('O:1:"M":1:{s:4:"\0*\0a";i:1;}');
    expectError('O:1:"M":1:{s:2:"\0a";i:1;}', 'malformed mangled property name "\\u0000a"', 11);
  });

  it('reads classes beyond the ones it remembers, each with its own names', () => {
    for (let i = 0; i < 600; i++) {
      const cls = `C${i}`;
      const input = `O:${cls.length}:"${cls}":2:{s:${String(i).length + 1}:"p${i}";i:${i};s:1:"z";N;}`;
      expect(props(input).map((p) => p.name)).to.deep.equal([`p${i}`, 'z']);
      expect(props(input.replace(`p${i}`, `q${i}`)).map((p) => p.name)).to.deep.equal([`q${i}`, 'z']);
    }
  });
});
