// A larq addition with no Laravel twin: while jobs run, push their reservations forward so a job that
// runs longer than `retry_after` is not migrated back to the queue and started a second time (§17.4).
// A timed-out job is never extended: it must stay reserved only until its expiry, as under Laravel.
//
// A job can finish while a beat is on its way: its delete removes the reservation, and the extension
// then finds nothing. That is not a lost reservation; only a job still held by its attempt after the
// extension failed is reported.
import { LarqError } from '../errors';
import type { WorkerJob } from '../jobs/contracts';

/** One in-flight job as the heartbeat sees it. */
export interface HeartbeatJob<J extends WorkerJob> {
  readonly job: J;
  /** Whether the attempt still holds the job: running, and neither deleted, released nor failed. */
  readonly holdsReservation: boolean;
}

/** What a heartbeat needs: the interval, the reservation length, and how to find and extend jobs. */
export interface HeartbeatOptions<J extends WorkerJob> {
  intervalSeconds: number;
  retryAfterSeconds: number;
  /** The attempts in flight, read at every beat. */
  jobs(): Iterable<HeartbeatJob<J>>;
  extend(job: J, untilUnixSeconds: number): Promise<boolean>;
  /** UNIX seconds. */
  now(): number;
  sleep(ms: number, signal: AbortSignal): Promise<void>;
  report(error: Error): void;
}

/** Extends the reservation of every in-flight job every `intervalSeconds` until stopped. */
export class Heartbeat<J extends WorkerJob> {
  private readonly controller = new AbortController();
  private readonly lost = new WeakSet<J>();
  private loop: Promise<void> | null = null;

  constructor(private readonly options: HeartbeatOptions<J>) {}

  /** Start beating; returns this. */
  start(): this {
    this.loop ??= this.run();
    return this;
  }

  /** Stop beating; resolves once a beat in progress has finished. */
  async stop(): Promise<void> {
    this.controller.abort();
    await this.loop;
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
      this.options.report(new LarqError(`${job.resolveName()} (attempt ${job.attempts()}) is no longer reserved; it may run twice`));
    } catch (e) {
      this.options.report(e instanceof Error ? e : new Error(String(e)));
    }
  }

  private async run(): Promise<void> {
    const { signal } = this.controller;
    while (!signal.aborted) {
      await this.options.sleep(this.options.intervalSeconds * 1000, signal).catch(() => undefined);
      if (signal.aborted) return;
      await this.beat();
    }
  }
}
