// Typed views of Laravel's wrapper jobs (`CallQueuedListener`, `SendQueuedNotifications`,
// `SendQueuedMailable`, `BroadcastEvent`, 13.x) and a producer for queued listeners. The views read
// the PHP object a payload carries; nothing is converted, values stay PhpValue so they can be written back.
import type { LaravelLine } from '../LaravelLine';
import { InvalidOptionError } from '../errors';
import type { ObjectJob } from '../jobs/dispatch';
import { PhpArray, PhpObject, type PhpValue } from '../php/values';
import { dispatchObject, type QueueResolver } from './bus';

export const CALL_QUEUED_LISTENER = 'Illuminate\\Events\\CallQueuedListener';
export const SEND_QUEUED_NOTIFICATIONS = 'Illuminate\\Notifications\\SendQueuedNotifications';
export const SEND_QUEUED_MAILABLE = 'Illuminate\\Mail\\SendQueuedMailable';
export const BROADCAST_EVENT = 'Illuminate\\Broadcasting\\BroadcastEvent';

const list = (v: PhpValue | undefined): PhpValue[] => (v instanceof PhpArray ? [...v.entries.values()] : []);
const str = (v: PhpValue | undefined): string | null => (typeof v === 'string' ? v : null);
const int = (v: PhpValue | undefined): number | null => (typeof v === 'bigint' ? Number(v) : null);

/** A queued event listener (CallQueuedListener). */
export interface QueuedListenerView {
  /** The listener class, e.g. `App\Listeners\SendShipmentNotification`. */
  listenerClass: string;
  method: string;
  /** The listener's arguments (`data`): usually one, the event object. */
  args: PhpValue[];
  /** `args[0]` when it is an object: the event. */
  event: PhpObject | null;
  tries: number | null;
  timeout: number | null;
}

export function queuedListener(command: PhpObject): QueuedListenerView | null {
  if (command.className !== CALL_QUEUED_LISTENER) return null;
  const args = list(command.get('data'));
  return {
    listenerClass: str(command.get('class')) ?? '',
    method: str(command.get('method')) ?? 'handle',
    args,
    event: args[0] instanceof PhpObject ? args[0] : null,
    tries: int(command.get('tries')),
    timeout: int(command.get('timeout')),
  };
}

/** A queued notification (SendQueuedNotifications). */
export interface QueuedNotificationView {
  /** The notifiables: a single value, a collection object, or ModelIdentifiers. */
  notifiables: PhpValue;
  notification: PhpObject | null;
  /** The channel names, or null for the notification's via(). */
  channels: string[] | null;
  tries: number | null;
  timeout: number | null;
}

export function queuedNotification(command: PhpObject): QueuedNotificationView | null {
  if (command.className !== SEND_QUEUED_NOTIFICATIONS) return null;
  const channels = command.get('channels');
  const notification = command.get('notification');
  return {
    notifiables: command.get('notifiables') ?? null,
    notification: notification instanceof PhpObject ? notification : null,
    channels: channels instanceof PhpArray ? list(channels).filter((c): c is string => typeof c === 'string') : null,
    tries: int(command.get('tries')),
    timeout: int(command.get('timeout')),
  };
}

/** A queued mailable (SendQueuedMailable). */
export interface QueuedMailableView {
  mailable: PhpObject | null;
  tries: number | null;
  timeout: number | null;
}

export function queuedMailable(command: PhpObject): QueuedMailableView | null {
  if (command.className !== SEND_QUEUED_MAILABLE) return null;
  const mailable = command.get('mailable');
  return {
    mailable: mailable instanceof PhpObject ? mailable : null,
    tries: int(command.get('tries')),
    timeout: int(command.get('timeout')),
  };
}

/** A queued broadcast (BroadcastEvent). */
export interface BroadcastEventView {
  event: PhpObject | null;
  tries: number | null;
  timeout: number | null;
}

export function broadcastEvent(command: PhpObject): BroadcastEventView | null {
  if (command.className !== BROADCAST_EVENT) return null;
  const event = command.get('event');
  return {
    event: event instanceof PhpObject ? event : null,
    tries: int(command.get('tries')),
    timeout: int(command.get('timeout')),
  };
}

/** Options of {@link callQueuedListener}: what Laravel copies from the listener object. */
export interface QueuedListenerOptions {
  method?: string;
  tries?: number | null;
  maxExceptions?: number | null;
  backoff?: number | null;
  retryUntil?: number | null;
  timeout?: number | null;
  shouldBeEncrypted?: boolean;
  connection?: string | null;
  queue?: string | null;
  delay?: number | null;
  /** The PHP side's Laravel line. Only 8 is supported (its 19-property shape, queued-listener.json). */
  line?: LaravelLine;
}

const n = (v: number | null | undefined): PhpValue => (v === null || v === undefined ? null : BigInt(v));

/**
 * A CallQueuedListener as Laravel 8's event dispatcher writes it for `listenerClass` and `args` (usually
 * `[event]`): class, method, data, tries, maxExceptions, backoff, retryUntil, timeout, shouldBeEncrypted,
 * then the InteractsWithQueue and Queueable properties.
 */
export function callQueuedListener(
  listenerClass: string,
  args: PhpValue[] | PhpObject,
  options: QueuedListenerOptions = {},
): PhpObject {
  const line = options.line ?? 8;
  if (line !== 8) throw new InvalidOptionError('line', 'callQueuedListener writes the Laravel 8 shape only');
  const data = args instanceof PhpObject ? [args] : args;
  const values: [string, PhpValue][] = [
    ['class', listenerClass],
    ['method', options.method ?? 'handle'],
    ['data', PhpArray.list(data)],
    ['tries', n(options.tries)],
    ['maxExceptions', n(options.maxExceptions)],
    ['backoff', n(options.backoff)],
    ['retryUntil', n(options.retryUntil)],
    ['timeout', n(options.timeout)],
    ['shouldBeEncrypted', options.shouldBeEncrypted ?? false],
    ['job', null],
    ['connection', options.connection ?? null],
    ['queue', options.queue ?? null],
    ['chainConnection', null],
    ['chainQueue', null],
    ['chainCatchCallbacks', null],
    ['delay', n(options.delay)],
    ['afterCommit', null],
    ['middleware', new PhpArray()],
    ['chained', new PhpArray()],
  ];
  return new PhpObject(
    CALL_QUEUED_LISTENER,
    values.map(([name, value]) => ({ name, visibility: 'public' as const, value })),
  );
}

/** Queue `listenerClass` for `event` as Laravel's dispatcher does for a ShouldQueue listener; resolves to the job id. */
export function dispatchListener(
  queues: QueueResolver,
  listenerClass: string,
  args: PhpValue[] | PhpObject,
  options: QueuedListenerOptions = {},
): Promise<string> {
  const command = callQueuedListener(listenerClass, args, options);
  const job: ObjectJob = { command, displayName: listenerClass, encrypt: options.shouldBeEncrypted === true };
  return dispatchObject(queues, job);
}
