// The module `larq types` writes for a Laravel 12.67 and a 13.26 app folder (spec/support/typesApp.ts)
// compiles under strict TypeScript, and so does code using it as a user would: typed make() calls and
// typed handlers are accepted, and each `@ts-expect-error` line (a missing or wrongly typed property, an
// unknown enum case, a handler reading a property as the wrong type) must still be an error, or the
// compiler reports the directive as unused. Runs the compiler: tens of seconds (spec/tiers.js `compiles`).
import { expect } from 'chai';
import { writeFileSync } from 'fs';
import { join, relative, resolve } from 'path';
import * as ts from 'typescript';
import { main } from '../../lib/cli/main';
import { requirePhp, type PhpLaravelLine } from '../support/php';
import { LIB, makeTypesApp, type TypesApp } from '../support/typesApp';

const LINES: PhpLaravelLine[] = ['12.67', '13.26'];

// Written next to each generated module: what a Node team writes against it.
const USAGE = `import { Handlers, RedisQueue } from ${JSON.stringify(LIB)};
import { ArchiveOrder, NotifyChannel, SendInvoice, SendShipmentNotice, ShipParcel, TouchCustomers } from './larq-types';

export async function dispatch(queue: RedisQueue): Promise<void> {
  await queue.push(SendInvoice.make({ customer: 7, amount: 2 }));
  await queue.push(SendInvoice.make({ customer: { id: 7, connection: 'mysql' }, amount: 2.5, status: 'Paid' }));
  await queue.push(ArchiveOrder.make({ orderId: 42, priority: 'High' }));
  await queue.push(NotifyChannel.make({ channel: 'Sms' }));
  await queue.push(TouchCustomers.make({ customers: { class: 'Shop\\\\Models\\\\Customer', ids: [7, 8] } }));
  await queue.push(
    ShipParcel.make({
      to: { street: 'Damrak 1', geo: { lat: 52.37, lng: 4 } },
      item: { sku: 'sku-9', qty: 2, price: { cents: 1999 } },
    }),
  );
  // @ts-expect-error -- amount is required
  SendInvoice.make({ customer: 7 });
  // @ts-expect-error -- amount is a float, not a string
  SendInvoice.make({ customer: 7, amount: '2' });
  // @ts-expect-error -- Medium is no case of Priority
  ArchiveOrder.make({ orderId: 1, priority: 'Medium' });
  // @ts-expect-error -- SendInvoice has no property invoice
  SendInvoice.make({ customer: 7, amount: 2, invoice: 1 });
  // @ts-expect-error -- Geo needs lng
  ShipParcel.make({ to: { street: 'x', geo: { lat: 1 } }, item: { sku: 'a', qty: 1, price: { cents: 1 } } });
}

export const handlers = new Handlers()
  .object(SendInvoice, (invoice, ctx) => {
    const amount: number = invoice.amount;
    const customer: string = invoice.customer.class;
    const id: number | string = invoice.customer.id;
    void [amount, customer, id, ctx.job];
    // @ts-expect-error -- amount is a number
    const wrong: string = invoice.amount;
    // @ts-expect-error -- SendInvoice has no property invoice
    void invoice.invoice;
    void wrong;
  })
  .object(ArchiveOrder, (order) => {
    const c: 'Low' | 'High' = order.priority.caseName;
    void c;
    // @ts-expect-error -- orderId is readonly, as in PHP
    order.orderId = 1;
  })
  .listener(SendShipmentNotice, (listener) => {
    const tracking: string = listener.data[0].tracking;
    const weight: number = listener.data[0].weight;
    void [tracking, weight];
  })
  .object('Shop\\\\Jobs\\\\Untyped', (job) => void job.anything);
`;

describe('interop: the module larq types writes compiles under strict TypeScript', function () {
  this.timeout(240_000);
  const apps: TypesApp[] = [];
  const saved = process.env.LARQ_LARAVEL;

  before(async function () {
    for (const line of LINES) {
      requirePhp(this, line);
      process.env.LARQ_LARAVEL = line;
      const app = makeTypesApp();
      apps.push(app);
      const err: string[] = [];
      const code = await main(['types', `--app=${app.dir}`, `--import=${LIB}`], {
        out: () => {},
        err: (l) => err.push(l),
      });
      expect(code, err.join('\n')).to.equal(0);
      writeFileSync(join(app.dir, 'usage.ts'), USAGE);
    }
  });
  after(() => {
    for (const app of apps) app.remove();
    if (saved === undefined) delete process.env.LARQ_LARAVEL;
    else process.env.LARQ_LARAVEL = saved;
  });

  it('for Laravel 12.67 and 13.26: typed dispatch and handlers accepted, wrong uses rejected', function () {
    const root = resolve(__dirname, '../..');
    const config = ts.getParsedCommandLineOfConfigFile(
      resolve(root, 'tsconfig.json'),
      {},
      { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined },
    );
    expect(config, 'tsconfig.json').to.not.equal(undefined);
    expect(config!.options.strict).to.equal(true);
    const files = apps.flatMap((a) => [join(a.dir, 'larq-types.ts'), join(a.dir, 'usage.ts')]);
    const program = ts.createProgram(files, { ...config!.options, rootDir: undefined, noEmit: true });
    const text = ts
      .getPreEmitDiagnostics(program)
      .filter((d) => d.file === undefined || !d.file.fileName.includes('node_modules'))
      .map(
        (d) =>
          `${d.file ? `${relative(root, d.file.fileName)}:${d.file.getLineAndCharacterOfPosition(d.start ?? 0).line + 1} ` : ''}${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`,
      );
    expect(text).to.deep.equal([]);
  });
});
