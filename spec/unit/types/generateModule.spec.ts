// The module text `larq types` writes from a reflection, without PHP: the interface lines the PHP types
// map to (docs/types.md's table), the header listing what PHP computes at dispatch, the manifest of class
// hashes, and how --check tells a changed, removed or new class from the manifest.
import { expect } from 'chai';
import { staleClasses, describeStale } from '../../../lib/types/checkTypes';
import { generateModule, readManifest } from '../../../lib/types/generateModule';
import type { ReflectedClass, ReflectedProperty, Reflection } from '../../../lib/types/reflection';
import { shapeHashes } from '../../../lib/types/shapeHash';

const prop = (name: string, type: string | null, extra: Partial<ReflectedProperty> = {}): ReflectedProperty => ({
  name,
  visibility: 'public',
  type,
  readonly: false,
  promoted: false,
  declaringClass: 'Shop\\Jobs\\Pay',
  ...extra,
});

function reflection(statusCases = ['Open', 'Paid']): Reflection {
  const classes: ReflectedClass[] = [
    {
      name: 'Shop\\Jobs\\Pay',
      kind: 'job',
      file: 'app/Jobs/Pay.php',
      serializesModels: true,
      traits: [],
      properties: [
        prop('amount', 'float'),
        prop('ref', 'string|int'),
        prop('note', '?string', { default: { t: 'null' } }),
        prop('status', 'Shop\\Enums\\Status', { readonly: true, promoted: true }),
        prop('customer', 'Shop\\Models\\Customer'),
        prop('at', 'Carbon\\Carbon'),
        prop('money', 'Shop\\Values\\Money'),
        prop('extra', null, { default: { t: 'null' } }),
        prop('tries', null, { default: { t: 'int', v: '3' } }),
      ],
      tuning: { tries: { t: 'int', v: '3' } },
      dynamic: ['tags(): computed when PHP dispatches; not known here'],
    },
    {
      name: 'Shop\\Enums\\Status',
      kind: 'enum',
      backing: 'string',
      cases: statusCases.map((c) => ({ name: c, value: { t: 'string', v: c.toLowerCase() } })),
    },
    { name: 'Shop\\Models\\Customer', kind: 'model' },
    { name: 'Carbon\\Carbon', kind: 'date' },
    {
      name: 'Shop\\Values\\Money',
      kind: 'value',
      serializesModels: false,
      properties: [prop('cents', 'int', { declaringClass: 'Shop\\Values\\Money' })],
    },
  ];
  return { laravel: '13.26.1', php: '8.2.36', classes };
}

describe('generateModule', () => {
  const { text, manifest } = generateModule(reflection());

  it('maps each PHP property type to what a handler receives', () => {
    for (const line of [
      '  /** public float */ amount: number;',
      '  /** public string|int */ ref: string | number;',
      '  /** public ?string = null */ note?: string | null;',
      '  /** public promoted Shop\\Enums\\Status */ readonly status: PhpEnumCase<"Shop\\\\Enums\\\\Status", "Open" | "Paid">;',
      '  /** public Shop\\Models\\Customer */ customer: ModelIdentifierView<"Shop\\\\Models\\\\Customer">;',
      '  /** public Carbon\\Carbon */ at: PhpDateView;',
      '  /** public Shop\\Values\\Money */ money: Money;',
      '  /** public (untyped) = null */ extra?: unknown;',
    ])
      expect(text).to.include(line);
  });

  it('and to what make() takes: required without a default', () => {
    for (const line of [
      '  amount: number;',
      '  ref: string | number | bigint;',
      '  note?: string | null;',
      '  status: "Open" | "Paid" | PhpEnum;',
      '  customer: ModelInput;',
      '  at: PhpDateInput;',
      '  money: MoneyInput | PhpObject;',
      '  tries?: unknown;',
    ])
      expect(text).to.include(line);
    expect(text).to.include('    { name: "amount", visibility: "public", kind: "float" },');
    expect(text).to.include('  tuning: { tries: 3 },');
  });

  it('lists what PHP computes at dispatch in the header, and carries the manifest', () => {
    expect(text).to.include('//   Shop\\Jobs\\Pay: tags(): computed when PHP dispatches; not known here');
    expect(readManifest(text)).to.deep.equal(manifest);
    expect(Object.keys(manifest.classes)).to.deep.equal(['Shop\\Jobs\\Pay', 'Shop\\Values\\Money']);
  });

  it('declares a class that writes its own serialized form without guessing its bytes', () => {
    const r = reflection();
    r.classes.find((c) => c.name === 'Shop\\Values\\Money')!.dynamic = [
      '__serialize(): the class writes its own serialized form',
    ];
    expect(generateModule(r).text).to.include('  customSerialization: "__serialize()",');
  });

  it('folds a used enum into the hash of the class holding it', () => {
    const before = shapeHashes(reflection().classes);
    const after = shapeHashes(reflection(['Open', 'Paid', 'Void']).classes);
    expect(after.get('Shop\\Jobs\\Pay')).to.not.equal(before.get('Shop\\Jobs\\Pay'));
    expect(after.get('Shop\\Values\\Money')).to.equal(before.get('Shop\\Values\\Money'));
  });

  it('tells changed, removed and new classes apart', () => {
    const fresh = { laravel: null, classes: { A: '1', B: '2', D: '4' } };
    const stale = staleClasses({ A: '1', B: 'x', C: '3' }, fresh);
    expect(describeStale(stale)).to.deep.equal([
      'B: its PHP declaration changed',
      'C: PHP no longer declares it',
      'D: new in PHP',
    ]);
    expect(staleClasses({ A: '1', B: 'x' }, fresh, { onlyWritten: true }).map((s) => s.className)).to.deep.equal(['B']);
  });
});
