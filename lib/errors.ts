// larq's error family. Every error a user can meet is one of these, named after what went wrong and
// carrying what it was about, so callers can branch on the class instead of parsing messages.

/** Base class of every larq error. */
export class LarqError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** A job payload that is not a usable Laravel payload: malformed JSON, not an object, `job` missing. */
export class InvalidPayloadError extends LarqError {
  constructor(
    message: string,
    readonly payload?: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** A PHP serialize() string that cannot be read: `offset` is the byte where reading stopped. */
export class UnserializeError extends LarqError {
  constructor(
    message: string,
    readonly offset: number,
    options?: { cause?: unknown },
  ) {
    super(`${message} at byte ${offset}`, options);
  }
}

/** A value that PHP's serialize() or json_encode() cannot represent (NaN in JSON, a lone surrogate...). */
export class SerializeError extends LarqError {}

/** Laravel's DecryptException: "The payload is invalid.", "The MAC is invalid.", "Could not decrypt the data." */
export class DecryptError extends LarqError {}

/** Laravel's EncryptException, and a key or cipher the Encrypter cannot use. */
export class EncryptError extends LarqError {}

/** An option with a value larq cannot use; the message names the option. */
export class InvalidOptionError extends LarqError {
  constructor(
    readonly option: string,
    message: string,
  ) {
    super(`${option}: ${message}`);
  }
}

/** A PHP object or value the builder cannot make: an unknown or missing property, a JS value with no PHP form. */
export class PhpBuildError extends LarqError {}

/** An encrypted command (ShouldBeEncrypted) reached a queue that was given no APP_KEY to decrypt it with. */
export class MissingEncrypterError extends LarqError {}

/** An optional npm package larq loads on demand (a SQL driver) is not installed; `packageName` names it. */
export class MissingDependencyError extends LarqError {
  constructor(
    readonly packageName: string,
    feature: string,
    options?: { cause?: unknown },
  ) {
    super(`${feature} needs the npm package "${packageName}"; install it with: npm install ${packageName}`, options);
  }
}

/** Laravel's MaxAttemptsExceededException (10.30+ message): the job ran out of tries or its retryUntil passed. */
export class MaxAttemptsExceededError extends LarqError {
  constructor(
    readonly job: { resolveName(): string },
    options?: { cause?: unknown },
  ) {
    super(`${job.resolveName()} has been attempted too many times.`, options);
  }
}

/** Laravel's TimeoutExceededException (10.25+): the job ran past its timeout. */
export class TimeoutExceededError extends LarqError {
  constructor(
    readonly job: { resolveName(): string },
    options?: { cause?: unknown },
  ) {
    super(`${job.resolveName()} has timed out.`, options);
  }
}

/** Laravel's ManuallyFailedException: a job failed without an exception; the message is empty, as in PHP. */
export class ManuallyFailedError extends LarqError {
  constructor(readonly job?: { resolveName(): string }) {
    super('');
  }
}

/** A popped job whose `job` name no registered handler answers to. */
export class UnknownJobError extends LarqError {
  constructor(
    readonly jobName: string,
    options?: { cause?: unknown },
  ) {
    super(`No handler is registered for job "${jobName}".`, options);
  }
}

/**
 * An object job whose `data.command` is an object of another class than its `data.commandName` says: no
 * handler runs it, since the handler for `commandName` would get an object it was not written for, and
 * PHP's CallQueuedHandler would run the object's own class.
 */
export class CommandClassMismatchError extends LarqError {
  constructor(
    readonly commandName: string,
    readonly className: string,
  ) {
    super(
      `The job says data.commandName "${commandName}" but data.command is a "${className}"; larq runs neither handler`,
    );
  }
}

/** A cache value an operation cannot work with, e.g. incrementing a value that is not a number; `key` is the logical cache key. */
export class CacheValueError extends LarqError {
  constructor(
    readonly key: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(`${key}: ${message}`, options);
  }
}

/** A job only PHP can run (a queued closure): larq fails it with this reason, or releases it for PHP. */
export class PhpOnlyJobError extends LarqError {
  constructor(
    readonly jobName: string,
    what: string,
  ) {
    super(`Job "${jobName}" is ${what}; only a PHP worker can run it.`);
  }
}

/**
 * Redis did not answer a queue write before its connection closed, so it may or may not have run: a
 * push may or may not be queued, a bulk may or may not be queued (all of it or none), a pop may have
 * reserved jobs (they come back after retry_after, as a crashed worker's do). larq never sends such a
 * write again by itself; `what` names it.
 */
export class UnconfirmedWriteError extends LarqError {
  constructor(
    readonly what: string,
    options?: { cause?: unknown },
  ) {
    super(
      `Redis did not answer ${what} before the connection closed: it may or may not have run, and it was not sent again`,
      options,
    );
  }
}

/**
 * A bulk push that Redis ran in part: EXEC ran, one or more of its commands failed (a key of the wrong
 * type), and MULTI/EXEC does not roll back the others, as with Laravel's bulk. `landed` and `notLanded`
 * are indexes into the entries (or jobs) given, so a caller retries only what did not land.
 */
export class BulkPartlyPushedError extends LarqError {
  constructor(
    what: string,
    readonly landed: number[],
    readonly notLanded: number[],
    cause: Error,
  ) {
    const outcome =
      notLanded.length === 0
        ? 'every entry landed, but not all its notify tokens'
        : `${listed(landed, 'landed')}; ${listed(notLanded, 'did not')}`;
    super(`${what} ran in part: ${outcome}: ${cause.message}`, { cause });
  }
}

function listed(indexes: number[], verb: string): string {
  if (indexes.length === 0) return `no entry ${verb}`;
  return `${indexes.length === 1 ? 'entry' : 'entries'} ${indexes.join(', ')} ${verb}`;
}

/** Redis could not be reached for a while; the client keeps reconnecting by itself. */
export class RedisUnavailableError extends LarqError {
  constructor(
    readonly seconds: number,
    what: string,
  ) {
    super(`Redis is unreachable (no connection for ${seconds} s); ${what} waits until it is back`);
  }
}

/** A value read from a job that is not a case of the PHP enum the caller expects; `enumClass` names that enum. */
export class PhpEnumCaseError extends LarqError {
  constructor(
    readonly enumClass: string,
    message: string,
  ) {
    super(`expected a case of ${enumClass}: ${message}`);
  }
}

/** A side effect of an attempt that was already over (timed out, or its outcome settled): refused, never run. */
export class AttemptOverError extends LarqError {
  constructor(
    readonly job: { resolveName(): string; attempts(): number },
    /** What was refused: delete, release, fail, beforeHandle or afterHandle. */
    readonly action: string,
    /** The state the attempt had ended in. */
    readonly state: string,
  ) {
    super(`${job.resolveName()} (attempt ${job.attempts()}): ${action} refused: the attempt is over (${state})`);
  }
}

/** A handler still running `graceSeconds` after its job's timeout aborted its signal. */
export class HungHandlerError extends LarqError {
  constructor(
    readonly job: { resolveName(): string; attempts(): number },
    readonly graceSeconds: number,
    /** What the worker does about it: 'stop' or 'continue' (the onHungHandler option). */
    readonly policy: string,
  ) {
    super(
      `${job.resolveName()} (attempt ${job.attempts()}) is still running ${graceSeconds} s after its timeout; ` +
        (policy === 'stop'
          ? 'the worker takes no more jobs and exits with status 1 once the others are done'
          : 'its slot stays busy until it settles'),
    );
  }
}

/** A popped job whose previous attempt is still running in this worker: not started, left reserved. */
export class JobAlreadyRunningError extends LarqError {
  constructor(readonly job: { resolveName(): string; attempts(): number }) {
    super(
      `${job.resolveName()} (attempt ${job.attempts()}) came back while an earlier attempt still runs here ` +
        '(it ran longer than retry_after); not started: it stays reserved until retry_after, as a crashed worker leaves it',
    );
  }
}

/**
 * A job failed but its failure could not be written to the failed-job store. The message names the job
 * (uuid and name) and says where it is now: larq's failed list in Redis, or still reserved on its queue.
 */
export class FailedJobNotRecordedError extends LarqError {
  constructor(
    message: string,
    /** The job's uuid (generated when its payload has none). */
    readonly uuid: string,
    /** Where the job is kept: `redis` (larq's failed list of its queue) or `reserved` (it comes back after retry_after). */
    readonly keptIn: 'redis' | 'reserved',
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/**
 * The file failed-job store found a file it cannot read as a JSON array of records. It is left exactly
 * as it is (Laravel's FileFailedJobProvider would start it afresh and lose what it held); `path` names it.
 */
export class UnreadableFailedJobFileError extends LarqError {
  constructor(
    readonly path: string,
    reason: string,
  ) {
    super(
      `The failed-job file ${path} is not a JSON array of failed-job records (${reason}); larq leaves it untouched: move or repair it`,
    );
  }
}

/** A cross-process lock (Laravel's file cache lock) could not be taken in time, or not at all; `path` names its file. */
export class FileLockError extends LarqError {
  constructor(
    message: string,
    readonly path: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/**
 * A job carries a job middleware (`->through()` or its `$middleware` property) that larq cannot run: the
 * app's own class, or one of Laravel's in a form Node cannot evaluate. Running the job without it would
 * silently drop the lock, limit or condition it stands for, so the job is failed or left to PHP instead.
 */
export class UnsupportedMiddlewareError extends LarqError {
  constructor(
    readonly jobName: string,
    /** The PHP class of the middleware, e.g. `App\Jobs\Middleware\EnsureTenant`. */
    readonly middlewareClass: string,
    reason: string,
  ) {
    super(
      `Job "${jobName}" carries the job middleware ${middlewareClass}, which larq cannot run (${reason}); only a PHP worker can run it.`,
    );
  }
}

/** A job middleware names a rate limiter Node code has not declared (Laravel's `RateLimiter::for` is PHP code). */
export class UnknownRateLimiterError extends LarqError {
  constructor(readonly limiterName: string) {
    super(
      `No rate limiter named "${limiterName}" is declared in Node (declare it with the same limits as RateLimiter::for('${limiterName}') in PHP)`,
    );
  }
}
