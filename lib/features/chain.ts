// Laravel's job chains across the language boundary (spec §11.5). A Node worker that finishes a step of
// a PHP chain dispatches the next step exactly as Queueable::dispatchNextJobInChain does, so the PHP
// steps after it run; dispatchChain builds a chain in Node that PHP workers (or larq) continue.
import { EventEmitter } from 'events';
import type { CommandHooks, ObjectJobContext } from '../handlers/Handlers';
import type { ObjectJob } from '../jobs/dispatch';
import type { RedisJob } from '../jobs/RedisJob';
import type { RedisQueue } from '../RedisQueue';
import { serialize } from '../php/serialize';
import { unserialize } from '../php/unserialize';
import { PhpArray, PhpObject, type PhpValue } from '../php/values';
import { ENVELOPE_KEYS, serializedInput, truthy, withProperty } from './props';

/** The queue a job goes to, by its `connection` property (null: the default connection). */
export type QueueResolver = RedisQueue | ((connectionName: string | null) => RedisQueue);

/** Emitted (event `'warning'` on {@link chainEvents}) when PHP-only chain work could not be done in Node. */
export interface ChainWarning {
  kind: 'catch-callbacks-not-run';
  job: RedisJob;
  /** How many `chainCatchCallbacks` (PHP closures) the failed step carried. */
  count: number;
  message: string;
}

/** Where chain warnings go; when nobody listens they are written with process.emitWarning. */
export const chainEvents = new EventEmitter();

function warn(w: ChainWarning): void {
  if (chainEvents.listenerCount('warning') > 0) chainEvents.emit('warning', w);
  else process.emitWarning(w.message, { code: 'LARQ_CHAIN_CATCH' });
}

function resolve(queues: QueueResolver, connection: PhpValue | undefined): RedisQueue {
  const name = typeof connection === 'string' && connection !== '' ? connection : null;
  return typeof queues === 'function' ? queues(name) : queues;
}

/**
 * The next step of `current`'s chain, rebuilt as Laravel does: shifted off `chained`, given the rest of
 * the list, the chain's connection/queue as fallbacks, and the chain properties of `current`. Every
 * other property keeps its bytes. Null when the chain is done.
 */
export function nextInChain(current: PhpObject): PhpObject | null {
  const chained = current.get('chained');
  if (!(chained instanceof PhpArray) || chained.size === 0) return null;
  const [first, ...rest] = [...chained.entries.values()];
  const input = serializedInput(first);
  if (input === null) throw new TypeError(`${current.className}: chained[0] is not a serialized job`);
  const decoded = unserialize(input);
  if (!(decoded instanceof PhpObject)) throw new TypeError(`${current.className}: chained[0] is not a PHP object`);
  let next = withProperty(decoded, 'chained', PhpArray.list(rest));
  const connection = next.get('connection');
  next = withProperty(next, 'connection', truthy(connection) ? (connection as PhpValue) : (current.get('chainConnection') ?? null));
  const queue = next.get('queue');
  next = withProperty(next, 'queue', truthy(queue) ? (queue as PhpValue) : (current.get('chainQueue') ?? null));
  for (const name of ['chainConnection', 'chainQueue', 'chainCatchCallbacks']) next = withProperty(next, name, current.get(name) ?? null);
  return next;
}

/** Dispatch a job object as the bus does: its `connection` picks the queue, `queue` the name, `delay` later(). */
export async function dispatchObject(queues: QueueResolver, job: ObjectJob): Promise<string> {
  const command = job.command;
  const queue = resolve(queues, command.get('connection'));
  const name = command.get('queue');
  const queueName = typeof name === 'string' && name !== '' ? name : null;
  const delay = command.get('delay');
  const seconds = typeof delay === 'bigint' ? Number(delay) : typeof delay === 'number' ? delay : 0;
  if (seconds > 0) return queue.later(seconds, job, queueName);
  return queue.push(job, queueName);
}

/** The payload's keys beyond Laravel's envelope (Context, Horizon, payload hooks), to carry to the next step. */
export function carriedKeys(decoded: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const extra: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(decoded)) if (!ENVELOPE_KEYS.has(key)) extra[key] = value;
  return extra;
}

/**
 * Chain continuation (§11.1 step 6, §11.5): after a step that neither failed nor was released, the next
 * step is dispatched. Its envelope is built from its serialized properties (tries, timeout, backoff...,
 * and the class name as displayName: PHP methods such as displayName() cannot run in Node), and the
 * current payload's extra top-level keys are carried over.
 *
 * onFailed: `chainCatchCallbacks` are PHP closures; Node cannot run them. They are left untouched and a
 * warning (`chainEvents` 'warning', else process.emitWarning) says how many were not run.
 */
export function chainHooks(queues: QueueResolver): CommandHooks {
  return {
    feature: 'chain',
    async afterHandle(ctx: ObjectJobContext) {
      if (ctx.job.hasFailed() || ctx.job.isReleased()) return;
      const next = nextInChain(ctx.command);
      if (!next) return;
      const extra = carriedKeys(ctx.payload.decoded);
      await dispatchObject(queues, { command: next, extra: Object.keys(extra).length > 0 ? extra : undefined });
    },
    onFailed(job: RedisJob, command: PhpObject | null) {
      const callbacks = command?.get('chainCatchCallbacks');
      if (callbacks instanceof PhpArray && callbacks.size > 0) {
        warn({
          kind: 'catch-callbacks-not-run',
          job,
          count: callbacks.size,
          message: `larq: ${callbacks.size} chain catch callback(s) of ${command!.className} (job ${job.uuid() ?? job.getJobId()}) are PHP closures and were not run`,
        });
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
 * Build and dispatch a chain as `Bus::chain([...])->dispatch()` does (8.x PendingChain): the first job
 * gets `chained` = the others serialized, `chainConnection`/`chainQueue` (and its own connection/queue
 * when the chain names them), and `chainCatchCallbacks` = []. Jobs are PHP job objects (PHP or Node
 * handlers alike). Resolves to the first job's id.
 */
export async function dispatchChain(queues: QueueResolver, jobs: (PhpObject | ObjectJob)[], options: ChainOptions = {}): Promise<string> {
  if (jobs.length === 0) throw new TypeError('dispatchChain: at least one job');
  const [head, ...rest] = jobs.map((j) => (j instanceof PhpObject ? { command: j } : j));
  let first = head.command;
  // allOnConnection / allOnQueue: set on the first job only, as Laravel does
  if (options.connection != null) {
    first = withProperty(first, 'connection', options.connection);
    first = withProperty(first, 'chainConnection', options.connection);
  }
  if (options.queue != null) {
    first = withProperty(first, 'queue', options.queue);
    first = withProperty(first, 'chainQueue', options.queue);
  }
  first = withProperty(first, 'chained', PhpArray.list(rest.map((j) => serialize(j.command))));
  first = withProperty(first, 'chainCatchCallbacks', new PhpArray());
  return dispatchObject(queues, { ...head, command: first });
}
