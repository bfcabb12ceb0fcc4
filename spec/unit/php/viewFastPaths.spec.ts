// toPlain assigns properties directly and only falls back to defineProperty and the name-clash rules
// when a name is already there (a clash, or one inherited from Object.prototype). These specs pin that
// the fallback gives exactly the view the rules describe: keys, their order and their attributes.
import { expect } from 'chai';
import { unserialize } from '../../../lib/php/unserialize';
import { PhpArray, PhpBytes, PhpObject, PhpReference } from '../../../lib/php/values';
import { PHP_CLASS, phpClassOf, shadowedPropertiesOf, toPlain } from '../../../lib/php/view';

const DATA = { enumerable: true, writable: true, configurable: true };

function descriptors(value: unknown): Record<string, unknown> {
  const plain = value as object;
  return Object.fromEntries(Object.keys(plain).map((k) => [k, Object.getOwnPropertyDescriptor(plain, k)]));
}

describe('toPlain fast paths', () => {
  it('makes ordinary own data properties for the typical Laravel command, the class under a hidden symbol', () => {
    const command = unserialize(
      'O:18:"App\\Jobs\\BenchNoop":4:{s:1:"n";i:0;s:5:"queue";N;s:10:"middleware";a:0:{}s:4:"\0*\0p";s:1:"x";}',
    );
    const plain = toPlain(command) as Record<string, unknown>;
    expect(Object.getPrototypeOf(plain)).to.equal(Object.prototype);
    expect(Object.keys(plain)).to.deep.equal(['n', 'queue', 'middleware', 'p']);
    expect(descriptors(plain)).to.deep.equal({
      n: { value: 0, ...DATA },
      queue: { value: null, ...DATA },
      middleware: { value: [], ...DATA },
      p: { value: 'x', ...DATA },
    });
    expect(Object.getOwnPropertyDescriptor(plain, PHP_CLASS)).to.deep.equal({
      value: 'App\\Jobs\\BenchNoop',
      enumerable: false,
      writable: false,
      configurable: false,
    });
    expect(shadowedPropertiesOf(plain)).to.deep.equal([]);
  });

  it('keeps names inherited from Object.prototype as own data properties of objects and arrays', () => {
    const object = new PhpObject('C', [
      { name: 'a', visibility: 'public', value: 1n },
      { name: 'toString', visibility: 'public', value: 2n },
      { name: '__proto__', visibility: 'protected', value: 3n },
      { name: 'constructor', visibility: 'public', value: 4n },
    ]);
    const plain = toPlain(object) as Record<string, unknown>;
    expect(Object.getPrototypeOf(plain)).to.equal(Object.prototype);
    expect(Object.keys(plain)).to.deep.equal(['a', 'toString', '__proto__', 'constructor']);
    expect(descriptors(plain)).to.deep.equal({
      a: { value: 1, ...DATA },
      toString: { value: 2, ...DATA },
      ['__proto__']: { value: 3, ...DATA },
      constructor: { value: 4, ...DATA },
    });
    expect(phpClassOf(plain)).to.equal('C');

    const map = toPlain(unserialize('a:3:{s:1:"k";i:1;s:8:"toString";i:2;s:9:"__proto__";i:3;}')) as Record<
      string,
      unknown
    >;
    expect(Object.getPrototypeOf(map)).to.equal(Object.prototype);
    expect(descriptors(map)).to.deep.equal({
      k: { value: 1, ...DATA },
      toString: { value: 2, ...DATA },
      ['__proto__']: { value: 3, ...DATA },
    });
  });

  it('lets a later int key overwrite the same string key in place, as defineProperty did', () => {
    const map = toPlain(
      new PhpArray([
        ['1', 'string key'],
        ['b', 2n],
        [1n, 'int key'],
      ]),
    ) as Record<string, unknown>;
    expect(Object.keys(map)).to.deep.equal(['1', 'b']);
    expect(map['1']).to.equal('int key');
  });

  it('gives one view per array or object however many there are, before and after it keeps them in a Map', () => {
    // 40 arrays, each seen twice: the first time as a new value, the second as the same instance again,
    // and an object that holds itself at the end.
    const arrays = Array.from({ length: 40 }, (_, i) => new PhpArray([['i', BigInt(i)]]));
    const root = new PhpObject('Root', [
      ...arrays.map((a, i) => ({ name: `a${i}`, visibility: 'public' as const, value: a })),
      ...arrays.map((a, i) => ({ name: `b${i}`, visibility: 'public' as const, value: a })),
    ]);
    root.properties.push({ name: 'self', visibility: 'public', value: root });
    const plain = toPlain(root) as Record<string, unknown>;
    for (let i = 0; i < 40; i++) {
      expect(plain[`a${i}`]).to.deep.equal({ i });
      expect(plain[`b${i}`], `b${i}`).to.equal(plain[`a${i}`]);
    }
    expect(plain.self).to.equal(plain);
  });

  it('settles a clash found after other properties were added: winners in serialized order', () => {
    const bytes = new PhpBytes(Buffer.from([0xff]));
    const shared = new PhpArray([['k', 1n]]);
    // class Base { private $x; } class Child extends Base { public $p; public $x; public $y; }
    const object = new PhpObject('Child', [
      { name: 'x', visibility: 'private', declaringClass: 'Base', value: bytes },
      { name: 'p', visibility: 'public', value: shared },
      { name: 'x', visibility: 'public', value: 'child' },
      { name: 'y', visibility: 'public', value: shared },
    ]);
    const plain = toPlain(object) as Record<string, unknown>;
    expect(Object.keys(plain)).to.deep.equal(['p', 'x', 'y']);
    expect(descriptors(plain)).to.deep.equal({
      p: { value: { k: 1 }, ...DATA },
      x: { value: 'child', ...DATA },
      y: { value: { k: 1 }, ...DATA },
    });
    expect(plain.p).to.equal(plain.y);
    expect(shadowedPropertiesOf(plain)).to.deep.equal([
      { name: 'x', visibility: 'private', declaringClass: 'Base', value: Buffer.from([0xff]) },
    ]);
    expect(Object.keys(shadowedPropertiesOf(plain)[0])).to.deep.equal([
      'name',
      'visibility',
      'declaringClass',
      'value',
    ]);
  });

  it('keeps the first of two same-named properties when neither is public, even with a self reference', () => {
    const object = new PhpObject('C', []);
    object.properties.push(
      { name: 'a', visibility: 'public', value: 1n },
      { name: 'x', visibility: 'protected', value: new PhpReference('r', 1, object) },
      { name: 'x', visibility: 'private', declaringClass: 'B', value: 2n },
    );
    const plain = toPlain(object) as Record<string, unknown>;
    expect(Object.keys(plain)).to.deep.equal(['a', 'x']);
    expect(plain.x).to.equal(plain);
    expect(shadowedPropertiesOf(plain)).to.deep.equal([
      { name: 'x', visibility: 'private', declaringClass: 'B', value: 2 },
    ]);
  });

  it('throws for an unresolved reference after a clash as before', () => {
    const object = new PhpObject('C', [
      { name: 'x', visibility: 'protected', value: 1n },
      { name: 'x', visibility: 'public', value: 2n },
      { name: 'z', visibility: 'public', value: new PhpReference('R', 9) },
    ]);
    expect(() => toPlain(object)).to.throw(TypeError, 'unresolved PHP reference R:9');
  });
});
