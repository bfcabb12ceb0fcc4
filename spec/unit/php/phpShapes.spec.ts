// The PHP shapes of issue 22 (wire items 1, 2, 5), unit by unit. Expected strings are PHP 8.2's own:
//   php -r 'echo serialize(new ArrayObject([1,2]));'  and the like, noted by each.
import { expect } from 'chai';
import { FakeClock } from '../../../lib/clock';
import { PhpBuildError, SerializeError } from '../../../lib/errors';
import { decodeCommand } from '../../../lib/jobs/command';
import { payloadFor } from '../../../lib/jobs/dispatch';
import { Encrypter } from '../../../lib/php/Encrypter';
import { php, phpClass, toPhp } from '../../../lib/php/builder';
import { serialize, serializeToBuffer, serializeToJsonString } from '../../../lib/php/serialize';
import { unserialize } from '../../../lib/php/unserialize';
import {
  PhpBytes,
  PhpCustomObject,
  PhpObject,
  PhpReference,
  type PhpProperty,
  type PhpValue,
} from '../../../lib/php/values';
import { toPlain } from '../../../lib/php/view';
import { parsePayload } from '../../../lib/payload/Payload';

const pub = (name: string, value: PhpValue): PhpProperty => ({ name, visibility: 'public', value });
const int = (name: string, value: PhpValue): PhpProperty => ({ name, visibility: 'public', integerKey: true, value });

describe('PHP shapes Laravel jobs carry', () => {
  describe('objects whose __serialize() returns integer keys', () => {
    // serialize(new ArrayObject([1, 2])), serialize($q) of an SplQueue of 1 and "a",
    // serialize(SplFixedArray::fromArray([1, 2])), a class whose __serialize() returns [1, 2, 'x' => 3]
    const phpWrote = [
      'O:11:"ArrayObject":4:{i:0;i:0;i:1;a:2:{i:0;i:1;i:1;i:2;}i:2;a:0:{}i:3;N;}',
      'O:8:"SplQueue":3:{i:0;i:4;i:1;a:2:{i:0;i:1;i:1;s:1:"a";}i:2;a:0:{}}',
      'O:16:"SplObjectStorage":2:{i:0;a:2:{i:0;O:8:"stdClass":0:{}i:1;s:4:"data";}i:1;a:0:{}}',
      'O:13:"SplFixedArray":2:{i:0;i:1;i:1;i:2;}',
      'O:1:"U":3:{i:0;i:1;i:1;i:2;s:1:"x";i:3;}',
      'O:1:"M":3:{i:-1;s:1:"a";i:10;s:1:"b";s:1:"0";s:1:"c";}',
    ];

    it('reads them, keeping integer keys apart from names, and writes back the same bytes', () => {
      for (const text of phpWrote) expect(serialize(unserialize(text))).to.equal(text);
      const object = unserialize(phpWrote[4]) as PhpObject;
      expect(object.properties).to.deep.equal([int('0', 1n), int('1', 2n), pub('x', 3n)]);
      const mixed = unserialize(phpWrote[5]) as PhpObject;
      expect(mixed.properties.map((p) => [p.name, p.integerKey === true])).to.deep.equal([
        ['-1', true],
        ['10', true],
        ['0', false],
      ]);
    });

    it('writes them the same way in a JSON payload', () => {
      for (const text of phpWrote) expect(JSON.parse(serializeToJsonString(unserialize(text)))).to.equal(text);
    });

    it('shows them to handlers by key, the class kept', () => {
      const view = toPlain(unserialize(phpWrote[0])) as Record<string, unknown>;
      expect(view).to.deep.equal({ 0: 0, 1: [1, 2], 2: [], 3: null });
    });

    it('does not take an integer key for the name of the same digits, when a class comes back with the other', () => {
      const named = new PhpObject('K', [pub('0', 'a')]);
      const keyed = new PhpObject('K', [int('0', 'a')]);
      for (let twice = 0; twice < 2; twice++) {
        expect(serialize(named)).to.equal('O:1:"K":1:{s:1:"0";s:1:"a";}');
        expect(serialize(keyed)).to.equal('O:1:"K":1:{i:0;s:1:"a";}');
      }
    });

    it('refuses an integer key that is not public, not an integer, or the same as a name', () => {
      expect(() => serialize(new PhpObject('K', [{ ...int('0', 1n), visibility: 'protected' }]))).to.throw(
        SerializeError,
        /integer key 0 of K is protected/,
      );
      expect(() => serialize(new PhpObject('K', [int('07', 1n)]))).to.throw(
        SerializeError,
        /integer key "07" of K is not an integer/,
      );
      expect(() => serialize(new PhpObject('K', [int('9223372036854775808', 1n)]))).to.throw(
        SerializeError,
        /outside PHP's 64-bit range/,
      );
      expect(() => serialize(new PhpObject('K', [pub('0', 1n), int('0', 2n)]))).to.throw(
        SerializeError,
        /property 0 of K appears twice/,
      );
    });

    it('builds them with php.serialized: integer keys as i:, string keys as names, mangled ones kept', () => {
      expect(serialize(php.serialized('ArrayObject', [0, [1, 2], [], null]))).to.equal(phpWrote[0]);
      expect(
        serialize(
          php.serialized(
            'U',
            new Map<string | number, number>([
              [0, 1],
              [1, 2],
              ['x', 3],
            ]),
          ),
        ),
      ).to.equal(phpWrote[4]);
      expect(serialize(php.serialized('P', { '\0*\0p': 1 }))).to.equal('O:1:"P":1:{s:4:"\0*\0p";i:1;}');
      expect(() => php.serialized('A', 'text')).to.throw(
        PhpBuildError,
        /php.serialized\(A\): the data must be an array/,
      );
    });
  });

  describe('one object used twice', () => {
    it('is written r: to its first slot, as PHP writes [$o, $o, ["again" => $o]]', () => {
      const o = new PhpObject('stdClass', [pub('n', 1n)]);
      expect(serialize(toPhp([o, o, { again: o }]))).to.equal(
        'a:3:{i:0;O:8:"stdClass":1:{s:1:"n";i:1;}i:1;r:2;i:2;a:1:{s:5:"again";r:2;}}',
      );
    });

    it('counts the r: as a slot, so later references point where PHP would', () => {
      // $a = new stdClass; $b = new stdClass; $b->a = $a; serialize([$a, $b, [$a]])
      const a = new PhpObject('stdClass');
      const b = new PhpObject('stdClass', [pub('a', a)]);
      expect(serialize(toPhp([a, b, [a]]))).to.equal(
        'a:3:{i:0;O:8:"stdClass":0:{}i:1;O:8:"stdClass":1:{s:1:"a";r:2;}i:2;a:1:{i:0;r:2;}}',
      );
      expect(serialize(toPhp([a, a, b, new PhpReference('r', 4, b)]))).to.equal(
        'a:4:{i:0;O:8:"stdClass":0:{}i:1;r:2;i:2;O:8:"stdClass":1:{s:1:"a";r:2;}i:3;r:4;}',
      );
    });

    it('writes an enum case met again as r:, as PHP does for [E::A, E::A]', () => {
      expect(serialize(toPhp([php.enum('E', 'A'), php.enum('F', 'X'), php.enum('E', 'A')]))).to.equal(
        'a:3:{i:0;E:3:"E:A";i:1;E:3:"F:X";i:2;r:2;}',
      );
    });

    it('writes a C: object met again as r:', () => {
      const c = new PhpCustomObject('C', Buffer.from('x'));
      expect(serialize(toPhp([c, c]))).to.equal('a:2:{i:0;C:1:"C":1:{x}i:1;r:2;}');
    });

    it('unserializes in larq to one object again', () => {
      const o = new PhpObject('stdClass');
      const [first, second] = toPlain(unserialize(serialize(toPhp([o, o])))) as unknown[];
      expect(first).to.equal(second);
    });

    it('does not make a reference of an array used twice (PHP arrays are values)', () => {
      const list = [1];
      expect(serialize(toPhp([list, list]))).to.equal('a:2:{i:0;a:1:{i:0;i:1;}i:1;a:1:{i:0;i:1;}}');
    });
  });

  describe('keys and numbers JS spells differently', () => {
    it('keeps a Map in its order, integer-like keys where they were put', () => {
      // serialize(['z' => 1, '10' => 2, '2' => 3, 'a' => 4])
      const map = new Map<string, number>([
        ['z', 1],
        ['10', 2],
        ['2', 3],
        ['a', 4],
      ]);
      expect(serialize(toPhp(map))).to.equal('a:4:{s:1:"z";i:1;i:10;i:2;i:2;i:3;s:1:"a";i:4;}');
    });

    it('refuses a plain object mixing array-index keys with others, whose written order JS has lost', () => {
      expect(() => toPhp({ z: 1, '10': 2, '2': 3, a: 4 }, 'data')).to.throw(
        PhpBuildError,
        /data: a plain object mixing .* use a Map/,
      );
      // all index keys (ascending, as JS lists them) or none: nothing was moved
      expect(serialize(toPhp({ '2': 'b', '10': 'a' }))).to.equal('a:2:{i:2;s:1:"b";i:10;s:1:"a";}');
      // JS moves only array indexes: a negative or zero-padded key stays where it was written
      expect(serialize(toPhp({ z: 1, '-2': 2, '07': 3 }))).to.equal('a:3:{s:1:"z";i:1;i:-2;i:2;s:2:"07";i:3;}');
    });

    it('refuses property names phpClass would reorder (PHP cannot declare them)', () => {
      expect(() => phpClass('J', { z: 'public', '10': 'public' })).to.throw(
        PhpBuildError,
        /J: property name 10 of J is an integer/,
      );
    });

    it('writes -0 as the float -0.0, as serialize(-0.0) does, and 0 as an int', () => {
      expect(serialize(toPhp(-0))).to.equal('d:-0;');
      expect(serialize(toPhp(0))).to.equal('i:0;');
      expect(serialize(toPhp([-0 + 0]))).to.equal('a:1:{i:0;i:0;}');
    });
  });

  describe('encrypted commands holding bytes that are not UTF-8', () => {
    const encrypter = new Encrypter(Encrypter.generateKey());
    const Secret = phpClass('App\\Jobs\\Secret', { digest: 'public' });
    const raw = Buffer.from([0xff, 0xfe, 0x00, 0x80]);

    it('are written from a Buffer and read back to the same bytes', () => {
      const text = payloadFor(
        { command: Secret.make({ digest: raw }), encrypt: true },
        { line: 12, clock: new FakeClock(1700000000 * 1000), encrypter },
      );
      const payload = parsePayload(text);
      const plaintext = encrypter.decryptBuffer(payload.command!);
      expect(plaintext).to.deep.equal(
        Buffer.concat([Buffer.from('O:15:"App\\Jobs\\Secret":1:{s:6:"digest";s:4:"'), raw, Buffer.from('";}')]),
      );
      const command = decodeCommand(payload, encrypter);
      expect(command.get('digest')).to.deep.equal(new PhpBytes(raw));
      expect((toPlain(command) as { digest: unknown }).digest).to.deep.equal(raw);
      expect(serializeToBuffer(command)).to.deep.equal(plaintext);
    });
  });
});
