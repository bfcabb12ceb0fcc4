// A queued notification as Laravel's NotificationSender queues it (`NotificationSender::queueNotification`,
// 12.67 and 13.26): for each notifiable, one notification id, and for each channel a clone of the
// notification carrying that id, wrapped in an `Illuminate\Notifications\SendQueuedNotifications` of that
// one notifiable and channel, dispatched on the notification's connection and queue with its delay.
import { randomUUID } from 'crypto';
import { InvalidOptionError } from '../errors';
import type { ObjectJob } from '../jobs/dispatch';
import type { LaravelLine } from '../LaravelLine';
import { declarationOf, interactsWithQueueTrait, php, phpClass, queueableTrait, type PhpClass } from '../php/builder';
import { PhpArray, PhpObject, type PhpValue } from '../php/values';
import { lineOf, resolve, type QueueResolver } from './bus';
import { liveBackoff, liveInt, liveList, liveString, liveValue } from './queuedObject';
import { pushTo, SEND_QUEUED_NOTIFICATIONS } from './wrappers';

/** The notifiable model: its class, key and connection, as `SerializesModels` writes an Eloquent collection of it. */
export interface NotifiableModel {
  class: string;
  id: number | bigint | string;
  connection?: string | null;
  relations?: string[];
}

/** Options of {@link sendQueuedNotifications} and {@link dispatchNotification}. */
export interface QueuedNotificationOptions {
  /** The id NotificationSender gives a notification without one (default: a random UUID). */
  id?: string;
  /** The notification implements ShouldBeEncrypted. */
  shouldBeEncrypted?: boolean;
  /** The notification implements ShouldQueueAfterCommit. */
  afterCommit?: boolean;
  /** What the notification's viaConnections() returns: a connection per channel. */
  viaConnections?: Record<string, string>;
  /** What the notification's viaQueues() returns: a queue per channel. */
  viaQueues?: Record<string, string>;
  /** What withDelay() returns: seconds per channel (else the notification's `delay`). */
  withDelay?: Record<string, number>;
  /** The notification's backoff() result (else its `backoff` property). */
  backoff?: number | number[] | null;
  /** The notification's retryUntil() result, a UNIX timestamp (else its `retryUntil` property). */
  retryUntil?: number | null;
  /** The PHP side's Laravel line (12 or 13); dispatchNotification takes the queue's. */
  line?: LaravelLine;
}

// SendQueuedNotifications's own properties in declaration order with their defaults (12.67; 13.26 adds
// deleteWhenMissingModels and failOnTimeout), then InteractsWithQueue's `job` and Queueable's; it uses
// SerializesModels, so a property holding its default is not written.
const OWN: Record<12 | 13, [string, unknown][]> = {
  12: [
    ['notifiables', null],
    ['notification', null],
    ['channels', null],
    ['tries', null],
    ['timeout', null],
    ['maxExceptions', null],
    ['shouldBeEncrypted', false],
  ],
  13: [
    ['notifiables', null],
    ['notification', null],
    ['channels', null],
    ['tries', null],
    ['timeout', null],
    ['maxExceptions', null],
    ['shouldBeEncrypted', false],
    ['deleteWhenMissingModels', false],
    ['failOnTimeout', false],
  ],
};

const classes = new Map<12 | 13, PhpClass>();

function classOf(line: LaravelLine): PhpClass {
  if (line !== 12 && line !== 13)
    throw new InvalidOptionError('line', `SendQueuedNotifications is written for Laravel 12 and 13, not ${line}`);
  let c = classes.get(line);
  if (!c) {
    const own = Object.fromEntries(
      OWN[line].map(([name, value]) => [name, { visibility: 'public' as const, default: value }]),
    );
    c = phpClass(SEND_QUEUED_NOTIFICATIONS, own, {
      traits: [interactsWithQueueTrait(), queueableTrait(line)],
      serializesModels: line,
    });
    classes.set(line, c);
  }
  return c;
}

/**
 * The notification with `id` set when it has none, as `NotificationSender::queueNotification` sets it on
 * each clone. Made again through its declaration (the builder's or a `larq types` one) so the property
 * stays where PHP declares it.
 */
export function withNotificationId(notification: PhpObject, id: string): PhpObject {
  const current = liveValue(notification, 'id');
  if (current !== null && current !== '' && current !== false && current !== 0n) return notification;
  const declaration = declarationOf(notification);
  if (declaration) {
    const values: Record<string, PhpValue> = {};
    for (const p of notification.properties) if (!(p.name in values)) values[p.name] = p.value;
    return declaration.make({ ...values, id });
  }
  if (notification.get('id') === undefined)
    throw new InvalidOptionError(
      'notification',
      `${notification.className} has no id property: make it with its larq types declaration or phpClass()`,
    );
  return new PhpObject(
    notification.className,
    notification.properties.map((p) => (p.name === 'id' ? { ...p, value: id } : p)),
  );
}

/** The notifiable, as `SendQueuedNotifications::wrapNotifiables` wraps a model: an Eloquent collection of it. */
function notifiablesOf(notifiable: NotifiableModel | PhpObject, line: LaravelLine): PhpObject {
  if (notifiable instanceof PhpObject) return notifiable;
  return php.model(
    notifiable.class,
    [notifiable.id],
    { connection: notifiable.connection ?? null, relations: notifiable.relations ?? [] },
    line,
  );
}

/**
 * The SendQueuedNotifications Laravel dispatches for one notifiable and one channel: the notification
 * (already carrying its id), what the constructor copies from it (tries, timeout, maxExceptions,
 * afterCommit, shouldBeEncrypted, and on 13.x deleteWhenMissingModels and failOnTimeout), and what
 * queueNotification sets (connection, queue, delay, messageGroup, middleware).
 */
export function sendQueuedNotifications(
  notifiable: NotifiableModel | PhpObject,
  notification: PhpObject,
  channel: string,
  options: QueuedNotificationOptions = {},
): PhpObject {
  const line = options.line ?? 13;
  const delay = options.withDelay?.[channel] ?? liveInt(notification, 'delay');
  return classOf(line).make({
    notifiables: notifiablesOf(notifiable, line),
    notification,
    channels: PhpArray.list([channel]),
    tries: liveValue(notification, 'tries'),
    timeout: liveValue(notification, 'timeout'),
    maxExceptions: liveValue(notification, 'maxExceptions'),
    shouldBeEncrypted: options.shouldBeEncrypted ?? false,
    ...(line === 13
      ? {
          deleteWhenMissingModels: liveValue(notification, 'deleteWhenMissingModels') ?? false,
          failOnTimeout: liveValue(notification, 'failOnTimeout') ?? false,
        }
      : {}),
    afterCommit: options.afterCommit === true ? true : liveValue(notification, 'afterCommit'),
    connection: options.viaConnections?.[channel] ?? liveValue(notification, 'connection'),
    queue: options.viaQueues?.[channel] ?? liveValue(notification, 'queue'),
    delay: delay === null ? null : BigInt(delay),
    messageGroup: liveValue(notification, 'messageGroup'),
    middleware: PhpArray.list(liveList(notification, 'middleware')),
  });
}

/**
 * Queue `notification` for `notifiable` on each of `channels` (what its via() returns) as Laravel's
 * NotificationSender does: one job per channel, all with the same notification id; resolves to their
 * job ids in channel order.
 */
export async function dispatchNotification(
  queues: QueueResolver,
  notifiable: NotifiableModel | PhpObject,
  notification: PhpObject,
  channels: readonly string[],
  options: QueuedNotificationOptions = {},
): Promise<string[]> {
  const withId = withNotificationId(notification, options.id ?? randomUUID());
  const ids: string[] = [];
  for (const channel of channels) {
    const connection = options.viaConnections?.[channel] ?? liveString(withId, 'connection');
    const line = options.line ?? lineOf(queues, connection);
    const command = sendQueuedNotifications(notifiable, withId, channel, { ...options, line });
    const job: ObjectJob = {
      command,
      displayName: withId.className,
      encrypt: options.shouldBeEncrypted === true,
      backoff: options.backoff !== undefined ? options.backoff : liveBackoff(withId),
      retryUntil: options.retryUntil !== undefined ? options.retryUntil : liveInt(withId, 'retryUntil'),
    };
    const delay = command.get('delay');
    ids.push(
      await pushTo(
        resolve(queues, connection),
        job,
        liveString(command, 'queue'),
        typeof delay === 'bigint' ? Number(delay) : null,
      ),
    );
  }
  return ids;
}
