// A queued mailable as `Mailable::queue` pushes it (8.83, 12.67 and 13.26): an
// `Illuminate\Mail\SendQueuedMailable` holding the mailable and what its constructor copies (tries, timeout,
// afterCommit, shouldBeEncrypted; 12.x+ also maxExceptions, connection, queue) and `Mailable::newQueuedJob`
// sets (middleware; 12.x+ messageGroup), pushed on the mailable's connection and queue, with later() when
// the mailable has a delay.
import { InvalidOptionError } from '../errors';
import type { ObjectJob } from '../jobs/dispatch';
import type { LaravelLine } from '../LaravelLine';
import { interactsWithQueueTrait, phpClass, queueableTrait, type PhpClass, type PropertySpec } from '../php/builder';
import { PhpArray, type PhpObject } from '../php/values';
import { lineOf, resolve, type QueueResolver } from './bus';
import { liveBackoff, liveInt, liveList, liveString, liveValue } from './queuedObject';
import { pushTo, SEND_QUEUED_MAILABLE } from './wrappers';

/** Options of {@link sendQueuedMailable} and {@link dispatchMailable}. */
export interface QueuedMailableOptions {
  /** The mailable implements ShouldBeEncrypted. */
  shouldBeEncrypted?: boolean;
  /** The mailable implements ShouldQueueAfterCommit. */
  afterCommit?: boolean;
  /** The mailable's backoff() result (else its `backoff` property). */
  backoff?: number | number[] | null;
  /** The mailable's retryUntil() result, a UNIX timestamp (else its `retryUntil` property). */
  retryUntil?: number | null;
  /** The PHP side's Laravel line (8, 12 or 13); dispatchMailable takes the queue's. */
  line?: LaravelLine;
}

const classes = new Map<LaravelLine, PhpClass>();

// SendQueuedMailable's own properties, then its traits' in the order it uses them (8.83: Queueable only;
// 12.67: Queueable, InteractsWithQueue; 13.26: InteractsWithQueue, Queueable); no SerializesModels, so
// every property is written. 8.83 has no maxExceptions.
function classOf(line: LaravelLine): PhpClass {
  if (line !== 8 && line !== 12 && line !== 13)
    throw new InvalidOptionError('line', `no SendQueuedMailable shape for Laravel ${String(line)}`);
  let c = classes.get(line);
  if (!c) {
    const own: Record<string, PropertySpec> = {
      mailable: { visibility: 'public', default: null },
      tries: { visibility: 'public', default: null },
      timeout: { visibility: 'public', default: null },
      ...(line === 8 ? {} : { maxExceptions: { visibility: 'public', default: null } }),
      shouldBeEncrypted: { visibility: 'public', default: false },
    };
    const traits =
      line === 8
        ? [queueableTrait(line)]
        : line === 12
          ? [queueableTrait(line), interactsWithQueueTrait()]
          : [interactsWithQueueTrait(), queueableTrait(line)];
    c = phpClass(SEND_QUEUED_MAILABLE, own, { traits });
    classes.set(line, c);
  }
  return c;
}

/** The SendQueuedMailable `Mailable::newQueuedJob` makes for `mailable`. */
export function sendQueuedMailable(mailable: PhpObject, options: QueuedMailableOptions = {}): PhpObject {
  const line = options.line ?? 13;
  return classOf(line).make({
    mailable,
    tries: liveValue(mailable, 'tries'),
    timeout: liveValue(mailable, 'timeout'),
    shouldBeEncrypted: options.shouldBeEncrypted ?? false,
    afterCommit: options.afterCommit === true ? true : liveValue(mailable, 'afterCommit'),
    middleware: PhpArray.list(liveList(mailable, 'middleware')),
    ...(line === 8
      ? {}
      : {
          maxExceptions: liveValue(mailable, 'maxExceptions'),
          connection: liveValue(mailable, 'connection'),
          queue: liveValue(mailable, 'queue'),
          messageGroup: liveValue(mailable, 'messageGroup'),
        }),
  });
}

/** Queue `mailable` as `Mailable::queue` does; resolves to the job id. */
export function dispatchMailable(
  queues: QueueResolver,
  mailable: PhpObject,
  options: QueuedMailableOptions = {},
): Promise<string> {
  const connection = liveString(mailable, 'connection');
  const line = options.line ?? lineOf(queues, connection);
  const command = sendQueuedMailable(mailable, { ...options, line });
  const job: ObjectJob = {
    command,
    displayName: mailable.className,
    encrypt: options.shouldBeEncrypted === true,
    backoff: options.backoff !== undefined ? options.backoff : liveBackoff(mailable),
    retryUntil: options.retryUntil !== undefined ? options.retryUntil : liveInt(mailable, 'retryUntil'),
  };
  return pushTo(resolve(queues, connection), job, liveString(mailable, 'queue'), liveInt(mailable, 'delay'));
}
