// The declarations a `larq types` module is made of, without PHP: make() converts each JS value by the
// property's declared PHP type (checked against serialize()'s bytes as PHP 8.2 writes them), and the
// handlers registry routes a job to a handler registered through a declaration as it does by class name.
import { expect } from 'chai';
import { Handlers } from '../../../lib/handlers/Handlers';
import { php } from '../../../lib/php/builder';
import { serialize } from '../../../lib/php/serialize';
import { PhpEnum } from '../../../lib/php/values';
import { typedListener } from '../../../lib/types/TypedListener';
import { typedPhpClass, type TypedProperty } from '../../../lib/types/TypedPhpClass';

interface MoneyInput {
  cents: number | bigint;
  currency?: string;
}
const Money = typedPhpClass<{ cents: number; currency: string }, MoneyInput>('Shop\\Values\\Money', {
  modelLine: 12,
  serializesModels: false,
  hash: 'm',
  properties: [
    { name: 'cents', visibility: 'public', kind: 'int' },
    { name: 'currency', visibility: 'public', kind: 'string', constructorDefault: { t: 'string', v: 'EUR' } },
  ],
});

const props: TypedProperty[] = [
  { name: 'amount', visibility: 'public', kind: 'float' },
  { name: 'ref', visibility: 'public', kind: { union: ['int', 'string'] }, default: { t: 'null' } },
  { name: 'ratio', visibility: 'public', kind: { union: ['int', 'float'] }, default: { t: 'null' } },
  {
    name: 'status',
    visibility: 'protected',
    kind: { enum: 'Shop\\Enums\\Status' },
    constructorDefault: { t: 'enum', class: 'Shop\\Enums\\Status', case: 'Open' },
  },
  { name: 'customer', visibility: 'public', kind: { model: 'Shop\\Models\\Customer' }, default: { t: 'null' } },
  { name: 'at', visibility: 'public', kind: { date: 'Illuminate\\Support\\Carbon' }, default: { t: 'null' } },
  { name: 'money', visibility: 'public', kind: { object: () => Money }, default: { t: 'null' } },
  {
    name: 'fee',
    visibility: 'private',
    mangledClass: 'Shop\\Jobs\\Pay',
    kind: 'float',
    default: { t: 'float', v: '0.0' },
  },
];
const Pay = typedPhpClass<object, Record<string, unknown>>('Shop\\Jobs\\Pay', {
  modelLine: 12,
  serializesModels: true,
  hash: 'p',
  properties: props,
});

describe('typedPhpClass', () => {
  it('writes a float property as a PHP float, even for a whole number', () => {
    expect(serialize(Pay.make({ amount: 2 }))).to.equal(
      'O:13:"Shop\\Jobs\\Pay":2:{s:6:"amount";d:2;s:9:"\0*\0status";E:22:"Shop\\Enums\\Status:Open";}',
    );
  });

  it('leaves a property at its declared default out with SerializesModels, never a constructor default', () => {
    const text = serialize(Pay.make({ amount: 1.5, fee: 0 }));
    expect(text).to.not.include('fee'); // 0 is the float default 0.0 once converted
    expect(text).to.include('status');
    expect(serialize(Pay.make({ amount: 1.5, fee: 1 }))).to.include('s:18:"\0Shop\\Jobs\\Pay\0fee";d:1;');
  });

  it('converts a union by the value: a whole number to int when the union has int, else float', () => {
    expect(serialize(Pay.make({ amount: 1, ref: 7 }))).to.include('s:3:"ref";i:7;');
    expect(serialize(Pay.make({ amount: 1, ref: 'r-7' }))).to.include('s:3:"ref";s:3:"r-7";');
    expect(serialize(Pay.make({ amount: 1, ratio: 3 }))).to.include('s:5:"ratio";i:3;');
    expect(serialize(Pay.make({ amount: 1, ratio: 0.5 }))).to.include('s:5:"ratio";d:0.5;');
  });

  it('takes an enum case by name, a model by key, a date as a Date and a value object as plain values', () => {
    const text = serialize(
      Pay.make({
        amount: 1,
        status: 'Paid',
        customer: { id: 7, connection: 'mysql' },
        at: new Date('2026-03-04T05:06:07.250Z'),
        money: { cents: 100 },
      }),
    );
    expect(text).to.include('E:22:"Shop\\Enums\\Status:Paid";');
    expect(text).to.include(
      's:8:"customer";O:45:"Illuminate\\Contracts\\Database\\ModelIdentifier":5:{s:5:"class";s:20:"Shop\\Models\\Customer";s:2:"id";i:7;s:9:"relations";a:0:{}s:10:"connection";s:5:"mysql";s:15:"collectionClass";N;}',
    );
    expect(text).to.include(
      's:2:"at";O:25:"Illuminate\\Support\\Carbon":3:{s:4:"date";s:26:"2026-03-04 05:06:07.250000";s:13:"timezone_type";i:3;s:8:"timezone";s:3:"UTC";}',
    );
    expect(text).to.include('s:5:"money";O:17:"Shop\\Values\\Money":2:{s:5:"cents";i:100;s:8:"currency";s:3:"EUR";}');
  });

  it('passes values already in PHP form through, and refuses what the type cannot take', () => {
    const text = serialize(Pay.make({ amount: php.float(3), status: new PhpEnum('Shop\\Enums\\Status', 'Void') }));
    expect(text).to.include('s:6:"amount";d:3;');
    expect(text).to.include('Status:Void');
    expect(() => Pay.make({ amount: 1, status: 2 })).to.throw(
      'Shop\\Jobs\\Pay::$status: give a case name of Shop\\Enums\\Status',
    );
    expect(() => Pay.make({ amount: 1, at: '2026-01-01' })).to.throw('give a Date');
    expect(() => Pay.make({ amount: 1, nope: 1 })).to.throw('Shop\\Jobs\\Pay has no property nope');
    expect(() => Pay.make({})).to.throw('property amount has no default and was not given');
  });

  it('refuses to make a class that writes its own serialized form', () => {
    const Custom = typedPhpClass<object, { a?: number }>('Shop\\Values\\Custom', {
      modelLine: 12,
      serializesModels: false,
      hash: 'c',
      customSerialization: '__serialize()',
      properties: [{ name: 'a', visibility: 'public', kind: 'int', default: { t: 'null' } }],
    });
    expect(() => Custom.make({ a: 1 })).to.throw(
      'Shop\\Values\\Custom writes its own serialized form (__serialize()); build it with php.serialized()',
    );
  });

  it('routes jobs to handlers registered through a declaration, and remembers its hash', () => {
    const Notice = typedListener('Shop\\Listeners\\Notice', Money, 'l');
    const handlers = new Handlers()
      .object(Pay, () => undefined)
      .listener(Notice, () => undefined)
      .object('Shop\\Jobs\\ByName', () => undefined);
    expect(handlers.summary().objects).to.deep.equal(['Shop\\Jobs\\Pay', 'Shop\\Jobs\\ByName']);
    expect(handlers.summary().listeners).to.deep.equal(['Shop\\Listeners\\Notice']);
    expect([...handlers.declarations()]).to.deep.equal([
      ['Shop\\Jobs\\Pay', 'p'],
      ['Shop\\Listeners\\Notice', 'l'],
    ]);
  });
});
