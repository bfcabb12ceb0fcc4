// A queued notification as Laravel's NotificationSender queues it (`NotificationSender::queueNotification`,
// 8.83, 12.67 and 13.26): for each notifiable, one notification id, and for each channel a clone of the
// notification carrying that id (8.83 sets it always, 12.x+ only when the notification has none), wrapped in an `Illuminate\Notifications\SendQueuedNotifications` of that
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
  /** What the notification's viaConnections() returns: a connection per channel (12.x+). */
  viaConnections?: Record<string, string>;
  /** What the notification's viaQueues() returns: a queue per channel. */
  viaQueues?: Record<string, string>;
  /** What withDelay() returns: seconds per channel (12.x+; else the notification's `delay`). */
  withDelay?: Record<string, number>;
  /** The notification's backoff() result (else its `backoff` property). */
  backoff?: number | number[] | null;
  /** The notification's retryUntil() result, a UNIX timestamp (else its `retryUntil` property). */
  retryUntil?: number | null;
  /** The PHP side's Laravel line (8, 12 or 13); dispatchNotification takes the queue's. */
  line?: LaravelLine;
}

// SendQueuedNotifications's own properties in declaration order with their defaults (8.83; 12.67 adds
// maxExceptions, 13.26 deleteWhenMissingModels and failOnTimeout), then InteractsWithQueue's `job` and
// Queueable's; it uses SerializesModels, so from 9.4 a property holding its default is not written.
const OWN: Record<LaravelLine, [string, unknown][]> = {
  8: [
    ['notifiables', null],
    ['notification', null],
    ['channels', null],
    ['tries', null],
    ['timeout', null],
    ['shouldBeEncrypted', false],
  ],
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

const classes = new Map<LaravelLine, PhpClass>();

function classOf(line: LaravelLine): PhpClass {
  if (line !== 8 && line !== 12 && line !== 13)
    throw new InvalidOptionError('line', `no SendQueuedNotifications shape for Laravel ${String(line)}`);
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
 * The notification with `id` set, as `NotificationSender::queueNotification` sets it on each clone: when it
 * has none (12.x+), always (8.83). Made again through its declaration (the builder's or a `larq types` one) so the property
 * stays where PHP declares it.
 */
export function withNotificationId(notification: PhpObject, id: string, line: LaravelLine = 13): PhpObject {
  const current = liveValue(notification, 'id');
  const has = current !== null && current !== '' && current !== false && current !== 0n && current !== '0';
  if (line !== 8 && has) return notification;
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
  // a `delay` may name seconds per channel; 12.x+ take withDelay() instead of it when there is one
  const stated = liveValue(notification, 'delay');
  const own = stated instanceof PhpArray ? (stated.entries.get(channel) ?? null) : stated;
  const delay = line !== 8 && options.withDelay !== undefined ? (options.withDelay[channel] ?? null) : own;
  // 8.83: viaQueues() replaces the queue (null for a channel it does not name); 12.x+ fall back to it
  const queue =
    options.viaQueues === undefined
      ? liveValue(notification, 'queue')
      : (options.viaQueues[channel] ?? (line === 8 ? null : liveValue(notification, 'queue')));
  const connection =
    line === 8
      ? liveValue(notification, 'connection')
      : (options.viaConnections?.[channel] ?? liveValue(notification, 'connection'));
  return classOf(line).make({
    notifiables: notifiablesOf(notifiable, line),
    notification,
    channels: PhpArray.list([channel]),
    tries: liveValue(notification, 'tries'),
    timeout: liveValue(notification, 'timeout'),
    shouldBeEncrypted: options.shouldBeEncrypted ?? false,
    ...(line === 8 ? {} : { maxExceptions: liveValue(notification, 'maxExceptions') }),
    ...(line === 13
      ? {
          deleteWhenMissingModels: liveValue(notification, 'deleteWhenMissingModels') ?? false,
          failOnTimeout: liveValue(notification, 'failOnTimeout') ?? false,
        }
      : {}),
    afterCommit: options.afterCommit === true && line !== 8 ? true : liveValue(notification, 'afterCommit'),
    connection,
    queue,
    delay,
    ...(line === 8 ? {} : { messageGroup: liveValue(notification, 'messageGroup') }),
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
  const id = options.id ?? randomUUID();
  const ids: string[] = [];
  for (const channel of channels) {
    const connection = options.viaConnections?.[channel] ?? liveString(notification, 'connection');
    const line = options.line ?? lineOf(queues, connection);
    const withId = withNotificationId(notification, id, line);
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
        resolve(queues, liveString(command, 'connection')),
        job,
        liveString(command, 'queue'),
        typeof delay === 'bigint' ? Number(delay) : null,
      ),
    );
  }
  return ids;
}
