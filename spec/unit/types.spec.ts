// The types a handler author meets, checked twice: the TypeScript compiler must accept what a user
// writes (typed handlers, toPlain<T>, enum cases) and reject what is wrong (each `@ts-expect-error` line
// must still be an error, or tsc reports the directive as unused); the runtime checks below show the
// values really have the declared shapes. Everything comes from the package entry, as a user imports it.
import { expect } from 'chai';
import { relative, resolve } from 'path';
import * as ts from 'typescript';
import {
  Handlers,
  PhpEnum,
  PhpEnumCaseError,
  RedisJob,
  enumCase,
  isEnumOf,
  phpClass,
  systemClock,
  toPlain,
  unserialize,
  type JobContext,
  type ObjectJobContext,
  type ObjectJobHandler,
  type StringJobHandler,
} from '../../lib';
import type { JobAttempt } from '../../lib/jobs/contracts';
import { payloadFor } from '../../lib/jobs/dispatch';
import type { ReservedJobStore } from '../../lib/jobs/RedisJob';

/** The view of `App\Jobs\SendInvoice` a handler author declares. */
interface InvoiceJob {
  invoiceId: number;
  to: string;
  lines: { sku: string; qty: number }[];
}

/** What a string job `App\Legacy\Mailer@send` carries as `data`. */
interface MailerData {
  template: string;
  recipients: string[];
}

// Compiled, never called: the assignments must type-check and the expected errors must be errors.
function typeLevel(handlers: Handlers): void {
  handlers.object<InvoiceJob>('App\\Jobs\\SendInvoice', (job, ctx) => {
    const id: number = job.invoiceId;
    const sku: string = job.lines[0].sku;
    const context: ObjectJobContext = ctx;
    // @ts-expect-error -- InvoiceJob has no `amount`
    void job.amount;
    // @ts-expect-error -- invoiceId is a number
    const wrong: string = job.invoiceId;
    void [id, sku, context, wrong];
  });
  // A handler annotated with the job's interface is accepted as written, without the type argument.
  handlers.object('App\\Jobs\\SendInvoice', (job: InvoiceJob) => job.to.toUpperCase());
  const named: ObjectJobHandler<InvoiceJob> = async (job) => void job.to;
  handlers.object('App\\Jobs\\SendInvoice', named);
  handlers.listener<InvoiceJob>('App\\Listeners\\SendInvoice', (job) => job.invoiceId + 1);
  // Without a type argument the view is still a record of unknowns.
  handlers.object('App\\Jobs\\Any', (job) => {
    const value: unknown = job.anything;
    // @ts-expect-error -- an unknown is not a string without a check
    const text: string = job.anything;
    void [value, text];
  });
  // @ts-expect-error -- a job's view is an object, not a string
  handlers.object<string>('App\\Jobs\\Bad', () => undefined);

  handlers.string<MailerData>('App\\Legacy\\Mailer@send', (data, ctx) => {
    const first: string = data.recipients[0];
    const context: JobContext = ctx;
    // @ts-expect-error -- MailerData has no `subject`
    void data.subject;
    void [first, context];
  });
  const stringHandler: StringJobHandler<number[]> = (data) => data.length;
  handlers.string('App\\Legacy\\Sum', stringHandler);
  handlers.string('App\\Legacy\\Raw', (data) => {
    // @ts-expect-error -- string-job data is unknown unless typed
    void data.length;
  });

  const plain = toPlain<InvoiceJob>(unserialize('N;'));
  const to: string = plain.to;
  const untyped = toPlain(unserialize('N;'));
  // @ts-expect-error -- toPlain without a type argument gives unknown
  void untyped.to;

  const status = enumCase(new PhpEnum('App\\Enums\\Status', 'Paid'), 'App\\Enums\\Status', ['Paid', 'Open']);
  const paidOrOpen: 'Paid' | 'Open' = status;
  // @ts-expect-error -- 'Void' is not among the listed cases
  const notListed: 'Void' = status;
  const maybe: unknown = null;
  if (isEnumOf(maybe, 'App\\Enums\\Status')) {
    const caseName: string = maybe.caseName;
    void caseName;
  }
  void [to, paidOrOpen, notListed];
}
void typeLevel;

const SendInvoice = phpClass('App\\Jobs\\SendInvoice', { invoiceId: 'public', to: 'public', lines: 'public' });

function storeLog(): { store: ReservedJobStore; calls: string[] } {
  const calls: string[] = [];
  const store: ReservedJobStore = {
    encrypter: null,
    deleteReserved: async (queue) => void calls.push(`delete ${queue}`),
    deleteAndRelease: async (queue, _job, delay) => void calls.push(`release ${queue} ${delay}`),
  };
  return { store, calls };
}

const attempt: JobAttempt = {
  get signal() {
    return new AbortController().signal;
  },
};

function reserved(store: ReservedJobStore, payload: string): RedisJob {
  return new RedisJob(store, payload, payload.replace('"attempts":0', '"attempts":1'), 'redis', 'default');
}

describe('types that help handler authors', () => {
  it('compile under strict tsc: typed handlers accepted, wrong uses rejected', function () {
    this.timeout(120_000); // the compiler loads lib/ and its dependencies' declarations
    const root = resolve(__dirname, '../..');
    const config = ts.getParsedCommandLineOfConfigFile(
      resolve(root, 'tsconfig.json'),
      {},
      { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined },
    );
    expect(config, 'tsconfig.json').to.not.equal(undefined);
    const program = ts.createProgram([__filename.replace(/\.js$/, '.ts')], { ...config!.options, noEmit: true });
    const diagnostics = ts
      .getPreEmitDiagnostics(program)
      .filter((d) => d.file === undefined || !d.file.fileName.includes('node_modules'));
    const text = diagnostics.map(
      (d) =>
        `${d.file ? `${relative(root, d.file.fileName)}:${d.file.getLineAndCharacterOfPosition(d.start ?? 0).line + 1} ` : ''}${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`,
    );
    expect(text).to.deep.equal([]);
  });

  it('hands an object-job handler the view its interface describes', async () => {
    const { store, calls } = storeLog();
    const payload = payloadFor(
      SendInvoice.make({ invoiceId: 42, to: 'ada@example.com', lines: [{ sku: 'A-1', qty: 2 }] }),
      { line: 13, clock: systemClock },
    );
    let seen: InvoiceJob | undefined;
    await new Handlers()
      .object<InvoiceJob>('App\\Jobs\\SendInvoice', (job) => void (seen = job))
      .run(reserved(store, payload), attempt);
    expect(seen).to.deep.equal({ invoiceId: 42, to: 'ada@example.com', lines: [{ sku: 'A-1', qty: 2 }] });
    expect(typeof seen!.invoiceId).to.equal('number');
    expect(calls).to.deep.equal(['delete default']);
  });

  it('hands a string-job handler its data as given', async () => {
    const { store } = storeLog();
    const payload = payloadFor(
      { job: 'App\\Legacy\\Mailer@send', data: { template: 'welcome', recipients: ['ada@example.com'] } },
      { line: 13, clock: systemClock },
    );
    let seen: MailerData | undefined;
    await new Handlers()
      .string<MailerData>('App\\Legacy\\Mailer@send', (data) => void (seen = data))
      .run(reserved(store, payload), attempt);
    expect(seen).to.deep.equal({ template: 'welcome', recipients: ['ada@example.com'] });
  });

  it('reads an enum case from a job as a typed case name, refusing other enums and cases', () => {
    const job = toPlain<{ status: unknown; other: unknown }>(
      unserialize(
        'O:20:"App\\Jobs\\SendInvoice":2:{s:6:"status";E:21:"App\\Enums\\Status:Paid";s:5:"other";E:19:"App\\Enums\\Tier:Gold";}',
      ),
    );
    expect(job.status).to.be.instanceOf(PhpEnum);
    expect(enumCase(job.status, 'App\\Enums\\Status', ['Paid', 'Open'])).to.equal('Paid');
    expect(isEnumOf(job.status, 'App\\Enums\\Status')).to.equal(true);
    expect(isEnumOf(job.other, 'App\\Enums\\Status')).to.equal(false);
    expect(() => enumCase(job.other, 'App\\Enums\\Status', ['Paid', 'Open'])).to.throw(
      PhpEnumCaseError,
      'expected a case of App\\Enums\\Status: got App\\Enums\\Tier::Gold',
    );
    expect(() => enumCase(job.status, 'App\\Enums\\Status', ['Open'])).to.throw(
      PhpEnumCaseError,
      'Paid is not one of Open',
    );
    expect(() => enumCase('Paid', 'App\\Enums\\Status', ['Paid'])).to.throw(PhpEnumCaseError, 'got string Paid');
  });
});
