// The wrappers Laravel queues around an app's queued listeners, notifications and mailables, against a
// real Laravel 8.83, 12.67 and 13.26 app folder (spec/support/typesApp.ts): for the app's 2 listeners, 2
// notifications (one on two channels) and 2 mailables, a value made through the `larq types` declaration
// (on 8.83: the object PHP queued, read back) and pushed by larq (dispatchListener, dispatchNotification, dispatchMailable) is the payload Laravel
// pushes for the same object (Dispatcher::queueHandler, NotificationSender::queueNotification,
// Mailable::queue), byte for byte but for uuid, id, createdAt and the notification's random id; and
// Laravel's own worker runs it with the properties intact: the listener gets its event, the app's
// recording channels the notification and its notifiable, the mailable's build() the mailable.
import { expect } from 'chai';
import { join } from 'path';
import type Redis from 'ioredis';
import { main } from '../../lib/cli/main';
import { dispatchMailable } from '../../lib/features/SendQueuedMailable';
import { dispatchNotification } from '../../lib/features/SendQueuedNotifications';
import { dispatchListener } from '../../lib/features/wrappers';
import { php } from '../../lib/php/builder';
import { unserialize } from '../../lib/php/unserialize';
import type { PhpArray, PhpObject, PhpValue } from '../../lib/php/values';
import { RedisQueue } from '../../lib/RedisQueue';
import type { TypedListener } from '../../lib/types/TypedListener';
import type { TypedPhpClass } from '../../lib/types/TypedPhpClass';
import { laravelHarness, PHP_DIR, requirePhp, type PhpDescribed, type PhpLaravelLine } from '../support/php';
import { masked } from '../support/php13';
import { randomPrefix, rawClient, requireRedis } from '../support/redis';
import { LIB, makeTypesApp, type TypesApp } from '../support/typesApp';

const LINES: PhpLaravelLine[] = ['8.83', '12.67', '13.26'];

type Declarations = Record<string, TypedPhpClass<object, object> | TypedListener<object, object, object>>;

const CUSTOMER_9 = { class: 'Shop\\Models\\Customer', id: 9, connection: 'mysql' };
const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
// the notification's id as it sits in data.command (serialized, then JSON-escaped)
const NOTIFICATION_ID = new RegExp(`s:2:\\\\"id\\\\";s:36:\\\\"(${UUID})\\\\"`, 'g');

for (const line of LINES)
  describe(`interop: listeners, notifications and mailables of a Laravel ${line} app, pushed by larq`, function () {
    this.timeout(120000);
    const { runLaravelWorker, runPhp } = laravelHarness(line);
    let port: number;
    let client: Redis;
    let app: TypesApp;
    let declared: Declarations;
    const saved = process.env.LARQ_LARAVEL;

    before(async function () {
      requirePhp(this, line);
      port = await requireRedis(this);
      client = rawClient(port);
      process.env.LARQ_LARAVEL = line;
      app = makeTypesApp();
      const code = await main(['types', `--app=${app.dir}`, `--import=${LIB}`], { out: () => {}, err: () => {} });
      expect(code).to.equal(0);
      declared = (await import(join(app.dir, 'larq-types.ts'))) as Declarations;
    });
    after(() => {
      client?.disconnect();
      app?.remove();
      if (saved === undefined) delete process.env.LARQ_LARAVEL;
      else process.env.LARQ_LARAVEL = saved;
    });

    const typed = (name: string) => declared[name] as TypedPhpClass<object, object>;
    const make = (name: string, input: Record<string, unknown>): PhpObject => typed(name).make(input);

    // The objects the wrappers carry, made through the generated declarations. Laravel 8.83's
    // SerializesModels writes its own form (__sleep), which a declaration does not guess: on 8.83 the
    // objects are the ones PHP queued (read back from its payloads), so larq's wrapper around the same
    // object is what is compared.
    async function objects(): Promise<Record<string, PhpObject>> {
      if (line !== '8.83')
        return {
          OrderShipped: make('OrderShipped', {
            customer: { id: 8, connection: 'mysql' },
            tracking: 'TRK-1',
            weight: 1,
          }),
          StockChanged: make('StockChanged', { sku: 'sku-1', delta: -3 }),
          InvoicePaid: make('InvoicePaid', { total: { cents: 100 }, status: 'Paid' }),
          ShipmentDelayed: make('ShipmentDelayed', { days: 3 }),
          OrderReceipt: make('OrderReceipt', { customer: { id: 9, connection: 'mysql' }, total: 10 }),
          WeeklyDigest: make('WeeklyDigest', {
            week: php.dateTime(new Date('2026-02-02T00:00:00Z'), { className: 'Illuminate\\Support\\Carbon' }),
          }),
        };
      const prefix = randomPrefix();
      await phpWrappers(prefix);
      const commands = (await client.lrange(`${prefix}queues:default`, 0, -1)).map(
        (p) => unserialize(JSON.parse(p).data.command as string) as PhpObject,
      );
      const first = (v: PhpValue | undefined) => (v as PhpArray).entries.values().next().value as PhpObject;
      return {
        OrderShipped: first(commands[0].get('data')),
        StockChanged: first(commands[1].get('data')),
        InvoicePaid: commands[2].get('notification') as PhpObject,
        ShipmentDelayed: commands[3].get('notification') as PhpObject,
        OrderReceipt: commands[5].get('mailable') as PhpObject,
        WeeklyDigest: commands[6].get('mailable') as PhpObject,
      };
    }

    async function phpWrappers(prefix: string): Promise<void> {
      const sent = await runPhp(join(PHP_DIR, 'types.php'), [app.dir, 'wrappers'], {
        LARQ_REDIS_PORT: String(port),
        LARQ_PREFIX: prefix,
      });
      expect(sent.code, sent.stderr).to.equal(0);
    }

    // What larq pushes, in the order types.php `wrappers` has Laravel push the same objects.
    async function pushAll(prefix: string): Promise<void> {
      const o = await objects();
      const queue = new RedisQueue({
        connection: { port },
        prefix,
        laravel: Number(line.split('.')[0]) as 8 | 12 | 13,
      });
      try {
        await dispatchListener(
          queue,
          declared.SendShipmentNotice as TypedListener<object, object, object>,
          o.OrderShipped,
        );
        await dispatchListener(queue, declared.UpdateStock as TypedListener<object, object, object>, o.StockChanged);
        await dispatchNotification(queue, CUSTOMER_9, o.InvoicePaid, ['Shop\\Channels\\LogChannel']);
        await dispatchNotification(queue, CUSTOMER_9, o.ShipmentDelayed, [
          'Shop\\Channels\\LogChannel',
          'Shop\\Channels\\SmsChannel',
        ]);
        await dispatchMailable(queue, o.OrderReceipt);
        await dispatchMailable(queue, o.WeeklyDigest);
      } finally {
        await queue.close();
      }
    }

    const notificationIds = (payload: string): string[] => [...payload.matchAll(NOTIFICATION_ID)].map((m) => m[1]);
    const withoutNotificationId = (payload: string): string => masked(payload).replace(NOTIFICATION_ID, 'ID');

    it('pushes the payloads Laravel pushes for the same listeners, notifications and mailables', async function () {
      const [fromPhp, fromNode] = [randomPrefix(), randomPrefix()];
      await phpWrappers(fromPhp);
      await pushAll(fromNode);
      const theirs = await client.lrange(`${fromPhp}queues:default`, 0, -1);
      const ours = await client.lrange(`${fromNode}queues:default`, 0, -1);
      expect(theirs.map((p) => JSON.parse(p).displayName)).to.deep.equal([
        'Shop\\Listeners\\SendShipmentNotice',
        'Shop\\Listeners\\UpdateStock',
        'Shop\\Notifications\\InvoicePaid',
        'Shop\\Notifications\\ShipmentDelayed',
        'Shop\\Notifications\\ShipmentDelayed',
        'Shop\\Mail\\OrderReceipt',
        'Shop\\Mail\\WeeklyDigest',
      ]);
      expect(ours.map(withoutNotificationId)).to.deep.equal(theirs.map(withoutNotificationId));
      // one notification id per notifiable, the same on each channel's job
      for (const payloads of [theirs, ours]) {
        const ids = payloads.slice(2, 5).map(notificationIds);
        expect(ids.map((i) => i.length)).to.deep.equal([1, 1, 1]);
        expect(ids[1][0]).to.equal(ids[2][0]);
        expect(ids[0][0]).to.not.equal(ids[1][0]);
      }
    });

    it("runs each one larq pushed in Laravel's worker with the properties intact", async function () {
      const prefix = randomPrefix();
      await pushAll(prefix);
      const records = await runLaravelWorker({
        port,
        prefix,
        queue: 'default',
        env: { LARQ_WORKER_SETUP: join(PHP_DIR, 'types-worker.php'), LARQ_TYPES_APP: app.dir },
      });
      const described = await runPhp(join(PHP_DIR, 'types.php'), [app.dir, 'describe']);
      expect(described.code, described.stderr).to.equal(0);
      const expected = JSON.parse(described.stdout) as Record<string, PhpDescribed>;
      const customer = 'Shop\\Models\\Customer:9';
      expect(records.map((r) => [r.hook, r.class])).to.deep.equal([
        ['handle', 'Shop\\Events\\OrderShipped'],
        ['handle', 'Shop\\Events\\StockChanged'],
        [`LogChannel:${customer}`, 'Shop\\Notifications\\InvoicePaid'],
        [`LogChannel:${customer}`, 'Shop\\Notifications\\ShipmentDelayed'],
        [`SmsChannel:${customer}`, 'Shop\\Notifications\\ShipmentDelayed'],
        ['handle', 'Shop\\Mail\\OrderReceipt'],
        ['handle', 'Shop\\Mail\\WeeklyDigest'],
      ]);
      const names = ['OrderShipped', 'StockChanged', 'InvoicePaid', 'ShipmentDelayed', 'ShipmentDelayed'];
      names.push('OrderReceipt', 'WeeklyDigest');
      names.forEach((name, i) => {
        const got = records[i].description;
        // the notification's id is the one larq gave it: a UUID, the same for both channels
        if (name === 'InvoicePaid' || name === 'ShipmentDelayed') {
          const id = propertyOf(got, 'id');
          expect(id.t === 'string' && new RegExp(`^${UUID}$`).test(id.v as string), name).to.equal(true);
        }
        expect(normalized(got), name).to.deep.equal(normalized(expected[name]));
      });
      expect(propertyOf(records[3].description, 'id')).to.deep.equal(propertyOf(records[4].description, 'id'));
      expect(await client.llen(`${prefix}queues:default`)).to.equal(0);
    });
  });

function propertyOf(d: PhpDescribed, name: string): PhpDescribed & { v?: unknown } {
  if (d.t !== 'object') throw new Error(`not an object: ${d.t}`);
  const p = d.props.find((q) => q.name === name);
  if (!p) throw new Error(`no property ${name}`);
  return p.value as PhpDescribed & { v?: unknown };
}

// A description without what differs between two PHP processes holding the same values: the live queue
// `job`, a notification's `id` (random, checked on its own) and, at any depth, Carbon's
// `constructedObjectId` (the spl_object_hash of the object in the process that made it).
function normalized(d: PhpDescribed): PhpDescribed {
  if (d.t !== 'object') return d;
  const notification = d.class.startsWith('Shop\\Notifications\\');
  return {
    ...d,
    props: d.props
      .filter((p) => p.name !== 'job' && !(notification && p.name === 'id'))
      .map((p) => ({ ...p, value: withoutObjectIds(p.value) })),
  };
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
