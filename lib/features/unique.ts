// Laravel's unique jobs (ShouldBeUnique, ShouldBeUniqueUntilProcessing) for PHP classes the user declares
// (spec §12.1): the worker side releases the lock the way CallQueuedHandler does, and dispatchUnique takes
// it as PendingDispatch does. Node cannot see PHP interfaces or call uniqueId()/uniqueFor() methods, so the
// classes and those values are declared here.
import type { CacheStore } from '../cache/CacheStore';
import type { CommandHooks, ObjectJobContext } from '../handlers/Handlers';
import type { ObjectJob } from '../jobs/dispatch';
import type { RedisJob } from '../jobs/RedisJob';
import { PhpObject, type PhpValue } from '../php/values';
import { dispatchObject, type QueueResolver } from './chain';
import { withProperty } from './props';

/** How one PHP class is unique. */
export interface UniqueJobSpec {
  /** The job's `uniqueId()`. Default: its `uniqueId` property, else ''. */
  uniqueId?: (command: PhpObject) => string;
  /** ShouldBeUniqueUntilProcessing: the lock is released just before the handler runs. Default false. */
  untilProcessing?: boolean;
  /** Lock TTL in seconds when dispatching (`uniqueFor`); 0 = never expires. Default: the `uniqueFor` property, else 0. */
  uniqueFor?: number;
  /**
   * The whole lock name, for keys larq cannot compute: a class with a `displayName()` method on 12.41+
   * (13.x hashes it with xxh128). Default: computed from the class name per `laravel`.
   */
  lockName?: (command: PhpObject) => string;
}

/** The PHP side's Laravel line: decides the lock key layout and the release method. */
export interface UniqueOptions {
  laravel: 8 | 9 | 10 | 11 | 12 | 13;
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

/** UniqueLock::getKey (§12.1): 8-10 no separator, 11+ `:` between class and uniqueId. */
export function uniqueLockName(command: PhpObject, spec: UniqueJobSpec, options: UniqueOptions): string {
  if (spec.lockName) return spec.lockName(command);
  const id = uniqueIdOf(spec, command);
  return options.laravel <= 10 ? `laravel_unique_job:${command.className}${id}` : `laravel_unique_job:${command.className}:${id}`;
}

async function releaseLock(cache: CacheStore, command: PhpObject, spec: UniqueJobSpec, options: UniqueOptions): Promise<void> {
  const name = uniqueLockName(command, spec, options);
  const owner = command.get('uniqueLockOwner');
  // 13.24+: an owner token in the command means an owner-checked release; otherwise force-release.
  if (options.laravel >= 13 && typeof owner === 'string' && owner !== '') await cache.lock(name, 0, owner).release();
  else await cache.lock(name, 0).forceRelease();
}

/**
 * The worker side of unique jobs, for `classes` keyed by PHP class name: a plain unique job's lock is
 * released after a successful, not-released run and when it fails for good; an until-processing job's
 * lock just before its handler (13.x: on a retry only with an owner token or at attempt 1).
 * Put these hooks before chainHooks/batchHooks: Laravel releases the lock before continuing a chain.
 */
export function uniqueJobs(classes: Readonly<Record<string, UniqueJobSpec>>, cache: CacheStore, options: UniqueOptions): CommandHooks {
  const specOf = (command: PhpObject | null) => (command ? classes[command.className] : undefined);
  return {
    feature: 'unique',
    async beforeHandle(ctx: ObjectJobContext) {
      const spec = specOf(ctx.command);
      if (!spec?.untilProcessing) return;
      if (options.laravel >= 13) {
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
    async onFailed(_job: RedisJob, command: PhpObject | null) {
      const spec = specOf(command);
      if (!spec || spec.untilProcessing) return;
      await releaseLock(cache, command!, spec, options);
    },
  };
}

/**
 * Dispatch a unique job as PendingDispatch does: take the lock (TTL `uniqueFor`, 0 = forever) and push;
 * when the lock is held the job is not dispatched and null is returned. On 13.x the owner token is
 * written into the job's `uniqueLockOwner` property (13.24+).
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
  const lock = cache.lock(uniqueLockName(input.command, spec, options), seconds);
  if (!(await lock.acquire())) return null;
  const command = options.laravel >= 13 ? withProperty(input.command, 'uniqueLockOwner', lock.owner) : input.command;
  try {
    return await dispatchObject(queues, { ...input, command });
  } catch (e) {
    await lock.release(); // nothing was queued: do not leave the lock behind
    throw e;
  }
}
