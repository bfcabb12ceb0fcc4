// The worker's events, named like Laravel's (`Illuminate\Queue\Events`, 13.x), and a typed emitter over node:events. Listeners
// observe: a listener that throws (or returns a rejected promise) is reported on `error` and never
// changes what happens to the job, and `error` with no listener is dropped instead of crashing.
import { EventEmitter } from 'node:events';
import type { AttemptOverError } from './errors';
import type { AttemptAction, WorkerJob } from './jobs/contracts';
import type { AttemptState } from './worker/Attempt';
import type { RestartSignal } from './worker/CacheSignals';
import type { OnHungHandler, WorkerOptions } from './WorkerOptions';

/** Why a worker stopped (Laravel's WorkerStopReason, 11.52+/12.59+/13.x). */
export type WorkerStopReason =
  'interrupted' | 'memory' | 'restart_signal' | 'empty' | 'max_time' | 'max_jobs' | 'timed_out' | 'lost_connection';

/** What `daemon` resolves to: the exit status `queue:work` would return (0, 1, or 12) and why. */
export interface WorkerStopResult {
  status: number;
  reason: WorkerStopReason;
}

/** The fields every job event carries. */
export interface JobEvent<J extends WorkerJob = WorkerJob> {
  connectionName: string;
  job: J;
}

/** The fields of worker-level events: the connection and the comma-separated queue list. */
export interface WorkerEvent {
  connectionName: string;
  queue: string;
}

/** Event name -> payload, for a worker whose queue yields jobs of type J. */
export interface WorkerEvents<J extends WorkerJob = WorkerJob> {
  /** The daemon started (12.18+). */
  WorkerStarting: WorkerEvent & { options: Readonly<WorkerOptions> };
  /** Each daemon pass, before popping (not while paused or down for maintenance). Unlike Laravel's, it cannot veto the pass: use pause(). */
  Looping: WorkerEvent;
  /** Before each pop pass (10.2+). */
  JobPopping: WorkerEvent;
  /** A job was popped (10.2+). */
  JobPopped: JobEvent<J>;
  /** Before the max-attempts check and the run. */
  JobProcessing: JobEvent<J>;
  /** The run returned without throwing (also when the job released or failed itself). */
  JobProcessed: JobEvent<J>;
  /** After JobProcessed, when the run released the job and did not delete it (13.26+). */
  JobReleased: JobEvent<J>;
  /** The job failed: after its reservation was deleted and its `failed` hook ran; before the record is written. */
  JobFailed: JobEvent<J> & { exception: Error };
  /** The run threw: after the fail decisions, before any release. */
  JobExceptionOccurred: JobEvent<J> & { exception: Error };
  /** The worker released the job after an exception, due in `backoff` seconds (9.21+; backoff 12.48+; exception 13.22+). */
  JobReleasedAfterException: JobEvent<J> & { backoff: number; exception: Error };
  /** The job ran past its timeout (after the fail decisions) (10.12+; timeout 13.x). */
  JobTimedOut: JobEvent<J> & { timeout: number };
  /** Always, at the end of processing: the exception, or null (11.23+; 13.x passes the exception). */
  JobAttempted: JobEvent<J> & { exception: Error | null };
  /** larq: a side effect of an attempt that was already over was refused (a late handler's release, delete, fail or hook). */
  JobActionRefused: JobEvent<J> & { action: AttemptAction; state: AttemptState; error: AttemptOverError };
  /** larq: a timed-out handler has not settled within `timeoutGraceSeconds`; `policy` is the onHungHandler option. */
  JobHandlerHung: JobEvent<J> & { timeout: number; graceSeconds: number; policy: OnHungHandler };
  /** larq: a popped job's earlier attempt still runs here, so it was not started and stays reserved. */
  JobAlreadyRunning: JobEvent<J>;
  /** A queue of this worker's list was found paused (queue:pause, or --all) since the last pass (13.x). */
  WorkerQueuePaused: WorkerEvent;
  /** A queue found paused before is no longer paused (13.x). */
  WorkerQueueResumed: WorkerEvent;
  /** A daemon pass found no job (13.10+). */
  WorkerIdle: WorkerEvent & { options: Readonly<WorkerOptions> };
  /** The daemon is returning (13.x fields). */
  WorkerStopping: WorkerStopResult & {
    /** With reason 'restart_signal': the restart key's value at start and the one that stopped the worker. */
    restartSignal?: RestartSignal;
    options: Readonly<WorkerOptions>;
    jobsProcessed: number;
    lastJobProcessedAt: number | null;
    memoryUsage: number;
  };
  /** Every exception the worker caught: job exceptions, pop and cache failures, listener errors (Laravel's report()). */
  error: Error;
}

/** Turn anything thrown into an Error, keeping the original as `cause`. */
export function toError(thrown: unknown): Error {
  return thrown instanceof Error ? thrown : new Error(String(thrown), { cause: thrown });
}

/** A typed event emitter whose emit never throws: listener failures go to `error`. */
export class TypedEmitter<M extends { error: Error }> {
  private readonly emitter = new EventEmitter();

  /** Listen to `name`. */
  on<K extends keyof M & string>(name: K, listener: (event: M[K]) => unknown): this {
    this.emitter.on(name, listener);
    return this;
  }

  /** Listen to the next `name` only. */
  once<K extends keyof M & string>(name: K, listener: (event: M[K]) => unknown): this {
    this.emitter.once(name, listener);
    return this;
  }

  /** Stop listening. */
  off<K extends keyof M & string>(name: K, listener: (event: M[K]) => unknown): this {
    this.emitter.off(name, listener);
    return this;
  }

  /** How many listeners `name` has. */
  listenerCount(name: keyof M & string): number {
    return this.emitter.listenerCount(name);
  }

  /** Call every listener of `name` in order; a throwing or rejecting listener is reported on `error`. */
  emit<K extends keyof M & string>(name: K, event: M[K]): void {
    // The worker emits several events per job; most have no listener, and rawListeners copies an array.
    if (this.emitter.listenerCount(name) === 0) return;
    // rawListeners: once() wrappers remove themselves when called.
    for (const listener of this.emitter.rawListeners(name) as ((event: M[K]) => unknown)[]) {
      try {
        const result = listener(event);
        if (result instanceof Promise) result.catch((e: unknown) => this.listenerFailed(name, e));
      } catch (e) {
        this.listenerFailed(name, e);
      }
    }
  }

  private listenerFailed(name: string, thrown: unknown): void {
    // An `error` listener that fails has nowhere left to report to: drop it rather than loop.
    if (name !== 'error') this.emit('error', toError(thrown) as M['error']);
  }
}
