import { expect } from 'chai';
import { unserialize } from '../../../lib/php/unserialize';
import { PhpArray, PhpBytes, PhpCustomObject, PhpEnum, PhpObject, PhpReference } from '../../../lib/php/values';
import { PHP_CLASS, phpClassOf, shadowedPropertiesOf, toPlain } from '../../../lib/php/view';

describe('toPlain', () => {
  it('gives numbers for safe ints and floats, bigint beyond 2^53', () => {
    expect(toPlain(42n)).to.equal(42);
    expect(toPlain(-9007199254740991n)).to.equal(-9007199254740991);
    expect(toPlain(9007199254740993n)).to.equal(9007199254740993n);
    expect(toPlain(2)).to.equal(2);
    expect(toPlain(null)).to.equal(null);
    expect(toPlain('é')).to.equal('é');
  });

  it('gives a Buffer for PhpBytes', () => {
    const plain = toPlain(new PhpBytes(Buffer.from([0xff, 0x00])));
    expect(Buffer.isBuffer(plain)).to.equal(true);
    expect(plain).to.deep.equal(Buffer.from([0xff, 0x00]));
  });

  it('gives JS arrays for lists and plain objects for other arrays', () => {
    expect(toPlain(unserialize('a:2:{i:0;s:1:"a";i:1;a:0:{}}'))).to.deep.equal(['a', []]);
    expect(toPlain(unserialize('a:2:{i:1;s:1:"a";i:0;s:1:"b";}'))).to.deep.equal({ 1: 'a', 0: 'b' });
    expect(toPlain(unserialize('a:2:{s:4:"plan";s:3:"pro";s:5:"seats";i:3;}'))).to.deep.equal({
      plan: 'pro',
      seats: 3,
    });
  });

  it('keeps a "__proto__" key as an ordinary property', () => {
    const plain = toPlain(new PhpArray([['__proto__', 1n]])) as Record<string, unknown>;
    expect(Object.keys(plain)).to.deep.equal(['__proto__']);
    expect(Object.getPrototypeOf(plain)).to.equal(Object.prototype);
  });

  it('gives objects keyed by unmangled name, with the class under a symbol that never shows as a property', () => {
    const command = unserialize(
      'O:25:"App\\Jobs\\SendWelcomeEmail":3:{s:2:"to";s:15:"ada@example.com";s:10:"\0*\0subject";s:2:"Hi";s:31:"\0App\\Jobs\\SendWelcomeEmail\0meta";a:1:{s:5:"seats";i:3;}}',
    );
    const plain = toPlain(command) as Record<string | symbol, unknown>;
    expect(plain).to.deep.equal({ to: 'ada@example.com', subject: 'Hi', meta: { seats: 3 } });
    expect(phpClassOf(plain)).to.equal('App\\Jobs\\SendWelcomeEmail');
    expect(plain[PHP_CLASS]).to.equal('App\\Jobs\\SendWelcomeEmail');
    expect(Object.keys(plain)).to.deep.equal(['to', 'subject', 'meta']);
    expect(JSON.stringify(plain)).to.equal('{"to":"ada@example.com","subject":"Hi","meta":{"seats":3}}');
    expect(phpClassOf({ to: 'x' })).to.equal(undefined);
    expect(phpClassOf((plain as { meta: unknown }).meta)).to.equal(undefined);
  });

  it('lets a public property win a name clash and keeps the other in shadowedPropertiesOf', () => {
    // class Base { private $x = 'base'; protected $p = 1; } class Child extends Base { public $x = 'child'; }
    const plain = toPlain(
      unserialize('O:5:"Child":3:{s:7:"\0Base\0x";s:4:"base";s:4:"\0*\0p";i:1;s:1:"x";s:5:"child";}'),
    );
    expect(plain).to.deep.equal({ x: 'child', p: 1 });
    expect(shadowedPropertiesOf(plain)).to.deep.equal([
      { name: 'x', visibility: 'private', declaringClass: 'Base', value: 'base' },
    ]);
  });

  it('gives the first of two non-public clashing properties the name', () => {
    const object = new PhpObject('C', [
      { name: 'x', visibility: 'private', declaringClass: 'B', value: 1n },
      { name: 'x', visibility: 'protected', value: 2n },
    ]);
    const plain = toPlain(object);
    expect(plain).to.deep.equal({ x: 1 });
    expect(shadowedPropertiesOf(plain)).to.deep.equal([{ name: 'x', visibility: 'protected', value: 2 }]);
    expect(shadowedPropertiesOf(toPlain(new PhpObject('D')))).to.deep.equal([]);
  });

  it('passes enums and custom objects through', () => {
    const e = new PhpEnum('App\\Enums\\Level', 'High');
    const c = new PhpCustomObject('Foo', Buffer.from('x'));
    expect(toPlain(PhpArray.list([e, c]))).to.deep.equal([e, c]);
    expect((toPlain(PhpArray.list([e])) as unknown[])[0]).to.equal(e);
  });

  it('gives the same JS object for r: back-references', () => {
    const plain = toPlain(
      unserialize('a:4:{s:1:"a";O:8:"stdClass":0:{}s:1:"b";O:8:"stdClass":0:{}s:2:"a2";r:2;s:2:"b2";r:3;}'),
    ) as Record<string, unknown>;
    expect(plain.a2).to.equal(plain.a);
    expect(plain.b2).to.equal(plain.b);
    expect(plain.a).to.not.equal(plain.b);
  });

  it('resolves cycles and R: references without recursing forever', () => {
    const plain = toPlain(
      unserialize('O:8:"stdClass":3:{s:4:"self";r:1;s:4:"list";a:2:{i:0;i:1;i:1;i:2;}s:5:"alias";R:3;}'),
    ) as Record<string, unknown>;
    expect(plain.self).to.equal(plain);
    expect(plain.alias).to.equal(plain.list);
    expect(plain.list).to.deep.equal([1, 2]);
    expect((toPlain(unserialize('a:2:{i:0;i:5;i:1;R:2;}')) as unknown[])[1]).to.equal(5);
  });

  it('refuses a reference without a resolved target', () => {
    expect(() => toPlain(new PhpReference('r', 1))).to.throw(TypeError, /unresolved PHP reference r:1/);
  });
});
