// A larq addition with no Laravel twin: while jobs run, push their reservations forward so a job that
// runs longer than `retry_after` is not migrated back to the queue and started a second time. It beats
// `everySeconds` after the previous beat ended, from start() until stop().
// A timed-out job is never extended: it must stay reserved only until its expiry, as under Laravel.
//
// A job can finish while a beat is on its way: its delete removes the reservation, and the extension
// then finds nothing. That is not a lost reservation; only a job still held by its attempt after the
// extension failed is reported.
import { LarqError } from '../errors';
import type { WorkerJob, WorkerQueue } from '../jobs/contracts';

/** One in-flight job as the heartbeat sees it. */
export interface HeartbeatJob<J extends WorkerJob> {
  readonly job: J;
  /** Whether the attempt still holds the job: running, and neither deleted, released nor failed. */
  readonly holdsReservation: boolean;
}

/** What a heartbeat needs: the reservation length, and how to find and extend jobs. */
export interface HeartbeatOptions<J extends WorkerJob> {
  retryAfterSeconds: number;
  /** Seconds between the end of one beat and the next. */
  everySeconds: number;
  /** Resolve after `ms`, or as soon as `signal` aborts. */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
  /** The attempts in flight, read at every beat. */
  jobs(): Iterable<HeartbeatJob<J>>;
  extend(job: J, untilUnixSeconds: number): Promise<boolean>;
  /** UNIX seconds. */
  now(): number;
  report(error: Error): void;
}

/** Extends the reservation of every in-flight job, once per beat. */
export class Heartbeat<J extends WorkerJob> {
  private readonly lost = new WeakSet<J>();
  private stopping: AbortController | undefined;
  private beating: Promise<void> | undefined;

  constructor(private readonly options: HeartbeatOptions<J>) {}

  /**
   * A worker's heartbeat, beating `heartbeat` seconds after the previous beat ended, when the worker has
   * one (`heartbeat` on, `retryAfter` known) and its queue can extend a reservation; else null.
   */
  static forWorker<J extends WorkerJob>(
    { heartbeat, retryAfter }: { heartbeat: number | false; retryAfter: number | null },
    queue: Pick<WorkerQueue<J>, 'extendReservation'>,
    worker: Pick<HeartbeatOptions<J>, 'sleep' | 'jobs' | 'now' | 'report'>,
  ): Heartbeat<J> | null {
    if (heartbeat === false || retryAfter === null || queue.extendReservation === undefined) return null;
    return new Heartbeat<J>({
      ...worker,
      retryAfterSeconds: retryAfter,
      everySeconds: heartbeat,
      extend: (job, until) => queue.extendReservation!(job, until),
    });
  }

  /** Beat every `everySeconds` until stop(). */
  start(): void {
    if (this.beating !== undefined) return;
    const stopping = (this.stopping = new AbortController());
    this.beating = this.run(stopping.signal);
  }

  /** Stop beating; resolves once a beat on its way has ended. */
  async stop(): Promise<void> {
    this.stopping?.abort();
    await this.beating;
    this.beating = undefined;
  }

  private async run(stopping: AbortSignal): Promise<void> {
    for (;;) {
      await this.options.sleep(this.options.everySeconds * 1000, stopping);
      if (stopping.aborted) return;
      await this.beat();
    }
  }

  /** Extend every in-flight job's reservation to now + retryAfter, once; the extensions go out together. */
  async beat(): Promise<void> {
    const until = this.options.now() + this.options.retryAfterSeconds;
    const extending: Promise<void>[] = [];
    for (const held of this.options.jobs()) {
      if (held.holdsReservation && !this.lost.has(held.job)) extending.push(this.extend(held, until));
    }
    await Promise.all(extending);
  }

  private async extend(held: HeartbeatJob<J>, until: number): Promise<void> {
    const { job } = held;
    try {
      if (await this.options.extend(job, until)) return;
      // Finished (deleted, released, failed) or timed out while the extension was on its way: not lost.
      if (!held.holdsReservation) return;
      // Migrated back (or deleted elsewhere): another worker may already run it; say so once.
      this.lost.add(job);
      this.options.report(
        new LarqError(`${job.resolveName()} (attempt ${job.attempts()}) is no longer reserved; it may run twice`),
      );
    } catch (e) {
      this.options.report(e instanceof Error ? e : new Error(String(e)));
    }
  }
}
