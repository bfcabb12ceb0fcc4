// Which Node code runs which Laravel job: Laravel's `fire()` plus CallQueuedHandler, for jobs whose
// handlers live in Node. Object jobs are routed by `data.commandName` (queued listeners by listener class),
// string jobs by `Class@method`. As CallQueuedHandler does, an object job is deleted after its handler
// returns unless it was released or failed; a string job's handler acknowledges it itself (Laravel
// `Job::fire`, 13.x).
import { systemClock, type Clock } from '../clock';
import type { CacheStore } from '../cache/CacheStore';
import {
  CommandClassMismatchError,
  InvalidOptionError,
  PhpOnlyJobError,
  UnknownJobError,
  UnsupportedMiddlewareError,
} from '../errors';
import type { JobAttempt, JobRunner } from '../jobs/contracts';
import type { RedisJob } from '../jobs/RedisJob';
import type { JobPayload } from '../payload/types';
import type { PhpObject } from '../php/values';
import { toPlain } from '../php/view';
import type { TypedListener } from '../types/TypedListener';
import type { TypedPhpClass } from '../types/TypedPhpClass';
import { CALL_QUEUED_LISTENER } from '../features/wrappers';
import { HandlerContext, type FailJob, type JobContext, type ObjectJobContext } from './HandlerContext';
// the index, which registers every middleware larq reads from payloads
import {
  payloadMiddleware,
  runThroughMiddleware,
  type BatchLookup,
  type JobMiddleware,
  type MiddlewareServices,
  type RateLimiterCallback,
  type RedisLimiterConnection,
} from '../middleware';

export type { JobContext, ObjectJobContext } from './HandlerContext';

/**
 * Runs an object job: `command` is the plain-JS view of the PHP object (see toPlain). `T` describes that
 * view (e.g. your job's interface); it is what you declare, not something larq checks at run time.
 */
export type ObjectJobHandler<T extends object = Record<string, unknown>> = (
  command: T,
  ctx: ObjectJobContext,
) => unknown;
/**
 * Runs a string job (`Class@method`): `data` is the payload's `data`, big integers as bigint. `T`
 * describes that data; it is what you declare, not something larq checks at run time.
 */
export type StringJobHandler<T = unknown> = (data: T, ctx: JobContext) => unknown;

// How the registry keeps handlers: each was registered with its own `T`, which only its author knows.
type StoredObjectHandler = (command: unknown, ctx: ObjectJobContext) => unknown;
type StoredStringHandler = (data: unknown, ctx: JobContext) => unknown;
/** The `failed()` hook of a job class: called once when the job fails for good; `error` is null after `fail()` without one, as in PHP. */
export type FailedHook = (error: Error | null, ctx: { job: RedisJob; payload: JobPayload | null }) => unknown;

/**
 * Laravel's job features around an object job's handler, at the points of Laravel's `CallQueuedHandler::call` (13.x):
 * chains, batches, unique locks and missing models plug in here.
 */
export interface CommandHooks {
  /** Which Laravel feature these hooks implement; Handlers.useDefaults adds a feature only once. */
  readonly feature?: LaravelFeature;
  /** Before the handler runs. Return false to skip the handler (the hook deleted, released or failed the job). */
  beforeHandle?(ctx: ObjectJobContext): Promise<boolean | void> | boolean | void;
  /** After the handler returned, unless the job was released (steps 5-6: unique lock, next chain step, batch). */
  afterHandle?(ctx: ObjectJobContext): Promise<void> | void;
  /** When the job failed for good (CallQueuedHandler::failed); `command` is null when it could not be decoded, `error` after `fail()` without one. */
  onFailed?(job: RedisJob, command: PhpObject | null, error: Error | null): Promise<void> | void;
}

/** Laravel's job features, in the order CallQueuedHandler applies them around a job. */
export const LARAVEL_FEATURES = Object.freeze(['debounce', 'models', 'unique', 'chain', 'batch'] as const);
/** One of {@link LARAVEL_FEATURES}. */
export type LaravelFeature = (typeof LARAVEL_FEATURES)[number];

/** Options of {@link Handlers}. */
export interface HandlersOptions {
  /** Laravel features run around every object job, in order. Default none. */
  hooks?: CommandHooks[];
  /**
   * A job no handler is registered for: `'fail'` records it in the failed-job store with the reason;
   * `{ release: seconds }` puts it back for a PHP worker (each release counts an attempt, as in Laravel).
   * Default `'fail'`.
   */
  unknownJobs?: UnknownJobPolicy;
  /** What Laravel's job middleware share with PHP workers (locks, counters, named limiters). */
  middleware?: MiddlewareOptions;
}

/**
 * Where the job middleware keep what PHP workers share, and which middleware classes to leave out. A
 * middleware needing a service that is not given makes its job unrunnable (failed or left to PHP, as
 * `unknownJobs` says), never run without its guard.
 */
export interface MiddlewareOptions {
  /** Laravel's default cache store: WithoutOverlapping locks, RateLimited and ThrottlesExceptions counters. */
  cache?: CacheStore;
  /** Laravel's `default` Redis connection and prefix, for RateLimitedWithRedis and ThrottlesExceptionsWithRedis. */
  redis?: RedisLimiterConnection;
  /** Rate limiters by name, declared as `RateLimiter::for(name, ...)` declares them in PHP. */
  limiters?: Record<string, RateLimiterCallback>;
  /** Batch lookups for SkipIfBatchCancelled (a BatchRepository). */
  batches?: BatchLookup;
  /**
   * Middleware classes a payload may carry that Node workers leave out (e.g. the app's own logging
   * middleware): an explicit opt-out, since a job carrying any other class larq cannot run is refused.
   */
  ignore?: string[];
  clock?: Clock;
}

/** What `handlers.object()` and `handlers.listener()` take besides the handler. */
export interface HandlerHooks {
  /** The job class's `failed()` method. */
  failed?: FailedHook;
  /** Middleware run around the handler before any the payload carries, as PHP runs `middleware()` before `$middleware`. */
  middleware?: readonly JobMiddleware[];
}

/** What happens to a job no handler is registered for: see HandlersOptions.unknownJobs. */
export type UnknownJobPolicy = 'fail' | { release: number };

/** What a Handlers registry runs (Handlers.summary). */
export interface HandlersSummary {
  /** PHP job classes (`data.commandName`). */
  objects: string[];
  /** Queued listener classes. */
  listeners: string[];
  /** String jobs, as `Class@method`. */
  strings: string[];
  /** The Laravel features its hooks implement, in the order they run. */
  features: LaravelFeature[];
  unknownJobs: UnknownJobPolicy;
}

function checkUnknownJobs(policy: UnknownJobPolicy): UnknownJobPolicy {
  if (
    policy !== 'fail' &&
    !(typeof policy === 'object' && policy !== null && Number.isInteger(policy.release) && policy.release >= 0)
  ) {
    throw new InvalidOptionError('unknownJobs', "must be 'fail' or { release: seconds }");
  }
  return policy;
}

const CLOSURE = 'Illuminate\\Queue\\CallQueuedClosure';

interface Entry<H> {
  handler: H;
  failed?: FailedHook;
  middleware?: readonly JobMiddleware[];
}

/** The registry of Node handlers; the Worker runs jobs through it. */
export class Handlers implements JobRunner<RedisJob> {
  private readonly objects = new Map<string, Entry<StoredObjectHandler>>();
  private readonly listeners = new Map<string, Entry<StoredObjectHandler>>();
  private readonly strings = new Map<string, Entry<StoredStringHandler>>();
  private readonly declared = new Map<string, string>();
  private unknownJobs: UnknownJobPolicy;
  private hooks: CommandHooks[];
  private middlewareOptions: MiddlewareOptions;
  private services: MiddlewareServices | undefined;
  private ignoredMiddleware: ReadonlySet<string>;
  private failJob: ((job: RedisJob, error?: Error) => Promise<void>) | undefined;
  // ctx.fail for every handler: made once, it finds the worker's failJob when called.
  private readonly failFromHandler: FailJob = async (job, error) => {
    if (!this.failJob) throw error ?? new Error('fail() needs a worker (createWorker binds one)');
    await this.failJob(job, error); // no error: Laravel's ManuallyFailedException
  };

  constructor(options: HandlersOptions = {}) {
    this.unknownJobs = checkUnknownJobs(options.unknownJobs ?? 'fail');
    this.hooks = [...(options.hooks ?? [])];
    this.middlewareOptions = { ...options.middleware };
    this.ignoredMiddleware = new Set(options.middleware?.ignore ?? []);
  }

  /**
   * Fill in the middleware services not given yet (`larq work` passes the app's cache store and Redis
   * connection this way); limiters and ignored classes are added to those already declared.
   */
  useMiddleware(options: MiddlewareOptions): this {
    const own = this.middlewareOptions;
    this.middlewareOptions = {
      ...options,
      ...Object.fromEntries(Object.entries(own).filter(([, v]) => v !== undefined)),
      limiters: { ...options.limiters, ...own.limiters },
      ignore: [...(own.ignore ?? []), ...(options.ignore ?? [])],
    };
    this.ignoredMiddleware = new Set(this.middlewareOptions.ignore);
    this.services = undefined;
    return this;
  }

  /** Change what happens to a job no handler is registered for (see HandlersOptions.unknownJobs). */
  onUnknownJobs(policy: UnknownJobPolicy): this {
    this.unknownJobs = checkUnknownJobs(policy);
    return this;
  }

  /**
   * Add each of `defaults` whose feature no hook registered here implements yet, in Laravel's order
   * (LARAVEL_FEATURES); hooks without a feature keep their place after them. `larq work` wires chains and
   * batches this way, so a handlers module that wires its own keeps them.
   */
  useDefaults(defaults: CommandHooks[]): this {
    const present = new Set(this.hooks.map((h) => h.feature));
    const added = defaults.filter((d) => d.feature !== undefined && !present.has(d.feature));
    const rank = (h: CommandHooks) =>
      h.feature === undefined ? LARAVEL_FEATURES.length : LARAVEL_FEATURES.indexOf(h.feature);
    // a stable sort: the user's own order among equal ranks stays
    this.hooks = [...this.hooks, ...added]
      .map((h, i) => [h, i] as const)
      .sort((a, b) => rank(a[0]) - rank(b[0]) || a[1] - b[1])
      .map(([h]) => h);
    return this;
  }

  /** What this registry runs, for start-up banners and diagnostics. */
  summary(): HandlersSummary {
    return {
      objects: [...this.objects.keys()],
      listeners: [...this.listeners.keys()],
      strings: [...this.strings.keys()],
      features: this.hooks.flatMap((h) => (h.feature === undefined ? [] : [h.feature])),
      unknownJobs: this.unknownJobs,
    };
  }

  /**
   * Handle the PHP job class `className` (`data.commandName`), e.g. `App\Jobs\SendWelcomeEmail`.
   * `handlers.object<SendWelcomeEmail>(...)` types the command as your interface for the job; a declaration
   * `larq types` generated (`handlers.object(SendWelcomeEmail, ...)`) types it as PHP declares the class.
   */
  object<T extends object = Record<string, unknown>>(
    className: string,
    handler: ObjectJobHandler<T>,
    hooks?: HandlerHooks,
  ): this;
  object<View extends object>(
    declaration: TypedPhpClass<View, object>,
    handler: ObjectJobHandler<View>,
    hooks?: HandlerHooks,
  ): this;
  object(
    target: string | TypedPhpClass<object, object>,
    handler: ObjectJobHandler<object>,
    hooks: HandlerHooks = {},
  ): this {
    const className = typeof target === 'string' ? target : target.className;
    if (typeof target !== 'string') this.declared.set(className, target.hash);
    this.objects.set(className, {
      handler: handler as StoredObjectHandler,
      failed: hooks.failed,
      middleware: hooks.middleware,
    });
    return this;
  }

  /**
   * Handle a queued event listener (CallQueuedListener) of the PHP class `listenerClass`; `T` types the
   * listener's view, or a declaration `larq types` generated types it.
   */
  listener<T extends object = Record<string, unknown>>(
    listenerClass: string,
    handler: ObjectJobHandler<T>,
    hooks?: HandlerHooks,
  ): this;
  listener<View extends object>(
    declaration: TypedListener<View, object, object>,
    handler: ObjectJobHandler<View>,
    hooks?: HandlerHooks,
  ): this;
  listener(
    target: string | TypedListener<object, object, object>,
    handler: ObjectJobHandler<object>,
    hooks: HandlerHooks = {},
  ): this {
    const listenerClass = typeof target === 'string' ? target : target.className;
    if (typeof target !== 'string') this.declared.set(listenerClass, target.hash);
    this.listeners.set(listenerClass, {
      handler: handler as StoredObjectHandler,
      failed: hooks.failed,
      middleware: hooks.middleware,
    });
    return this;
  }

  /**
   * The classes registered through a `larq types` declaration, with the hash of the PHP declaration each
   * was generated from (`larq work` compares them with the app's classes at start).
   */
  declarations(): ReadonlyMap<string, string> {
    return this.declared;
  }

  /**
   * Handle a string job: `Class@method`, or `Class` for its `fire` method, as Laravel parses `job`.
   * `handlers.string<T>(...)` types the payload's `data` as `T`.
   */
  string<T = unknown>(job: string, handler: StringJobHandler<T>, hooks: { failed?: FailedHook } = {}): this {
    this.strings.set(callbackKey(job), { handler: handler as StoredStringHandler, failed: hooks.failed });
    return this;
  }

  /** Called by createWorker: lets handlers and the unknown-job policy fail a job as Laravel's Job::fail does. */
  bindFailer(failJob: (job: RedisJob, error?: Error) => Promise<void>): void {
    this.failJob = failJob;
  }

  /** Run one job (the Worker calls this). */
  async run(job: RedisJob, attempt: JobAttempt): Promise<void> {
    // The job given is fenced: its delete and release are refused once the attempt is over.
    const payload = job.payload(); // an unreadable payload throws here: an ordinary job exception
    if (!payload.isObjectJob) return this.runString(job, payload, attempt);
    if (payload.commandName === CLOSURE)
      return this.unrunnable(job, new PhpOnlyJobError(payload.name, 'a queued closure (CallQueuedClosure)'));
    const command = job.command();
    // The payload's name and the object's class must agree: a handler only ever gets the class it was
    // registered for (PHP's CallQueuedHandler would run the object's own class, not commandName's).
    if (!sameClass(payload, command))
      return this.unrunnable(job, new CommandClassMismatchError(payload.commandName!, command.className));
    const entry = this.objectEntry(payload, command);
    if (!entry) return this.unrunnable(job, new UnknownJobError(this.routeName(payload, command)));
    let middleware: readonly JobMiddleware[];
    try {
      middleware = this.middlewareOf(entry, command, this.routeName(payload, command));
    } catch (e) {
      // a guard Node cannot keep: the job must not run here without it
      if (e instanceof UnsupportedMiddlewareError) return this.unrunnable(job, e);
      throw e;
    }
    const ctx = this.context(job, payload, attempt, command);
    // Every hook asks the attempt first: once it is over (a timeout fired while the handler ran), its
    // hooks must not dispatch a chain step, count a batch job or release a unique lock a second time.
    for (const hook of this.hooks) {
      if (attempt.allows?.('beforeHandle') === false || (await hook.beforeHandle?.(ctx)) === false) return;
    }
    if (middleware.length === 0) {
      const handled = entry.handler(toPlain(command), ctx);
      // A handler that returned no promise is done: awaiting its value would only cost a turn per job.
      if (isThenable(handled)) await handled;
    } else {
      const view = toPlain<Record<string, unknown>>(command);
      let started = false;
      try {
        await runThroughMiddleware(
          middleware,
          { job: ctx, command: view, services: this.middlewareServices() },
          async () => {
            started = true;
            await entry.handler(view, ctx);
          },
        );
      } catch (e) {
        // a middleware whose store is not configured: refused before the handler, as an unknown job is
        if (!started && e instanceof UnsupportedMiddlewareError) return this.unrunnable(job, e);
        throw e;
      }
    }
    // What CallQueuedHandler does after handle() belongs to this attempt: nothing of it once it is over.
    if (attempt.allows?.('afterHandle') === false) return;
    if (!job.isReleased()) {
      for (const hook of this.hooks) {
        if (attempt.allows?.('afterHandle') === false) return;
        await hook.afterHandle?.(ctx);
      }
    }
    // CallQueuedHandler's last step: a job that neither released nor failed itself is done. Only the
    // acknowledgement is left then, which the worker may wait for without holding the slot.
    if (!job.isDeletedOrReleased() && !job.hasFailed()) {
      const deleting = job.delete();
      if (attempt.deferFinalDelete) attempt.deferFinalDelete(deleting);
      else await deleting;
    }
  }

  /** The job class's failed() hook, when its handler registered one. */
  async failed(job: RedisJob, error: Error | null): Promise<void> {
    let payload: JobPayload | null = null;
    try {
      payload = job.payload();
    } catch {
      return; // nothing routes an unreadable payload to a hook
    }
    const entry = payload.isObjectJob
      ? this.objectEntryOrNull(job, payload)
      : this.strings.get(callbackKey(payload.job));
    if (payload.isObjectJob && this.hooks.length > 0) {
      let command: PhpObject | null = null;
      try {
        command = job.command();
      } catch {
        // undecodable: hooks get null and do what they can from the payload alone
      }
      for (const hook of this.hooks) await hook.onFailed?.(job, command, error);
    }
    await entry?.failed?.(error, { job, payload });
  }

  // The handler's own middleware first, then the payload's: CallQueuedHandler's array_merge order.
  private middlewareOf(
    entry: Entry<StoredObjectHandler>,
    command: PhpObject,
    jobName: string,
  ): readonly JobMiddleware[] {
    const carried = payloadMiddleware(command, jobName, this.ignoredMiddleware);
    if (!entry.middleware || entry.middleware.length === 0) return carried;
    return carried.length === 0 ? entry.middleware : [...entry.middleware, ...carried];
  }

  private middlewareServices(): MiddlewareServices {
    const o = this.middlewareOptions;
    return (this.services ??= {
      cache: o.cache,
      redis: o.redis,
      batches: o.batches,
      limiters: new Map(Object.entries(o.limiters ?? {})),
      clock: o.clock ?? systemClock,
    });
  }

  private async runString(job: RedisJob, payload: JobPayload, attempt: JobAttempt): Promise<void> {
    const entry = this.strings.get(callbackKey(payload.job));
    if (!entry) return this.unrunnable(job, new UnknownJobError(payload.job));
    await entry.handler(payload.data, this.context(job, payload, attempt));
  }

  private objectEntry(payload: JobPayload, command: PhpObject): Entry<StoredObjectHandler> | undefined {
    if (!sameClass(payload, command)) return undefined;
    if (payload.commandName === CALL_QUEUED_LISTENER) return this.listeners.get(listenerClass(command));
    return this.objects.get(payload.commandName ?? command.className);
  }

  private objectEntryOrNull(job: RedisJob, payload: JobPayload): Entry<StoredObjectHandler> | undefined {
    try {
      return this.objectEntry(payload, job.command());
    } catch {
      return payload.commandName === CALL_QUEUED_LISTENER ? undefined : this.objects.get(payload.commandName ?? '');
    }
  }

  private routeName(payload: JobPayload, command: PhpObject): string {
    return payload.commandName === CALL_QUEUED_LISTENER
      ? `${CALL_QUEUED_LISTENER} for ${listenerClass(command)}`
      : (payload.commandName ?? command.className);
  }

  // A job Node cannot run: failed with the reason, or put back for a PHP worker, never dropped.
  private async unrunnable(job: RedisJob, error: Error): Promise<void> {
    if (this.unknownJobs !== 'fail') return job.release(this.unknownJobs.release);
    if (!this.failJob) throw error; // no worker bound: an ordinary exception, retried then failed
    await this.failJob(job, error);
  }

  private context(job: RedisJob, payload: JobPayload, attempt: JobAttempt): JobContext;
  private context(job: RedisJob, payload: JobPayload, attempt: JobAttempt, command: PhpObject): ObjectJobContext;
  private context(
    job: RedisJob,
    payload: JobPayload,
    attempt: JobAttempt,
    command?: PhpObject,
  ): JobContext | ObjectJobContext {
    return new HandlerContext(job, payload, attempt, this.failFromHandler, command) as JobContext | ObjectJobContext;
  }
}

// data.commandName names the class of data.command, or is absent; PHP class names ignore case and a leading '\'.
function sameClass(payload: JobPayload, command: PhpObject): boolean {
  if (payload.commandName === null) return true;
  const bare = (name: string) => name.replace(/^\\/, '').toLowerCase();
  return bare(payload.commandName) === bare(command.className);
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === 'object' || typeof value === 'function') &&
    value !== null &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}

// Laravel's Str::parseCallback($job, 'fire'): split at the first '@'; no '@' means the `fire` method.
function callbackKey(job: string): string {
  const at = job.indexOf('@');
  return at === -1 ? `${job}@fire` : job;
}

function listenerClass(command: PhpObject): string {
  const c = command.get('class');
  return typeof c === 'string' ? c : '';
}
