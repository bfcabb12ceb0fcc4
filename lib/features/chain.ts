// Laravel's job chains across the language boundary (Laravel `Queueable::dispatchNextJobInChain`, 13.x). A Node worker that finishes a step of
// a PHP chain dispatches the next step exactly as Queueable::dispatchNextJobInChain does, so the PHP
// steps after it run; dispatchChain builds a chain in Node that PHP workers (or larq) continue.
import type { CommandHooks, ObjectJobContext } from '../handlers/Handlers';
import type { ObjectJob } from '../jobs/dispatch';
export { dispatchObject, type QueueResolver } from './bus';
import type { RedisJob } from '../jobs/RedisJob';
import { serialize } from '../php/serialize';
import { unserialize } from '../php/unserialize';
import { PhpArray, PhpObject, type PhpValue } from '../php/values';
import type { LaravelLine } from '../LaravelLine';
import { dispatchObject, lineOf, type QueueResolver } from './bus';
import { ENVELOPE_KEYS, serializedInput, truthy, withJobProperties } from './props';
import { dispatchUnique, type UniqueJobSpec, type UniqueOptions } from './unique';
import type { CacheStore } from '../cache/CacheStore';

/** Given to `onWarning` (else written with process.emitWarning) when PHP-only chain work could not be done in Node. */
export interface ChainWarning {
  kind: 'catch-callbacks-not-run';
  job: RedisJob;
  /** How many `chainCatchCallbacks` (PHP closures) the failed step carried. */
  count: number;
  message: string;
}

function warn(w: ChainWarning, onWarning: ((w: ChainWarning) => unknown) | undefined): void {
  if (onWarning) onWarning(w);
  else process.emitWarning(w.message, { code: 'LARQ_CHAIN_CATCH' });
}

/**
 * The next step of `current`'s chain, rebuilt as Laravel does: shifted off `chained`, given the rest of
 * the list, the chain's connection/queue as fallbacks, and the chain properties of `current`. Every
 * other property keeps its bytes; the ones set sit where Queueable declares them on `line` and, for a
 * class that leaves out defaults (SerializesModels 9.4+), are left out at their default, as PHP writes
 * them. Null when the chain is done.
 */
export function nextInChain(current: PhpObject, line: LaravelLine = 13): PhpObject | null {
  const chained = chainedSteps(current);
  if (chained === null) return null;
  const [first, ...rest] = [...chained.entries.values()];
  const input = serializedInput(first);
  if (input === null) throw new TypeError(`${current.className}: chained[0] is not a serialized job`);
  const decoded = unserialize(input);
  if (!(decoded instanceof PhpObject)) throw new TypeError(`${current.className}: chained[0] is not a PHP object`);
  const connection = decoded.get('connection');
  const queue = decoded.get('queue');
  return withJobProperties(
    decoded,
    {
      chained: PhpArray.list(rest),
      connection: truthy(connection) ? (connection as PhpValue) : (current.get('chainConnection') ?? null),
      queue: truthy(queue) ? (queue as PhpValue) : (current.get('chainQueue') ?? null),
      chainConnection: current.get('chainConnection') ?? null,
      chainQueue: current.get('chainQueue') ?? null,
      chainCatchCallbacks: current.get('chainCatchCallbacks') ?? null,
    },
    line,
  );
}

// The `chained` steps still to dispatch after this job, or null when there are none.
function chainedSteps(current: PhpObject): PhpArray | null {
  const chained = current.get('chained');
  return chained instanceof PhpArray && chained.size > 0 ? chained : null;
}

/** The payload's keys beyond Laravel's envelope (Context, Horizon, payload hooks), to carry to the next step. */
export function carriedKeys(decoded: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const extra: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(decoded)) if (!ENVELOPE_KEYS.has(key)) extra[key] = value;
  return extra;
}

/** Options of {@link chainHooks}. */
export interface ChainHooksOptions {
  /**
   * The unique job classes (as given to uniqueJobs): a next step of one of these goes through its lock as
   * Laravel's dispatch() does, taking it (13.24+: writing the owner into the step) or skipping the step
   * while another copy holds it. Without it every step is pushed as is.
   */
  unique?: { classes: Readonly<Record<string, UniqueJobSpec>>; cache: CacheStore; options: UniqueOptions };
  /** Where warnings about PHP-only chain work go (catch callbacks not run). Default: process.emitWarning. */
  onWarning?: (warning: ChainWarning) => unknown;
}

/**
 * Chain continuation (Laravel `CallQueuedHandler::call`, 13.x): after a step that neither failed nor was released, the next
 * step is dispatched, through the dispatch() helper's unique lock when it is a unique class. Its envelope
 * is built from its serialized properties (tries, timeout, backoff..., and the class name as displayName:
 * PHP methods such as displayName() cannot run in Node), and the current payload's extra top-level keys
 * are carried over.
 *
 * onFailed: `chainCatchCallbacks` are PHP closures; Node cannot run them. They are left untouched and a
 * warning (`onWarning`, else process.emitWarning) says how many were not run.
 */
export function chainHooks(queues: QueueResolver, options: ChainHooksOptions = {}): CommandHooks {
  return {
    feature: 'chain',
    async afterHandle(ctx: ObjectJobContext) {
      // Most jobs have no chain: say so from the command before reading the job's state (ctx.job is a
      // proxy under a timeout, where each read costs a trap).
      if (chainedSteps(ctx.command) === null) return;
      if (ctx.job.hasFailed() || ctx.job.isReleased()) return;
      const next = nextInChain(ctx.command, lineOf(queues, ctx.command.get('chainConnection')));
      if (!next) return;
      const extra = carriedKeys(ctx.payload.decoded);
      const job = { command: next, extra: Object.keys(extra).length > 0 ? extra : undefined };
      const unique = options.unique;
      const spec = unique?.classes[next.className];
      if (unique && spec) await dispatchUnique(queues, unique.cache, job, spec, unique.options);
      else await dispatchObject(queues, job);
    },
    onFailed(job: RedisJob, command: PhpObject | null) {
      const callbacks = command?.get('chainCatchCallbacks');
      if (callbacks instanceof PhpArray && callbacks.size > 0) {
        warn(
          {
            kind: 'catch-callbacks-not-run',
            job,
            count: callbacks.size,
            message: `larq: ${callbacks.size} chain catch callback(s) of ${command!.className} (job ${job.uuid() ?? job.getJobId()}) are PHP closures and were not run`,
          },
          options.onWarning,
        );
      }
    },
  };
}

/** Options of {@link dispatchChain}, as `Bus::chain(...)->onConnection()->onQueue()`. */
export interface ChainOptions {
  connection?: string | null;
  queue?: string | null;
}

/**
 * Build and dispatch a chain as `Bus::chain([...])->dispatch()` does (PendingChain): the first job gets
 * `chainConnection`/`chainQueue` (and its own connection/queue when it has none) from the options,
 * `chained` = the others serialized, and `chainCatchCallbacks` = []. Properties go where Queueable
 * declares them, defaults left out as the class's serialize does. Jobs are PHP job objects (PHP or Node
 * handlers alike). Resolves to the first job's id.
 */
export async function dispatchChain(
  queues: QueueResolver,
  jobs: (PhpObject | ObjectJob)[],
  options: ChainOptions = {},
): Promise<string> {
  if (jobs.length === 0) throw new TypeError('dispatchChain: at least one job');
  const [head, ...rest] = jobs.map((j) => (j instanceof PhpObject ? { command: j } : j));
  const first = head.command;
  const updates: Record<string, PhpValue> = {};
  // onConnection / onQueue of the chain: the chain's, and the first job's unless it named its own
  if (options.connection != null && options.connection !== '') {
    updates.chainConnection = options.connection;
    updates.connection = truthy(first.get('connection')) ? (first.get('connection') as PhpValue) : options.connection;
  }
  if (options.queue != null && options.queue !== '') {
    updates.chainQueue = options.queue;
    updates.queue = truthy(first.get('queue')) ? (first.get('queue') as PhpValue) : options.queue;
  }
  updates.chained = PhpArray.list(rest.map((j) => serialize(j.command)));
  updates.chainCatchCallbacks = new PhpArray();
  const line = lineOf(queues, updates.connection ?? first.get('connection'));
  return dispatchObject(queues, { ...head, command: withJobProperties(first, updates, line) });
}
