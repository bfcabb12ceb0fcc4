// Typed views of Laravel's wrapper jobs (`CallQueuedListener`, `SendQueuedNotifications`,
// `SendQueuedMailable`, `BroadcastEvent`, 13.x) and a producer for queued listeners. The views read
// the PHP object a payload carries; nothing is converted, values stay PhpValue so they can be written back.
import type { LaravelLine } from '../LaravelLine';
import { InvalidOptionError } from '../errors';
import type { ObjectJob } from '../jobs/dispatch';
import { interactsWithQueueTrait, phpClass, queueableTrait, type PhpClass, type PropertySpec } from '../php/builder';
import { PhpArray, PhpObject, type PhpValue } from '../php/values';
import type { RedisQueue } from '../RedisQueue';
import type { TypedListener } from '../types/TypedListener';
import { lineOf, resolve, type QueueResolver } from './bus';

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
  /** Seconds, or a list of seconds (a `backoff` property or the listener's backoff() result). */
  backoff?: number | number[] | null;
  /** A UNIX timestamp (the listener's retryUntil() result). */
  retryUntil?: number | null;
  timeout?: number | null;
  /** The listener's `failOnTimeout` (12.x+; default false). */
  failOnTimeout?: boolean;
  /** The listener's `deleteWhenMissingModels` (13.x; default false). */
  deleteWhenMissingModels?: boolean;
  /** The listener implements ShouldBeEncrypted. */
  shouldBeEncrypted?: boolean;
  /** The listener's `afterCommit` (true for ShouldQueueAfterCommit; default null). */
  afterCommit?: boolean | null;
  /** The listener implements ShouldBeUnique (12.x+): its uniqueId and uniqueFor (default 0) are copied. */
  unique?: { id?: string | number | null; for?: number; untilProcessing?: boolean };
  /** The listener's middleware objects (its middleware() result and `middleware` property). */
  middleware?: PhpValue[];
  /** The listener's `messageGroup` (12.x+). */
  messageGroup?: string | null;
  /** The connection the listener asks for (viaConnection() or `connection`). */
  connection?: string | null;
  /** The queue the listener asks for (viaQueue() or `queue`). */
  queue?: string | null;
  /** Seconds (withDelay() or `delay`): pushed with later(). */
  delay?: number | null;
  /** The PHP side's Laravel line; dispatchListener takes the queue's. Default 8. */
  line?: LaravelLine;
}

const n = (v: number | null | undefined): PhpValue => (v === null || v === undefined ? null : BigInt(v));
const backoffValue = (v: number | number[] | null | undefined): PhpValue =>
  Array.isArray(v) ? PhpArray.list(v.map((s) => BigInt(s))) : n(v);

// CallQueuedListener's own properties after class, method and data, in declaration order, with their
// defaults (Laravel `Illuminate\Events\CallQueuedListener`, 12.67 and 13.26; 13.x adds
// deleteWhenMissingModels and debounceId), then InteractsWithQueue's `job` and Queueable's.
const LISTENER_PROPERTIES: Record<12 | 13, [string, unknown][]> = {
  12: [
    ['tries', null],
    ['maxExceptions', null],
    ['backoff', null],
    ['retryUntil', null],
    ['timeout', null],
    ['failOnTimeout', false],
    ['shouldBeEncrypted', false],
    ['shouldBeUnique', false],
    ['shouldBeUniqueUntilProcessing', false],
    ['uniqueId', null],
    ['uniqueFor', null],
  ],
  13: [
    ['tries', null],
    ['maxExceptions', null],
    ['backoff', null],
    ['retryUntil', null],
    ['timeout', null],
    ['failOnTimeout', false],
    ['shouldBeEncrypted', false],
    ['deleteWhenMissingModels', null],
    ['shouldBeUnique', false],
    ['shouldBeUniqueUntilProcessing', false],
    ['uniqueId', null],
    ['uniqueFor', null],
    ['debounceId', null],
  ],
};

const listenerClasses = new Map<12 | 13, PhpClass>();

function listenerClassOf(line: 12 | 13): PhpClass {
  let c = listenerClasses.get(line);
  if (!c) {
    const own: Record<string, PropertySpec> = {
      class: { visibility: 'public', default: null },
      method: { visibility: 'public', default: null },
      data: { visibility: 'public', default: null },
    };
    for (const [name, value] of LISTENER_PROPERTIES[line]) own[name] = { visibility: 'public', default: value };
    c = phpClass(CALL_QUEUED_LISTENER, own, { traits: [interactsWithQueueTrait(), queueableTrait(line)] });
    listenerClasses.set(line, c);
  }
  return c;
}

/**
 * A CallQueuedListener as Laravel's event dispatcher writes it for `listenerClass` and `args` (usually
 * `[event]`): the object `Dispatcher::createListenerAndJob` makes and `Dispatcher::propagateListenerOptions`
 * fills from the listener (8.83, 12.67, 13.26). Line 8: class, method, data, tries, maxExceptions, backoff,
 * retryUntil, timeout, shouldBeEncrypted, then the InteractsWithQueue and Queueable properties. On every
 * line the listener's queue, connection and delay pick where it is pushed and are not written into it.
 */
export function callQueuedListener(
  listenerClass: string,
  args: PhpValue[] | PhpObject,
  options: QueuedListenerOptions = {},
): PhpObject {
  const line = options.line ?? 8;
  const data = args instanceof PhpObject ? [args] : args;
  if (line === 12 || line === 13) {
    const unique = options.unique;
    return listenerClassOf(line).make({
      class: listenerClass,
      method: options.method ?? 'handle',
      data: PhpArray.list(data),
      tries: n(options.tries),
      maxExceptions: n(options.maxExceptions),
      backoff: backoffValue(options.backoff),
      retryUntil: n(options.retryUntil),
      timeout: n(options.timeout),
      failOnTimeout: options.failOnTimeout ?? false,
      shouldBeEncrypted: options.shouldBeEncrypted ?? false,
      ...(line === 13 ? { deleteWhenMissingModels: options.deleteWhenMissingModels ?? false } : {}),
      shouldBeUnique: unique !== undefined,
      shouldBeUniqueUntilProcessing: unique?.untilProcessing === true,
      ...(unique !== undefined ? { uniqueId: unique.id ?? null, uniqueFor: BigInt(unique.for ?? 0) } : {}),
      messageGroup: options.messageGroup ?? null,
      afterCommit: options.afterCommit ?? null,
      middleware: PhpArray.list(options.middleware ?? []),
    });
  }
  if (line !== 8) throw new InvalidOptionError('line', `no CallQueuedListener shape for Laravel ${String(line)}`);
  const values: [string, PhpValue][] = [
    ['class', listenerClass],
    ['method', options.method ?? 'handle'],
    ['data', PhpArray.list(data)],
    ['tries', n(options.tries)],
    ['maxExceptions', n(options.maxExceptions)],
    ['backoff', backoffValue(options.backoff)],
    ['retryUntil', n(options.retryUntil)],
    ['timeout', n(options.timeout)],
    ['shouldBeEncrypted', options.shouldBeEncrypted ?? false],
    ['job', null],
    ['connection', null],
    ['queue', null],
    ['chainConnection', null],
    ['chainQueue', null],
    ['chainCatchCallbacks', null],
    ['delay', null],
    ['afterCommit', options.afterCommit ?? null],
    ['middleware', PhpArray.list(options.middleware ?? [])],
    ['chained', new PhpArray()],
  ];
  return new PhpObject(
    CALL_QUEUED_LISTENER,
    values.map(([name, value]) => ({ name, visibility: 'public' as const, value })),
  );
}

/** The tuning a generated listener declaration states, as QueuedListenerOptions. */
function listenerDefaults(listener: string | TypedListener<object, object, object>): QueuedListenerOptions {
  if (typeof listener === 'string') return {};
  const t = listener.tuning ?? {};
  const num = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined);
  const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
  const out: QueuedListenerOptions = {};
  if (num(t.tries) !== undefined) out.tries = num(t.tries);
  if (num(t.timeout) !== undefined) out.timeout = num(t.timeout);
  if (num(t.maxExceptions) !== undefined) out.maxExceptions = num(t.maxExceptions);
  if (num(t.backoff) !== undefined) out.backoff = num(t.backoff);
  else if (Array.isArray(t.backoff)) out.backoff = t.backoff.filter((v): v is number => typeof v === 'number');
  if (typeof t.failOnTimeout === 'boolean') out.failOnTimeout = t.failOnTimeout;
  if (typeof t.deleteWhenMissingModels === 'boolean') out.deleteWhenMissingModels = t.deleteWhenMissingModels;
  if (typeof t.afterCommit === 'boolean') out.afterCommit = t.afterCommit;
  if (str(t.queue) !== undefined) out.queue = str(t.queue);
  if (str(t.connection) !== undefined) out.connection = str(t.connection);
  if (t.encrypted === true) out.shouldBeEncrypted = true;
  if (t.unique === true)
    out.unique = {
      ...(num(t.uniqueFor) !== undefined ? { for: num(t.uniqueFor) } : {}),
      ...(t.uniqueUntilProcessing === true ? { untilProcessing: true } : {}),
    };
  return out;
}

/**
 * Queue `listener` for `args` (usually the event) as Laravel's dispatcher does for a ShouldQueue listener
 * (`Dispatcher::queueHandler`), in the shape of the queue's Laravel line; resolves to the job id. A
 * declaration from `larq types` brings the listener's stated tuning; `options` win over it.
 */
export function dispatchListener(
  queues: QueueResolver,
  listener: string | TypedListener<object, object, object>,
  args: PhpValue[] | PhpObject,
  options: QueuedListenerOptions = {},
): Promise<string> {
  const listenerClass = typeof listener === 'string' ? listener : listener.className;
  const merged = { ...listenerDefaults(listener), ...options };
  const line = merged.line ?? lineOf(queues, merged.connection ?? null);
  const command = callQueuedListener(listenerClass, args, { ...merged, line });
  const job: ObjectJob = { command, displayName: listenerClass, encrypt: merged.shouldBeEncrypted === true };
  return pushTo(resolve(queues, merged.connection ?? null), job, merged.queue ?? null, merged.delay ?? null);
}

/** Push `job` on `queueName` of `queue`, with later() when a delay is given (Laravel `Queue::laterOn`). */
export function pushTo(
  queue: RedisQueue,
  job: ObjectJob,
  queueName: string | null,
  delay: number | null,
): Promise<string> {
  const name = queueName !== null && queueName !== '' ? queueName : null;
  return delay !== null ? queue.later(delay, job, name) : queue.push(job, name);
}
