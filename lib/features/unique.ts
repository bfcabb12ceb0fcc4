// Laravel's unique jobs (ShouldBeUnique, ShouldBeUniqueUntilProcessing) for PHP classes the user declares
// (Laravel `UniqueLock`, `CallQueuedHandler::ensureUniqueJobLockIsReleased`, 13.x): the worker side releases the lock the way CallQueuedHandler does, and dispatchUnique takes
// it as PendingDispatch does. Node cannot see PHP interfaces or call uniqueId()/uniqueFor() methods, so the
// classes and those values are declared here.
import type { CacheStore } from '../cache/CacheStore';
import { unserialize } from '../php/unserialize';
import { LaravelRelease, type LaravelVersion } from '../LaravelLine';
import type { CommandHooks, ObjectJobContext } from '../handlers/Handlers';
import type { ObjectJob } from '../jobs/dispatch';
import type { RedisJob } from '../jobs/RedisJob';
import { PhpObject, type PhpValue } from '../php/values';
import { dispatchObject, type QueueResolver } from './bus';
import { withJobProperties } from './props';
import { xxh128 } from './xxh128';

/** How one PHP class is unique. */
export interface UniqueJobSpec {
  /** The job's `uniqueId()`. Default: its `uniqueId` property, else ''. */
  uniqueId?: (command: PhpObject) => string;
  /** ShouldBeUniqueUntilProcessing: the lock is released just before the handler runs. Default false. */
  untilProcessing?: boolean;
  /** Lock TTL in seconds when dispatching (`uniqueFor`); 0 = never expires. Default: the `uniqueFor` property, else 0. */
  uniqueFor?: number;
  /**
   * The job's `displayName()`, when its class has that method: from 12.41 the lock key names it instead
   * of the class (12.54+ as its xxh128 digest). Default: the class has none, the key names the class.
   */
  displayName?: (command: PhpObject) => string;
  /** The whole lock name, overriding everything above. Default: computed per `laravel`. */
  lockName?: (command: PhpObject) => string;
}

/** The PHP side's Laravel version (as RedisQueue's `laravel` option): the lock key layout and the release method. */
export interface UniqueOptions {
  laravel: LaravelVersion;
}

function uniqueIdOf(spec: UniqueJobSpec, command: PhpObject): string {
  if (spec.uniqueId) return spec.uniqueId(command);
  return phpString(command.get('uniqueId'));
}

function phpString(v: PhpValue | undefined): string {
  if (v === undefined || v === null || v === false) return '';
  if (v === true) return '1';
  if (typeof v === 'string') return v;
  if (typeof v === 'bigint' || typeof v === 'number') return String(v);
  return '';
}

/**
 * Laravel `UniqueLock::getKey`: 8-10 class + uniqueId; 11.0+ `:` between them; 12.41+ displayName() in
 * place of the class when the job has that method, 12.54+ its xxh128 digest.
 */
export async function uniqueLockName(command: PhpObject, spec: UniqueJobSpec, options: UniqueOptions): Promise<string> {
  if (spec.lockName) return spec.lockName(command);
  const release = LaravelRelease.of(options.laravel);
  const id = uniqueIdOf(spec, command);
  if (!release.has('uniqueKeySeparator')) return `laravel_unique_job:${command.className}${id}`;
  let name = command.className;
  if (spec.displayName && release.has('uniqueKeyDisplayName')) {
    name = spec.displayName(command);
    if (release.has('uniqueKeyHash')) name = await xxh128(name);
  }
  return `laravel_unique_job:${name}:${id}`;
}

// 13.24+: an owner token in the command means a compare-and-delete release (a lock another dispatch took
// since is left alone); otherwise, and before 13.24, UniqueLock::release force-releases.
async function releaseLock(
  cache: CacheStore,
  command: PhpObject,
  spec: UniqueJobSpec,
  options: UniqueOptions,
): Promise<void> {
  const name = await uniqueLockName(command, spec, options);
  const owner = command.get('uniqueLockOwner');
  if (LaravelRelease.of(options.laravel).has('uniqueLockOwner') && typeof owner === 'string' && owner !== '')
    await cache.lock(name, 0, owner).release();
  else await cache.lock(name, 0).forceRelease();
}

/**
 * The worker side of unique jobs, for `classes` keyed by PHP class name: a plain unique job's lock is
 * released after a successful, not-released run and when it fails for good; an until-processing job's
 * lock just before its handler (13.24+: on a retry only with an owner token or at attempt 1). A job of
 * a class not declared here that fails for good has its lock released as {@link uniqueLocksOnFailure}
 * releases it.
 * Put these hooks before chainHooks/batchHooks: Laravel releases the lock before continuing a chain.
 */
export function uniqueJobs(
  classes: Readonly<Record<string, UniqueJobSpec>>,
  cache: CacheStore,
  options: UniqueOptions & UndeclaredUniqueOptions,
): CommandHooks {
  const specOf = (command: PhpObject | null) => (command ? classes[command.className] : undefined);
  return {
    feature: 'unique',
    async beforeHandle(ctx: ObjectJobContext) {
      const spec = specOf(ctx.command);
      if (!spec?.untilProcessing) return;
      if (LaravelRelease.of(options.laravel).has('uniqueLockOwner')) {
        const owner = ctx.command.get('uniqueLockOwner');
        if (ctx.attempts > 1 && !(typeof owner === 'string' && owner !== '')) return;
      }
      await releaseLock(cache, ctx.command, spec, options);
    },
    async afterHandle(ctx: ObjectJobContext) {
      const spec = specOf(ctx.command);
      if (!spec || spec.untilProcessing || ctx.job.isReleased()) return;
      await releaseLock(cache, ctx.command, spec, options);
    },
    async onFailed(job: RedisJob, command: PhpObject | null) {
      const spec = specOf(command);
      if (!spec) return releaseUndeclaredLock(cache, job, command, options);
      if (spec.untilProcessing) return;
      await releaseLock(cache, command!, spec, options);
    },
  };
}

/** Where the failure path of {@link uniqueLocksOnFailure} finds the lock of a class nobody declared. */
export interface UndeclaredUniqueOptions {
  /**
   * The name of `cache` among the app's stores (config('cache.default'), CACHE_STORE): a payload whose
   * context names another store (the job's uniqueVia()) is left alone. Default: the payload's store is
   * taken to be `cache`.
   */
  storeName?: string;
}

/**
 * The failure path of CallQueuedHandler::failed (12.x, 13.x) for unique jobs whose classes the worker
 * knows nothing of (a PHP job larq fails: no Node handler, too many attempts, a timeout): their unique
 * lock is released as Laravel's failure path releases it, so the app can dispatch the job again instead
 * of waiting for uniqueFor to run out (forever when it is 0). `larq work` wires this by default.
 */
export function uniqueLocksOnFailure(
  cache: CacheStore,
  options: UniqueOptions & UndeclaredUniqueOptions,
): CommandHooks {
  return {
    feature: 'unique',
    onFailed: (job, command) => releaseUndeclaredLock(cache, job, command, options),
  };
}

// The lock of a failed job of an undeclared class, found as Laravel finds it:
// - the payload's hidden context (PendingDispatch's InteractsWithUniqueJobs, 12.x/13.x, when the app's
//   ContextServiceProvider carries it): the lock's key, store and owner, released as
//   CallQueuedHandler::ensureUniqueJobLockIsReleasedViaContext does (the owner's compare-and-delete,
//   else a force release);
// - else the serialized command: UniqueLock::getKey from its class and uniqueId property, released as
//   UniqueLock::release does: with the command's uniqueLockOwner (13.24+, written only by
//   UniqueLock::acquire, so only unique jobs carry it) a compare-and-delete, else a force release of
//   that key (a class that is not unique has no lock there).
// Node cannot see whether a class implements ShouldBeUniqueUntilProcessing, whose lock Laravel's
// failed() leaves held (its worker released it as processing began): a job larq fails without running
// it never began processing, so its lock is released here too rather than held until uniqueFor ends.
async function releaseUndeclaredLock(
  cache: CacheStore,
  job: RedisJob,
  command: PhpObject | null,
  options: UniqueOptions & UndeclaredUniqueOptions,
): Promise<void> {
  const context = uniqueContext(job);
  if (context !== undefined) {
    if (options.storeName !== undefined && context.store !== options.storeName) return;
    if (context.owner !== '') await cache.lock(context.key, 0, context.owner).release();
    else await cache.lock(context.key, 0).forceRelease();
    return;
  }
  if (command === null) return;
  await releaseLock(cache, command, {}, options);
}

interface UniqueContext {
  store: string;
  key: string;
  owner: string;
}

// The payload's `illuminate:log:context` hidden entries laravel_unique_job_cache_store, _key and
// _lock_owner (13.x; 12.x has no owner), each PHP-serialized as Context::dehydrate writes them.
function uniqueContext(job: RedisJob): UniqueContext | undefined {
  let hidden: unknown;
  try {
    hidden = (job.payload().decoded['illuminate:log:context'] as { hidden?: unknown } | null)?.hidden;
  } catch {
    return undefined;
  }
  if (typeof hidden !== 'object' || hidden === null) return undefined;
  const entry = (name: string): string => {
    const text = (hidden as Record<string, unknown>)[name];
    if (typeof text !== 'string') return '';
    try {
      const value = unserialize(text);
      return typeof value === 'string' ? value : '';
    } catch {
      return '';
    }
  };
  const [store, key] = [entry('laravel_unique_job_cache_store'), entry('laravel_unique_job_key')];
  return store !== '' && key !== '' ? { store, key, owner: entry('laravel_unique_job_lock_owner') } : undefined;
}

/**
 * Dispatch a unique job as PendingDispatch does: take the lock (TTL `uniqueFor`, 0 = forever) and push;
 * when the lock is held the job is not dispatched and null is returned. From 13.24 the owner token is
 * written into the job's `uniqueLockOwner` property.
 */
export async function dispatchUnique(
  queues: QueueResolver,
  cache: CacheStore,
  job: PhpObject | ObjectJob,
  spec: UniqueJobSpec,
  options: UniqueOptions,
): Promise<string | null> {
  const input: ObjectJob = job instanceof PhpObject ? { command: job } : job;
  const prop = input.command.get('uniqueFor');
  const seconds = spec.uniqueFor ?? (typeof prop === 'bigint' ? Number(prop) : 0);
  const release = LaravelRelease.of(options.laravel);
  const lock = cache.lock(await uniqueLockName(input.command, spec, options), seconds);
  if (!(await lock.acquire())) return null;
  const command = release.has('uniqueLockOwner')
    ? withJobProperties(input.command, { uniqueLockOwner: lock.owner }, release.line)
    : input.command;
  try {
    return await dispatchObject(queues, { ...input, command });
  } catch (e) {
    await lock.release(); // nothing was queued: do not leave the lock behind
    throw e;
  }
}
