// `larq types` against a real Laravel 12.67 and 13.26 app folder (spec/support/typesApp.ts: 17 job,
// listener, notification and mail classes with typed, nullable, union, readonly, promoted, enum, model,
// collection, Carbon and nested value-object properties). For each class an object made through the
// generated declaration is byte-equal to PHP's serialize() of the same object; the jobs larq pushes run in
// Laravel's own worker with their properties intact; a handler typed by a declaration receives, for jobs
// PHP dispatched, what the declaration's interface says; `--check` fails once PHP renames a property and
// passes after regenerating, and `larq work` warns at start about the stale handler. (That the module
// compiles under strict TypeScript is larq-types-compile.spec.ts, in the slow tier.)
import { expect } from 'chai';
import { readFileSync, writeFileSync } from 'fs';
import { join } from 'path';
import type Redis from 'ioredis';
import { main } from '../../lib/cli/main';
import { createWorker } from '../../lib/createWorker';
import { Handlers } from '../../lib/handlers/Handlers';
import { php } from '../../lib/php/builder';
import { serializeToBuffer } from '../../lib/php/serialize';
import { PhpEnum, PhpObject } from '../../lib/php/values';
import { PHP_CLASS } from '../../lib/php/view';
import { RedisQueue } from '../../lib/RedisQueue';
import { parsePhpType, type PhpTypeMember } from '../../lib/types/phpTypes';
import { reflectApp, type ReflectedClass, type Reflection } from '../../lib/types/reflection';
import type { TypedListener } from '../../lib/types/TypedListener';
import type { TypedPhpClass } from '../../lib/types/TypedPhpClass';
import { laravelHarness, PHP_DIR, requirePhp, type PhpDescribed, type PhpLaravelLine } from '../support/php';
import { randomPrefix, rawClient, requireRedis } from '../support/redis';
import { LIB, makeTypesApp, type TypesApp } from '../support/typesApp';

const LINES: PhpLaravelLine[] = ['12.67', '13.26'];

type Declarations = Record<string, TypedPhpClass<object, object>>;

// The same objects compat-fixtures/php/types.php makes, case by case, built from plain JS values.
const JOBS: Record<string, [string, Record<string, unknown>]> = {
  SendInvoice: ['SendInvoice', { customer: { id: 7, connection: 'mysql' }, amount: 2 }],
  ChargeCard: ['ChargeCard', { reference: 'ref-1', note: 'first try', fee: 3 }],
  ChargeCardInt: ['ChargeCard', { reference: 1042 }],
  ArchiveOrder: ['ArchiveOrder', { orderId: 42, priority: 'High' }],
  SyncCatalog: ['SyncCatalog', { skus: { items: ['a-1', 'b-2'] } }],
  RemindCustomer: [
    'RemindCustomer',
    { remindAt: new Date('2026-03-04T05:06:07Z'), created: new Date('2026-01-01T00:00:00Z') },
  ],
  RemindCustomerUntil: [
    'RemindCustomer',
    {
      remindAt: new Date('2026-03-04T05:06:07.250Z'),
      created: new Date('2026-01-01T00:00:00Z'),
      until: new Date('2026-04-01T00:00:00Z'),
    },
  ],
  ShipParcel: [
    'ShipParcel',
    {
      to: { street: 'Damrak 1', city: 'Amsterdam', geo: { lat: 52.37, lng: 4 } },
      item: { sku: 'sku-9', qty: 2, price: { cents: 1999 } },
    },
  ],
  NotifyChannel: ['NotifyChannel', { channel: 'Sms' }],
  RefundPayment: ['RefundPayment', { money: { cents: 500, currency: 'USD' }, reason: 'damaged' }],
  ImportRows: ['ImportRows', { rows: [{ a: 1 }, { a: 2.5 }] }],
  TouchCustomers: [
    'TouchCustomers',
    { customers: { class: 'Shop\\Models\\Customer', ids: [7, 8], connection: 'mysql' } },
  ],
  StoreUpload: ['StoreUpload', { path: '/uploads/x.pdf' }],
};
const OTHERS: Record<string, [string, Record<string, unknown>]> = {
  OrderShipped: ['OrderShipped', { customer: { id: 8, connection: 'mysql' }, tracking: 'TRK-1', weight: 1 }],
  StockChanged: ['StockChanged', { sku: 'sku-1', delta: -3 }],
  InvoicePaid: ['InvoicePaid', { total: { cents: 100 }, status: 'Paid' }],
  ShipmentDelayed: ['ShipmentDelayed', { days: 3 }],
  OrderReceipt: ['OrderReceipt', { customer: { id: 9, connection: 'mysql' }, total: 10 }],
  WeeklyDigest: [
    'WeeklyDigest',
    { week: php.dateTime(new Date('2026-02-02T00:00:00Z'), { className: 'Illuminate\\Support\\Carbon' }) },
  ],
};

for (const line of LINES)
  describe(`interop: larq types in a Laravel ${line} app`, function () {
    this.timeout(120000);
    const { runLaravelWorker, runPhp } = laravelHarness(line);
    let port: number;
    let client: Redis;
    let app: TypesApp;
    let module: string;
    let reflection: Reflection;
    let declared: Declarations;
    const saved = process.env.LARQ_LARAVEL;

    // `larq types` in-process, as a user runs it in the app's folder; its output lines and status.
    async function larq(args: string[]): Promise<{ code: number; out: string[]; err: string[] }> {
      const out: string[] = [];
      const err: string[] = [];
      const code = await main(args, { out: (l) => out.push(l), err: (l) => err.push(l) });
      return { code, out, err };
    }

    // the generated module, as the app's code imports it (compiled by the specs' ts-node)
    async function loadModule(): Promise<Declarations> {
      return (await import(module)) as Declarations;
    }

    before(async function () {
      requirePhp(this, line);
      port = await requireRedis(this);
      client = rawClient(port);
      process.env.LARQ_LARAVEL = line; // the app's vendor/autoload.php loads this line
      app = makeTypesApp();
      module = join(app.dir, 'larq-types.ts');
      const run = await larq(['types', `--app=${app.dir}`, `--import=${LIB}`]);
      expect(run.code, run.err.join('\n')).to.equal(0);
      expect(run.out.join('\n')).to.match(new RegExp(`wrote .*larq-types\\.ts: 24 classes \\(Laravel ${line}`));
      reflection = reflectApp(app.dir);
      declared = await loadModule();
    });
    after(() => {
      client?.disconnect();
      app?.remove();
      if (saved === undefined) delete process.env.LARQ_LARAVEL;
      else process.env.LARQ_LARAVEL = saved;
    });

    const make = ([name, input]: [string, Record<string, unknown>]): PhpObject => {
      expect(declared[name], `the module declares ${name}`).to.be.an('object');
      return declared[name].make(input);
    };

    it('declares every queueable class and lists what PHP computes at dispatch in the header', function () {
      const kinds = reflection.classes.filter((c) => ['job', 'listener', 'notification', 'mail'].includes(c.kind));
      expect(kinds.map((c) => c.kind).sort()).to.deep.equal([
        ...Array(11).fill('job'),
        'listener',
        'listener',
        'mail',
        'mail',
        'notification',
        'notification',
      ]);
      const text = readFileSync(module, 'utf8');
      expect(text).to.include('//   Shop\\Jobs\\SendInvoice: tags(): computed when PHP dispatches; not known here');
      expect(text).to.include(
        '//   Shop\\Jobs\\ArchiveOrder: middleware(): computed when PHP dispatches; not known here',
      );
      expect(declared.SendInvoice.spec.tuning).to.deep.equal({ tries: 5, timeout: 30, backoff: [1, 5] });
      expect(declared.RefundPayment.spec.tuning).to.deep.equal({ uniqueFor: 600, unique: true });
      expect(declared.ImportRows.spec.tuning).to.deep.equal({ maxExceptions: 3 });
    });

    it("makes each class byte-equal to PHP's serialize() of the same object", async function () {
      const res = await runPhp(join(PHP_DIR, 'types.php'), [app.dir, 'serialize']);
      expect(res.code, res.stderr).to.equal(0);
      const fromPhp = JSON.parse(res.stdout) as Record<string, string>;
      const cases = { ...JOBS, ...OTHERS };
      expect(Object.keys(fromPhp)).to.deep.equal(Object.keys(cases));
      for (const [name, spec] of Object.entries(cases)) {
        const ours = serializeToBuffer(make(spec));
        expect(ours.toString('latin1'), name).to.equal(Buffer.from(fromPhp[name], 'base64').toString('latin1'));
      }
    });

    it("runs every job larq pushed in Laravel's worker with its properties intact", async function () {
      const prefix = randomPrefix();
      const queue = new RedisQueue({ connection: { port }, prefix, laravel: Number(line.split('.')[0]) as 12 | 13 });
      try {
        for (const spec of Object.values(JOBS)) await queue.push(make(spec), 'types');
      } finally {
        await queue.close();
      }
      const records = await runLaravelWorker({
        port,
        prefix,
        queue: 'types',
        env: { LARQ_WORKER_SETUP: join(PHP_DIR, 'types-worker.php'), LARQ_TYPES_APP: app.dir },
      });
      const described = await runPhp(join(PHP_DIR, 'types.php'), [app.dir, 'describe']);
      expect(described.code, described.stderr).to.equal(0);
      const expected = JSON.parse(described.stdout) as Record<string, PhpDescribed>;
      expect(records.map((r) => r.hook)).to.deep.equal(Object.keys(JOBS).map(() => 'handle'));
      Object.keys(JOBS).forEach((name, i) => {
        expect(withoutJob(records[i].description), name).to.deep.equal(withoutJob(expected[name]));
      });
      expect(await client.llen(`${prefix}queues:types`)).to.equal(0);
    });

    it('gives a handler typed by a declaration what its interface says, for jobs PHP dispatched', async function () {
      const prefix = randomPrefix();
      const sent = await runPhp(join(PHP_DIR, 'types.php'), [app.dir, 'dispatch'], {
        LARQ_REDIS_PORT: String(port),
        LARQ_PREFIX: prefix,
      });
      expect(sent.code, sent.stderr).to.equal(0);
      const received: [string, Record<string, unknown>][] = [];
      const heard: [string, Record<string, unknown>][] = [];
      const handlers = new Handlers();
      for (const name of new Set(Object.values(JOBS).map(([n]) => n)))
        handlers.object(declared[name], (view) => void received.push([name, view as Record<string, unknown>]));
      for (const name of ['SendShipmentNotice', 'UpdateStock'])
        handlers.listener(
          declared[name] as unknown as TypedListener<object, object, object>,
          (view) => void heard.push([name, view as Record<string, unknown>]),
        );
      // the compile-time side: SendInvoice's view is typed, amount a number and customer a model
      handlers.object(declared.SendInvoice as TypedPhpClass<{ amount: number }, object>, (invoice) => {
        const amount: number = invoice.amount;
        void amount;
      });
      const queue = new RedisQueue({ connection: { port }, prefix, laravel: Number(line.split('.')[0]) as 12 | 13 });
      try {
        const errors: Error[] = [];
        const worker = createWorker(queue, handlers, { memory: 4096, sleep: 0.05, stopWhenEmpty: true, timeout: 0 });
        worker.on('error', (e: Error) => void errors.push(e));
        await worker.daemon('default');
        expect(errors).to.deep.equal([]);
      } finally {
        await queue.close();
      }
      // SendInvoice is handled by the second registration: the last one wins
      expect(received.map(([n]) => n)).to.deep.equal(
        Object.values(JOBS)
          .map(([n]) => n)
          .filter((n) => n !== 'SendInvoice'),
      );
      const classes = new Map(reflection.classes.map((c) => [c.name, c]));
      for (const [name, view] of received) {
        expect(conformance(view, declared[name].className, classes), name).to.deep.equal([]);
      }
      // a queued listener's handler gets the CallQueuedListener, its event as the event's interface says
      expect(heard.map(([n, view]) => [n, view.class, view.method])).to.deep.equal([
        ['SendShipmentNotice', 'Shop\\Listeners\\SendShipmentNotice', 'handle'],
        ['UpdateStock', 'Shop\\Listeners\\UpdateStock', 'handle'],
      ]);
      for (const [name, view] of heard) {
        const event = reflection.classes.find((c) => c.name === `Shop\\Listeners\\${name}`)!.event!;
        const [data] = view.data as unknown[];
        expect(conformance(data, event, classes), name).to.deep.equal([]);
      }
      expect((heard[0][1].data as { tracking: string }[])[0].tracking).to.equal('TRK-1');
      expect((heard[1][1].data as { cost: unknown }[])[0].cost).to.equal(null);
      const archive = received.find(([n]) => n === 'ArchiveOrder')![1];
      expect(archive.orderId).to.equal(42);
      expect(archive.priority).to.deep.equal(new PhpEnum('Shop\\Enums\\Priority', 'High'));
      const parcel = received.find(([n]) => n === 'ShipParcel')![1] as { to: { geo: { lng: unknown } } };
      expect(parcel.to.geo.lng).to.equal(4);
    });

    it('--check fails after PHP renames a property, and larq work warns; regenerating makes it pass', async function () {
      const event = join(app.dir, 'app', 'Events', 'OrderShipped.php');
      const original = readFileSync(event, 'utf8');
      const flags = [`--app=${app.dir}`, `--import=${LIB}`];
      expect((await larq(['types', '--check', ...flags])).code).to.equal(0);
      writeFileSync(event, original.replace('$tracking', '$trackingCode'));
      try {
        const stale = await larq(['types', '--check', ...flags]);
        expect(stale.code).to.equal(1);
        expect(stale.err).to.deep.equal([
          `larq types: ${module} is stale; run larq types again:`,
          '  Shop\\Events\\OrderShipped: its PHP declaration changed',
          '  Shop\\Listeners\\SendShipmentNotice: its PHP declaration changed',
        ]);
        expect(readFileSync(module, 'utf8')).to.not.include('trackingCode');

        // larq work, with a handler typed by the now stale declaration of the listener
        const handlersFile = join(app.dir, 'handlers.ts');
        writeFileSync(
          handlersFile,
          `import { Handlers } from ${JSON.stringify(LIB)};\nimport { SendShipmentNotice, StoreUpload } from './larq-types';\n` +
            'export default new Handlers().listener(SendShipmentNotice, () => undefined).object(StoreUpload, () => undefined);\n',
        );
        writeFileSync(join(app.dir, '.env'), `REDIS_PORT=${port}\nQUEUE_FAILED_DRIVER=null\nCACHE_STORE=array\n`);
        const work = await larq([
          'work',
          `--app=${app.dir}`,
          `--handlers=${handlersFile}`,
          `--prefix=${randomPrefix()}`,
          '--stop-when-empty',
          '--sleep=0',
          '--quiet',
        ]);
        expect(work.code, work.err.join('\n')).to.equal(0);
        expect(work.err.filter((l) => l.includes('larq types'))).to.deep.equal([
          'larq work: warning: handler typed by a stale larq types declaration: Shop\\Listeners\\SendShipmentNotice: its PHP declaration changed (run larq types again)',
        ]);

        expect((await larq(['types', ...flags])).code).to.equal(0);
        expect((await larq(['types', '--check', ...flags])).code).to.equal(0);
        expect(readFileSync(module, 'utf8')).to.include('trackingCode');
      } finally {
        writeFileSync(event, original);
        await larq(['types', ...flags]);
      }
    });
  });

// A described object without what differs between two PHP processes holding the same values: its `job`
// (the live queue job in a worker, null elsewhere) and, at any depth, Carbon's `constructedObjectId` (the
// spl_object_hash of the object in the process that made it).
function withoutJob(d: PhpDescribed): PhpDescribed {
  if (d.t !== 'object') return d;
  const props = d.props.filter((p) => p.name !== 'job');
  return { ...d, props: props.map((p) => ({ ...p, value: withoutObjectIds(p.value) })) };
}

function withoutObjectIds(d: PhpDescribed): PhpDescribed {
  if (d.t === 'object')
    return {
      ...d,
      props: d.props
        .filter((p) => p.name !== 'constructedObjectId')
        .map((p) => ({ ...p, value: withoutObjectIds(p.value) })),
    };
  if (d.t === 'array') return { ...d, entries: d.entries.map((e) => ({ ...e, v: withoutObjectIds(e.v) })) };
  return d;
}

/**
 * How `view` (a handler's argument) departs from the interface the module declares for `className`: the
 * same mapping (parsePhpType) the generator writes the interface from, checked on the values. Empty when
 * it conforms: no property the interface lacks, every required one present, each value of its type.
 */
function conformance(view: unknown, className: string, classes: ReadonlyMap<string, ReflectedClass>): string[] {
  const c = classes.get(className)!;
  if (typeof view !== 'object' || view === null) return [`${className}: not an object`];
  const record = view as Record<string, unknown>;
  const errors: string[] = [];
  const declaredNames = new Set((c.properties ?? []).map((p) => p.name));
  for (const key of Object.keys(record))
    if (!declaredNames.has(key)) errors.push(`${className}: ${key} is not in the interface`);
  if ((record as { [PHP_CLASS]?: string })[PHP_CLASS] !== className) errors.push(`${className}: wrong class`);
  for (const p of c.properties ?? []) {
    const optional = c.serializesModels === true && p.default !== undefined;
    if (!(p.name in record)) {
      if (!optional) errors.push(`${className}: ${p.name} is missing`);
      continue;
    }
    const members = parsePhpType(p.type, classes);
    const value = record[p.name];
    if (!members.some((m) => fits(m, value, classes)))
      errors.push(`${className}: ${p.name} = ${String(value)} is not ${p.type}`);
  }
  return errors;
}

function fits(m: PhpTypeMember, value: unknown, classes: ReadonlyMap<string, ReflectedClass>): boolean {
  const obj = value as Record<string, unknown>;
  switch (m.kind) {
    case 'int':
      return typeof value === 'number' && Number.isInteger(value);
    case 'float':
      return typeof value === 'number';
    case 'string':
      return typeof value === 'string';
    case 'bool':
      return typeof value === 'boolean';
    case 'null':
      return value === null;
    case 'mixed':
      return true;
    case 'array':
      return typeof value === 'object' && value !== null && !(value instanceof PhpEnum);
    case 'enum':
      return value instanceof PhpEnum && value.className === m.className && m.cases.includes(value.caseName);
    case 'model':
      return (
        obj?.class === m.className &&
        ['number', 'string'].includes(typeof obj.id) &&
        Array.isArray(obj.relations) &&
        (obj.connection === null || typeof obj.connection === 'string')
      );
    case 'models':
      return typeof obj === 'object' && obj !== null && Array.isArray(obj.id);
    case 'date':
      return typeof obj?.date === 'string' && typeof obj.timezone_type === 'number' && typeof obj.timezone === 'string';
    case 'object':
      return conformance(value, m.className, classes).length === 0;
  }
}
