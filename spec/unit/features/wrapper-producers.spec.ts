// The producers of Laravel's wrapper jobs, on what Laravel decides from the wrapped object and its
// methods' results (the byte-for-byte comparison with real Laravel is spec/interop/larq-types-wrappers.spec.ts):
// where a job is pushed, which delay and queue each notification channel gets, the notification id,
// and what a listener's options put in the CallQueuedListener and the payload.
import { expect } from 'chai';
import { FakeClock } from '../../../lib/clock';
import { dispatchMailable, sendQueuedMailable } from '../../../lib/features/SendQueuedMailable';
import { dispatchNotification } from '../../../lib/features/SendQueuedNotifications';
import { dispatchListener } from '../../../lib/features/wrappers';
import { payloadFor, type JobInput } from '../../../lib/jobs/dispatch';
import type { LaravelLine } from '../../../lib/LaravelLine';
import { laravelJobTraits, phpClass } from '../../../lib/php/builder';
import { unserialize } from '../../../lib/php/unserialize';
import { PhpArray, PhpObject } from '../../../lib/php/values';
import type { RedisQueue } from '../../../lib/RedisQueue';

interface Pushed {
  payload: Record<string, unknown>;
  command: PhpObject;
  queue: string | null;
  delay?: number;
}

// A queue of one Laravel line that records what would be pushed.
function fakeQueue(line: LaravelLine) {
  const pushed: Pushed[] = [];
  const clock = new FakeClock(1795276770000);
  const record = (job: JobInput, queue: string | null | undefined, delay?: number) => {
    const payload = JSON.parse(payloadFor(job, { line, clock, delay })) as Record<string, unknown>;
    const command = unserialize((payload.data as { command: string }).command) as PhpObject;
    pushed.push({ payload, command, queue: queue ?? null, ...(delay !== undefined ? { delay } : {}) });
    return `id-${pushed.length}`;
  };
  const q = {
    options: { laravel: { line } },
    push: async (job: JobInput, queue?: string | null) => record(job, queue),
    later: async (delay: number, job: JobInput, queue?: string | null) => record(job, queue, delay),
  };
  return { queue: q as unknown as RedisQueue, pushed };
}

const notificationOf = (line: LaravelLine) =>
  phpClass(
    'App\\Notifications\\InvoicePaid',
    { amount: 'public', id: { visibility: 'public', default: null }, locale: { visibility: 'public', default: null } },
    { traits: laravelJobTraits(line).slice(0, 1), serializesModels: line },
  );
const USER = { class: 'App\\Models\\User', id: 9, connection: 'mysql' };

describe('features: notification, mailable and listener producers', () => {
  it('queues a notification once per channel, one id for all, each with its own delay and queue', async () => {
    const { queue, pushed } = fakeQueue(13);
    const notification = notificationOf(13).make({
      amount: 5,
      queue: 'notices',
      delay: new Map([['mail', 30]]),
    });
    const ids = await dispatchNotification(queue, USER, notification, ['mail', 'database'], {
      viaQueues: { database: 'db-notices' },
    });
    expect(ids).to.deep.equal(['id-1', 'id-2']);
    expect(pushed.map((p) => [p.queue, p.delay, p.payload.displayName])).to.deep.equal([
      ['notices', 30, 'App\\Notifications\\InvoicePaid'],
      ['db-notices', undefined, 'App\\Notifications\\InvoicePaid'],
    ]);
    const [mail, database] = pushed.map((p) => p.command.get('notification') as PhpObject);
    expect(mail.get('id')).to.match(/^[0-9a-f-]{36}$/);
    expect(database.get('id')).to.equal(mail.get('id'));
    expect(pushed.map((p) => [...(p.command.get('channels') as PhpArray).entries.values()])).to.deep.equal([
      ['mail'],
      ['database'],
    ]);
    const notifiables = pushed[0].command.get('notifiables') as PhpObject;
    expect(notifiables.get('id')).to.deep.equal(PhpArray.list([9n]));
  });

  it('keeps a notification id that is set on 12.x+, and replaces it on 8.83', async () => {
    for (const [line, expected] of [
      [13, 'mine'],
      [8, 'given'],
    ] as const) {
      const { queue, pushed } = fakeQueue(line);
      await dispatchNotification(queue, USER, notificationOf(line).make({ amount: 1, id: 'mine' }), ['mail'], {
        id: 'given',
      });
      expect((pushed[0].command.get('notification') as PhpObject).get('id'), `line ${line}`).to.equal(expected);
    }
  });

  it("viaQueues() without the channel: 8.83 pushes on the default queue, 12.x+ on the notification's", async () => {
    for (const [line, expected] of [
      [8, null],
      [12, 'notices'],
    ] as const) {
      const { queue, pushed } = fakeQueue(line);
      const notification = notificationOf(line).make({ amount: 1, queue: 'notices' });
      await dispatchNotification(queue, USER, notification, ['mail'], { viaQueues: { sms: 'sms' } });
      expect(pushed[0].queue, `line ${line}`).to.equal(expected);
    }
  });

  it('pushes a mailable on its queue, later() with its delay, with its tries in the payload', async () => {
    const Mail = phpClass(
      'App\\Mail\\Receipt',
      { total: 'public', tries: { visibility: 'public', default: 3 } },
      { traits: laravelJobTraits(13).slice(0, 1) },
    );
    const { queue, pushed } = fakeQueue(13);
    await dispatchMailable(queue, Mail.make({ total: 1, queue: 'mail', delay: 60 }));
    expect(pushed.map((p) => [p.queue, p.delay, p.payload.maxTries, p.payload.displayName])).to.deep.equal([
      ['mail', 60, 3, 'App\\Mail\\Receipt'],
    ]);
    expect(pushed[0].command.get('queue')).to.equal('mail');
    // 8.83's SendQueuedMailable uses Queueable only: no job, no maxExceptions, no connection copied
    const old = sendQueuedMailable(Mail.make({ total: 1, queue: 'mail' }), { line: 8 });
    expect(old.properties.map((p) => p.name)).to.not.include.members(['job', 'maxExceptions', 'messageGroup']);
    expect(old.get('queue')).to.equal(null);
  });

  it("a listener's options pick its queue and delay and fill the 13.x CallQueuedListener", async () => {
    const { queue, pushed } = fakeQueue(13);
    const event = new PhpObject('App\\Events\\OrderShipped', [{ name: 'orderId', visibility: 'public', value: 1n }]);
    await dispatchListener(queue, 'App\\Listeners\\Notify', event, {
      queue: 'listeners',
      delay: 5,
      tries: 3,
      backoff: [1, 5],
      unique: { id: 'order-1' },
    });
    const [p] = pushed;
    expect([p.queue, p.delay, p.payload.maxTries, p.payload.backoff]).to.deep.equal(['listeners', 5, 3, '1,5']);
    expect(p.command.get('queue')).to.equal(null);
    expect(p.command.get('delay')).to.equal(null);
    expect([p.command.get('shouldBeUnique'), p.command.get('uniqueId'), p.command.get('uniqueFor')]).to.deep.equal([
      true,
      'order-1',
      0n,
    ]);
    expect(p.command.get('deleteWhenMissingModels')).to.equal(false);
  });
});
