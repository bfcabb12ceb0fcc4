// Laravel's debounced jobs (13.6+; queued listeners 13.26+), the worker's side: each dispatch
// of a `#[DebounceFor]` job writes a fresh owner to the cache key `laravel_debounced_job:...` and into the
// job's `debounceOwner`; a job whose owner is no longer the cache's was superseded by a newer dispatch and
// is deleted unrun, as CallQueuedHandler::commandShouldBeDebounced / deleteDebouncedJob do. When the key is
// gone (expired, evicted) the job runs: Laravel fails open.
import type { CacheStore } from '../cache/CacheStore';
import type { CommandHooks, ObjectJobContext } from '../handlers/Handlers';
import type { RedisJob } from '../jobs/RedisJob';
import type { PhpObject, PhpValue } from '../php/values';
import { truthy } from './props';
import { CALL_QUEUED_LISTENER } from './wrappers';
import { xxh128 } from './xxh128';

/** What Node cannot see of a debounced PHP class: its methods. */
export interface DebouncedJobSpec {
  /** The job's `displayName()`, when its class has that method (the key then holds its xxh128). Default: none. */
  displayName?: (command: PhpObject) => string;
  /** The job's `debounceId()` method. Default: its `debounceId` property, else ''. */
  debounceId?: (command: PhpObject) => string;
}

/** Options of {@link debouncedJobs}. */
export interface DebounceOptions {
  /** Classes whose displayName()/debounceId() methods matter, by PHP class name. Default none. */
  classes?: Readonly<Record<string, DebouncedJobSpec>>;
  /** Called for each superseded job before it is deleted (Laravel's JobDebounced event). */
  onDebounced?: (job: RedisJob, command: PhpObject) => void;
}

// PHP's string conversion of the id, as the key's concatenation does it.
function phpString(v: PhpValue | undefined): string {
  if (v === undefined || v === null || v === false) return '';
  if (v === true) return '1';
  return typeof v === 'string' || typeof v === 'bigint' || typeof v === 'number' ? String(v) : '';
}

/**
 * DebounceLock::getKey: `laravel_debounced_job:` + (xxh128 of displayName() when the class has that
 * method, else the class) + `:` + debounceId. A queued listener (CallQueuedListener) has displayName()
 * (its listener class) and a `debounceId` property.
 */
export async function debounceKey(command: PhpObject, spec: DebouncedJobSpec = {}): Promise<string> {
  const listener = command.className === CALL_QUEUED_LISTENER;
  const displayName = spec.displayName?.(command) ?? (listener ? phpString(command.get('class')) : undefined);
  const name = displayName === undefined ? command.className : await xxh128(displayName);
  const id = spec.debounceId ? spec.debounceId(command) : phpString(command.get('debounceId'));
  return `laravel_debounced_job:${name}:${id}`;
}

/**
 * The worker side of debounced jobs, for every job that carries a `debounceOwner` (13.6+): before its
 * handler, a job whose owner differs from the one in `cache` (Laravel's default store) is deleted, unrun
 * and unfailed; the handler then counts as done (JobProcessed), as in Laravel. Put these hooks first
 * (after modelHooks): Laravel checks before any middleware or unique-lock step.
 */
export function debouncedJobs(cache: Pick<CacheStore, 'get'>, options: DebounceOptions = {}): CommandHooks {
  return {
    feature: 'debounce',
    async beforeHandle(ctx: ObjectJobContext) {
      const owner = ctx.command.get('debounceOwner');
      if (!truthy(owner)) return;
      const current = await cache.get(await debounceKey(ctx.command, options.classes?.[ctx.command.className]));
      if (current === null || current === owner) return;
      options.onDebounced?.(ctx.job, ctx.command);
      await ctx.job.delete();
      return false;
    },
  };
}
