// The daemon's stop and pause state, and the checks that read it: what Laravel's Worker keeps in
// `shouldQuit` and `paused`, set by its signal handlers (Worker::listenForSignals) and by the worker's own
// rules (a timeout, a lost connection), and read by Worker::daemonShouldRun before every pass and by
// Worker::stopIfNecessary (13.x) after it.
import type { Clock } from '../clock';
import type { WorkerStopReason, WorkerStopResult } from '../events';
import type { WorkerOptions } from '../WorkerOptions';
import { causedByLostConnection } from './lostConnection';
import { listenForSignals, type SignalTarget } from './processSignals';
import { RecentRead } from './RecentRead';

/** `queue:work` exit statuses (Laravel's EXIT_SUCCESS, EXIT_ERROR, EXIT_MEMORY_LIMIT). */
export const EXIT_SUCCESS = 0;
export const EXIT_ERROR = 1;
export const EXIT_MEMORY_LIMIT = 12;

const STATUS_BY_REASON: Partial<Record<WorkerStopReason, number>> = {
  memory: EXIT_MEMORY_LIMIT,
  timed_out: EXIT_ERROR,
};

/** What the checks read besides their own state. */
export interface StopCheckSources {
  clock: Clock;
  /** Bytes in use, as the `memory` option means it. */
  memoryUsage(): number;
  /** Whether `queue:restart` ran since the worker started. */
  shouldRestart(): Promise<boolean>;
  /** Laravel's isDownForMaintenance; absent: never down. */
  isDownForMaintenance?: () => boolean | Promise<boolean>;
}

/** One worker's stop and pause state, from start() (the daemon starting) to stop(). */
export class StopChecks {
  private paused = false;
  private quitReason: WorkerStopReason | null = null;
  private lostConnection = false;
  private timedOut = false;
  private stopping = new AbortController();
  private startedAtMs = 0;
  private removeSignals: () => void = () => undefined;
  // The daemon's maintenance reads, taken ahead of its passes within the README's bound (RecentRead): a
  // `php artisan down` is seen at most PREFETCH_FRESH_MS later than Laravel's loop would see it, and a
  // worker running short jobs back to back does not stat the file (or GET the cache key) before each one.
  private readonly maintenance = new RecentRead<boolean>();

  constructor(
    private readonly options: Readonly<WorkerOptions>,
    private readonly sources: StopCheckSources,
  ) {}

  /** Aborted once the worker must stop: cuts short its sleeps and its wait for a free slot. */
  get signal(): AbortSignal {
    return this.stopping.signal;
  }

  /** A run begins: forget the previous run's stop; with `signals`, listen for TERM, INT, USR2... until stop(). */
  start(signals?: SignalTarget): void {
    this.quitReason = null;
    this.lostConnection = this.timedOut = false;
    this.stopping = new AbortController();
    this.startedAtMs = this.sources.clock.nowMs();
    this.maintenance.clear();
    if (signals !== undefined && this.options.handleSignals) this.removeSignals = listenForSignals(signals);
  }

  /** The run ended: stop listening for signals. */
  stop(): void {
    this.removeSignals();
    this.removeSignals = () => undefined;
  }

  /** Stop after the jobs in flight (Laravel's `shouldQuit`, SIGTERM). */
  quit(reason: WorkerStopReason): void {
    this.quitReason = reason;
    this.stopping.abort();
  }

  /** Take no new jobs until resume(). */
  pause(): void {
    this.paused = true;
  }

  /** Take jobs again. */
  resume(): void {
    this.paused = false;
  }

  /** Laravel's Worker::stopWorkerIfLostConnection: when `error` says the connection is gone, stop with status 1. */
  stopWorkerIfLostConnection(error: Error): void {
    if (!causedByLostConnection(error)) return;
    this.lostConnection = true;
    this.stopping.abort();
  }

  /** Laravel's Worker::daemonShouldRun, but for its Looping veto: neither down for maintenance (unless `force`) nor paused. */
  async daemonShouldRun(): Promise<boolean> {
    const down = this.sources.isDownForMaintenance;
    if (!this.options.force && down !== undefined)
      if (await this.maintenance.take(this.sources.clock.nowMs(), async () => await down())) return false;
    return !this.paused;
  }

  /** Laravel's isDownForMaintenance; false when the worker was given none. */
  async isDownForMaintenance(): Promise<boolean> {
    return this.sources.isDownForMaintenance ? await this.sources.isDownForMaintenance() : false;
  }

  /** Laravel's Worker::memoryExceeded; 12.54+: `memory` 0 disables the check (earlier versions always stopped). */
  memoryExceeded(): boolean {
    return this.options.memory > 0 && this.sources.memoryUsage() / 1024 / 1024 >= this.options.memory;
  }

  /** A timeout (onTimeout 'stop') or a hung handler (onHungHandler 'stop') ends the worker with status 1. */
  timeoutStop(): void {
    this.timedOut = true;
    this.stopping.abort();
  }

  /**
   * Laravel's Worker::stopIfNecessary, in its order; a timeout stop comes first, as Laravel's is
   * immediate. `found`: whether the last pass found jobs; `jobsProcessed`: jobs started in this run.
   */
  async check(found: boolean, jobsProcessed: number): Promise<WorkerStopResult | null> {
    const { stopWhenEmpty, maxTime, maxJobs } = this.options;
    if (this.timedOut) return { status: EXIT_ERROR, reason: 'timed_out' };
    // Laravel exits 0 here; larq exits 1, so a supervisor that restarts only on failure (systemd's
    // Restart=on-failure) brings back a worker whose Redis client gave up reconnecting.
    if (this.lostConnection) return { status: EXIT_ERROR, reason: 'lost_connection' };
    if (this.quitReason !== null)
      return { status: STATUS_BY_REASON[this.quitReason] ?? EXIT_SUCCESS, reason: this.quitReason };
    if (this.memoryExceeded()) return { status: EXIT_MEMORY_LIMIT, reason: 'memory' };
    if (await this.sources.shouldRestart()) return { status: EXIT_SUCCESS, reason: 'restart_signal' };
    if (stopWhenEmpty && !found) return { status: EXIT_SUCCESS, reason: 'empty' };
    if (maxTime > 0 && (this.sources.clock.nowMs() - this.startedAtMs) / 1000 >= maxTime)
      return { status: EXIT_SUCCESS, reason: 'max_time' };
    if (maxJobs > 0 && jobsProcessed >= maxJobs) return { status: EXIT_SUCCESS, reason: 'max_jobs' };
    return null;
  }

  /**
   * The result the worker ends with once it drained: a handler that hung (or timed out with onTimeout
   * 'stop') while it drained ends it as if that came first, status 1, whatever stop began the drain.
   */
  finalResult(result: WorkerStopResult): WorkerStopResult {
    return this.timedOut ? { status: EXIT_ERROR, reason: 'timed_out' } : result;
  }
}
