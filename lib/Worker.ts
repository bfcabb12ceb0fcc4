// The queue worker: Laravel's Worker (spec §10) with its retry, timeout and failure rules unchanged, so
// Redis and Laravel's tools see what a `php artisan queue:work` would have left behind.
//
// Concurrency: up to `concurrency` jobs run at once, each in a slot. A pass pops for at most half the
// free slots (never past `maxJobs`), runs the stop checks once a slot is free, and sleeps `sleep` when it
// found nothing. From concurrency 4, two such loops share the slots (see poll()). With concurrency 1 this
// is Laravel's loop exactly: pop, run, rest, stop checks, next.
//
// Timeouts (§10.8), the Node way: a job's limit is its payload `timeout`, else `options.timeout` (0 =
// none). When it expires larq does what Laravel's SIGALRM handler does (fail the job if this was its last
// try or exception, or if it has failOnTimeout; fire JobTimedOut) and aborts the handler's AbortSignal.
// The job is otherwise neither released nor deleted: it stays reserved until `retry_after`, then comes
// back with one more attempt, which is exactly what Redis shows after Laravel kills its worker. Node
// cannot pre-empt a promise, so instead of dying larq keeps working (or, with onTimeout 'stop', ends
// with status 1, reason `timed_out`, as Laravel's exit does) but keeps the slot occupied until the
// handler's promise really settles, so this process never runs more than `concurrency` handlers and never
// the same job twice at once. The attempt is over at the timeout: the handler's later delete/release
// calls are no-ops and it gets no JobProcessed/JobExceptionOccurred/JobAttempted, as Laravel's killed
// worker would never have sent them. Laravel's other alarm quirk, killing an idle worker whose `sleep`
// reaches `timeout`, is not reproduced, and `runNextJob` (`--once`) has no timeout, as in Laravel.
import { calculateBackoff } from './backoff';
import { type Clock, systemClock, unixSeconds } from './clock';
import { InvalidOptionError, LarqError, TimeoutExceededError } from './errors';
import { LaravelRelease, type LaravelVersion } from './LaravelLine';
import { type JobEvent, toError, TypedEmitter, type WorkerEvent, type WorkerEvents, type WorkerStopReason, type WorkerStopResult } from './events';
import type { FailedJobLogger, JobRunner, WorkerCache, WorkerJob, WorkerQueue } from './jobs/contracts';
import { alreadyExceedsMaxAttempts, failAsAlreadyExceeded, failIfWillExceedMaxAttempts, failIfWillExceedMaxExceptions, type AttemptContext } from './worker/attempts';
import { CacheSignals } from './worker/CacheSignals';
import { failJob } from './worker/fail';
import { Heartbeat } from './worker/heartbeat';
import { InFlight } from './worker/InFlight';
import { causedByLostConnection } from './worker/lostConnection';
import { listenForSignals } from './worker/signals';
import { heapMemoryUsage, timerSleep } from './worker/defaults';
import { Slots } from './worker/Slots';
import { resolveWorkerOptions, type WorkerOptions } from './WorkerOptions';

/** `queue:work` exit statuses (Laravel's EXIT_SUCCESS, EXIT_ERROR, EXIT_MEMORY_LIMIT). */
export const EXIT_SUCCESS = 0;
export const EXIT_ERROR = 1;
export const EXIT_MEMORY_LIMIT = 12;

/** What a Worker may be given besides its queue and runner; everything is optional. */
export interface WorkerDeps {
  /** Laravel's default cache store, any CacheStore: restart and pause signals, maxExceptions counters. */
  cache?: WorkerCache;
  /** Where failed jobs are recorded; without it they are not (like a worker with no JobFailed listener). */
  failer?: FailedJobLogger;
  /** The time source (FakeClock in specs). */
  clock?: Clock;
  /** Memory in use, in bytes, compared with `memory` megabytes; default: heapMemoryUsage (V8 heap + buffers). */
  memoryUsage?: () => number;
  /** Resolve after `ms`, or as soon as `signal` aborts; default: a timer. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Laravel's isDownForMaintenance: while true (and `force` is off) the daemon takes no jobs. */
  isDownForMaintenance?: () => boolean | Promise<boolean>;
  /** The PHP side's Laravel version: which cache signals exist (13.25+ global pause). Default 13; createWorker: the queue's. */
  laravel?: LaravelVersion | LaravelRelease;
}

const STATUS_BY_REASON: Partial<Record<WorkerStopReason, number>> = { memory: EXIT_MEMORY_LIMIT, timed_out: EXIT_ERROR };

/** Runs jobs from one queue connection with Laravel's worker semantics. */
export class Worker<J extends WorkerJob = WorkerJob> {
  /** The resolved options. */
  readonly options: Readonly<WorkerOptions>;
  private readonly events = new TypedEmitter<WorkerEvents<J>>();
  private readonly clock: Clock;
  private readonly sleepImpl: (ms: number, signal?: AbortSignal) => Promise<void>;
  private readonly attemptContext: AttemptContext<J>;
  private readonly slots: Slots<J>;
  private running = false;
  private paused = false;
  private shouldQuit = false;
  private quitReason: WorkerStopReason = 'interrupted';
  private lostConnection = false;
  private timedOutStop = false;
  private wake = new AbortController();
  private readonly cacheSignals: CacheSignals;
  private jobsProcessed = 0;
  private lastJobProcessedAt: number | null = null;
  private passes = 0;
  // The polling loop that started a batch in this turn of the event loop, if any (see takeTurnToStart).
  private startingBatch: number | null = null;
  private stopResult: WorkerStopResult | null = null;

  constructor(
    private readonly queue: WorkerQueue<J>,
    private readonly runner: JobRunner<J>,
    options: Partial<WorkerOptions> = {},
    private readonly deps: WorkerDeps = {},
  ) {
    this.options = resolveWorkerOptions(options);
    this.clock = deps.clock ?? systemClock;
    const sleep = deps.sleep ?? timerSleep;
    // A sleep that rejects must not leave a rejected promise behind in the slots or the loop.
    this.sleepImpl = (ms, signal) => sleep(ms, signal).catch((e: unknown) => this.report(e));
    this.slots = new Slots(this.options.concurrency);
    this.cacheSignals = new CacheSignals(deps.cache, (e) => this.report(e), LaravelRelease.of(deps.laravel ?? 13));
    this.attemptContext = { now: () => unixSeconds(this.clock), cache: deps.cache, fail: (job, e) => this.failJob(job, e) };
  }

  /** Listen to a worker event (see WorkerEvents). */
  on<K extends keyof WorkerEvents<J> & string>(name: K, listener: (event: WorkerEvents<J>[K]) => unknown): this {
    this.events.on(name, listener);
    return this;
  }

  /** Listen to the next occurrence of a worker event. */
  once<K extends keyof WorkerEvents<J> & string>(name: K, listener: (event: WorkerEvents<J>[K]) => unknown): this {
    this.events.once(name, listener);
    return this;
  }

  /** Stop listening. */
  off<K extends keyof WorkerEvents<J> & string>(name: K, listener: (event: WorkerEvents<J>[K]) => unknown): this {
    this.events.off(name, listener);
    return this;
  }

  /** Laravel's daemon (§10.2): work the queues (comma list or array, in priority order) until a stop condition. */
  async daemon(queues: string[] | string): Promise<WorkerStopResult> {
    const list = queueList(queues);
    this.begin();
    const removeSignals = this.options.handleSignals ? listenForSignals(this) : () => undefined;
    const heartbeat = this.startHeartbeat();
    try {
      await this.cacheSignals.start();
      const startedAt = this.clock.nowMs();
      this.events.emit('WorkerStarting', { ...this.where(list), options: this.options });
      this.stopResult = null;
      await Promise.all(Array.from({ length: this.options.concurrency >= 4 ? 2 : 1 }, (_, loop) => this.poll(list, startedAt, loop)));
      return await this.stopWorker(this.stopResult ?? { status: EXIT_SUCCESS, reason: 'interrupted' });
    } finally {
      removeSignals();
      await heartbeat?.stop();
      this.running = false;
    }
  }

  // One polling loop: Laravel's loop (§10.2) over the free slots. At concurrency 4 and up two of them
  // share the slots, so a second pop is on its way while the first one's jobs run and the round trip to
  // Redis is no longer the wait between batches. Slots a pop in flight will fill are held, so together
  // they never reserve more than `concurrency` jobs (nor past maxJobs). The first loop to meet a stop
  // condition records it and wakes the other, which then ends too.
  private async poll(list: readonly string[], startedAt: number, loop: number): Promise<void> {
    for (;;) {
      // null: every free slot was held by the other loop's pop, so this pass learned nothing about emptiness
      let found: boolean | null = false;
      try {
        if (await this.daemonShouldRun(list)) {
          const limit = this.popLimit();
          if (limit <= 0) found = null;
          else {
            this.slots.hold(limit);
            let jobs: J[];
            try {
              jobs = await this.getNextJob(list, limit);
              // still holding the slots: the other loop must not pop for them while this batch waits its turn
              if (jobs.length > 0) await this.takeTurnToStart(loop);
            } finally {
              this.slots.unhold(limit);
            }
            found = jobs.length > 0;
            for (const job of jobs) this.startJob(job);
            if (!found) {
              this.events.emit('WorkerIdle', { ...this.where(list), options: this.options });
              await this.sleep(this.options.sleep);
            }
          }
          await this.slots.waitForFree(this.wake.signal);
        } else {
          // pauseWorker: paused, down for maintenance; the stop checks below still run.
          await this.sleep(this.options.sleep > 0 ? this.options.sleep : 1);
        }
      } catch (e) {
        // Laravel would die here; larq reports and carries on after a breath.
        this.report(e);
        await this.sleep(1);
      }
      if (this.stopResult !== null) return;
      const stop = await this.stopIfNecessary(startedAt, found ?? true);
      if (this.stopResult !== null) return;
      if (stop !== null) {
        this.stopResult = stop;
        this.wake.abort(); // the other loop may be waiting for a slot or sleeping
        return;
      }
    }
  }

  // The two polling loops must take turns, or they fall into step: when both pops come back in one read,
  // both batches start in the same turn of the event loop, both free their slots in it (jobs that do not
  // wait for I/O finish there), both pops go out together, and Node waits while Redis works through both,
  // then Redis waits while Node runs both. A trace at concurrency 50 showed exactly that: every pop sent
  // within microseconds of the other loop's. So a batch that arrives while the other loop's batch is
  // starting in this turn starts in the next one: the first loop's next pop is then on its way while the
  // second batch runs, and the loops stay half a cycle apart.
  private async takeTurnToStart(loop: number): Promise<void> {
    if (this.startingBatch !== null && this.startingBatch !== loop) await new Promise<void>((resolve) => setImmediate(resolve));
    if (this.startingBatch === null) setImmediate(() => (this.startingBatch = null));
    this.startingBatch = loop;
  }

  /** Laravel's runNextJob (`--once`, §10.3): pop one job and run it to the end; no timeout, no stop checks. */
  async runNextJob(queues: string[] | string): Promise<J | null> {
    const list = queueList(queues);
    this.begin();
    try {
      if (!this.options.force && (await this.isDownForMaintenance())) {
        await this.sleep(this.options.sleep);
        return null;
      }
      const [job] = await this.getNextJob(list, 1);
      if (job === undefined) {
        await this.sleep(this.options.sleep);
        return null;
      }
      const flight = new InFlight(job, false); // --once has no timeout, as in Laravel
      await this.process(flight).catch((e: unknown) => this.reportJobException(flight, e));
      return job;
    } finally {
      this.running = false;
    }
  }

  /** Ask the daemon to stop after the jobs in flight (what SIGTERM does); status 0 unless the reason says otherwise. */
  stop(reason: WorkerStopReason = 'interrupted'): void {
    this.shouldQuit = true;
    this.quitReason = reason;
    this.wake.abort();
  }

  /** Take no new jobs until resume() (SIGUSR2). */
  pause(): void {
    this.paused = true;
  }

  /** Take jobs again (SIGCONT). */
  resume(): void {
    this.paused = false;
  }

  /**
   * Laravel's Job::fail (§9.2): mark failed; unless already deleted, delete the reservation, call the
   * runner's failed hook (its errors are reported, not fatal), fire JobFailed, then record the failure.
   */
  async failJob(job: J, error?: Error): Promise<void> {
    await failJob(job, error, this.runner, this.deps.failer, {
      jobFailed: (failed, exception) => this.events.emit('JobFailed', { connectionName: failed.getConnectionName(), job: failed, exception }),
      report: (e) => this.report(e),
    });
  }

  private begin(): void {
    if (this.running) throw new LarqError('this worker is already running');
    this.running = true;
    this.shouldQuit = this.lostConnection = this.timedOutStop = false;
    this.wake = new AbortController();
    this.jobsProcessed = 0;
    this.lastJobProcessedAt = null;
  }

  private async daemonShouldRun(list: readonly string[]): Promise<boolean> {
    if (!this.options.force && (await this.isDownForMaintenance())) return false;
    if (this.paused) return false;
    this.events.emit('Looping', this.where(list));
    return true;
  }

  // Laravel's getNextJob (§10.4), for up to `limit` jobs: the first queue (strict priority, or rotated)
  // that is not paused and yields anything wins the pass. Failures are reported, never thrown.
  private async getNextJob(list: readonly string[], limit: number): Promise<J[]> {
    try {
      this.events.emit('JobPopping', this.where(list));
      for (const [index, name] of this.passOrder(list).entries()) {
        if (await this.cacheSignals.isPaused(this.queue.connectionName, name)) continue;
        // popMany even for one job: its migrations and pop travel in one round trip instead of three.
        const jobs = this.queue.popMany
          ? await this.queue.popMany(name, index, limit, (e) => this.reportAndCheckConnection(e))
          : nonNull(await this.queue.pop(name, index));
        if (jobs.length === 0) continue;
        if (this.listens('JobPopped')) for (const job of jobs) this.events.emit('JobPopped', this.jobEvent(job));
        return jobs;
      }
      return [];
    } catch (e) {
      this.reportAndCheckConnection(e);
      await this.sleep(1);
      return [];
    }
  }

  private startJob(job: J): void {
    this.jobsProcessed++;
    const limit = this.timeoutFor(job);
    // From concurrency 2, a slot is free once the handler has settled, even if the job's final delete is
    // still waiting for Redis' reply (the runner hands that over through settleLater): the next pop goes
    // out on the same connection after that ZREM, so Redis never holds more than `concurrency` reserved
    // jobs, and the attempt still ends (JobProcessed, or the exception path) only when the reply is in.
    // One job at a time keeps Laravel's loop: the next pop waits for the delete.
    const deferTail = this.options.concurrency > 1;
    const flight = new InFlight(job, limit > 0, deferTail);
    let settled: (() => void) | undefined;
    const freed = deferTail ? new Promise<void>((resolve) => (settled = resolve)) : undefined;
    const handled = this.process(flight, settled).catch((e: unknown) => this.reportJobException(flight, e));
    if (settled) void handled.then(settled);
    const done = (freed ?? handled).then(() => {
      this.lastJobProcessedAt = unixSeconds(this.clock);
      return this.options.rest > 0 ? this.sleep(this.options.rest) : undefined;
    });
    const over = flight.overWithin(handled, limit, this.sleepImpl, () => this.timeoutJob(flight, limit));
    this.slots.add({ flight, done, over });
  }

  // Laravel arms its alarm per job: the payload timeout, else the option; 0 (or less) disables it.
  private timeoutFor(job: J): number {
    try {
      return Math.max(job.timeout() ?? this.options.timeout, 0);
    } catch (e) {
      this.report(e); // an unreadable payload: process() will report it properly; fall back to the option
      return this.options.timeout;
    }
  }

  // Laravel's process (§10.9): JobProcessing, the already-exceeded check, the run, JobProcessed;
  // exceptions go through handleJobException (which rethrows); JobAttempted always comes last.
  // `handlerSettled`, when given, is called as soon as the runner has returned: the slot may take the next
  // job while the attempt waits for the tail the runner handed over.
  private async process(flight: InFlight<J>, handlerSettled?: () => void): Promise<void> {
    const { job } = flight;
    let exception: Error | null = null;
    try {
      if (this.listens('JobProcessing')) this.events.emit('JobProcessing', this.jobEvent(job));
      if (alreadyExceedsMaxAttempts(this.attemptContext, job, this.options.maxTries)) await failAsAlreadyExceeded(this.attemptContext, job);
      // A JobProcessing listener may have deleted the job: it then counts as processed, unrun.
      if (!job.isDeleted()) await this.runner.run(flight.guarded, flight);
      if (flight.tail !== undefined) {
        handlerSettled?.();
        await flight.tail;
      }
      if (!flight.finish()) return;
      if (this.listens('JobProcessed')) this.events.emit('JobProcessed', this.jobEvent(job));
      if (job.isReleased() && !job.isDeleted() && this.listens('JobReleased')) this.events.emit('JobReleased', this.jobEvent(job));
    } catch (e) {
      exception = toError(e);
      if (!flight.finish()) throw exception;
      await this.handleJobException(job, exception);
    } finally {
      if (flight.state !== 'timedOut' && this.listens('JobAttempted')) this.events.emit('JobAttempted', { ...this.jobEvent(job), exception });
    }
  }

  // Laravel's handleJobException (§10.10): fail if this was the last try or exception, fire
  // JobExceptionOccurred, and release with backoff whatever was neither failed nor settled by the job.
  private async handleJobException(job: J, error: Error): Promise<never> {
    try {
      if (!job.hasFailed()) {
        await failIfWillExceedMaxAttempts(this.attemptContext, job, this.options.maxTries, error);
        await failIfWillExceedMaxExceptions(this.attemptContext, job, error);
      }
      this.events.emit('JobExceptionOccurred', { ...this.jobEvent(job), exception: error });
    } finally {
      if (!job.isDeleted() && !job.isReleased() && !job.hasFailed()) {
        const backoff = calculateBackoff(job.backoff(), this.options.backoff, job.attempts());
        await job.release(backoff);
        this.events.emit('JobReleasedAfterException', { ...this.jobEvent(job), backoff, exception: error });
      }
    }
    throw error;
  }

  // What Laravel's SIGALRM handler does before it kills the worker (§10.8); see the header for the rest.
  private async timeoutJob(flight: InFlight<J>, limit: number): Promise<void> {
    if (!flight.timeOut()) return;
    const { job } = flight;
    const error = new TimeoutExceededError(job);
    flight.abort(error);
    try {
      await failIfWillExceedMaxAttempts(this.attemptContext, job, this.options.maxTries, error);
      await failIfWillExceedMaxExceptions(this.attemptContext, job, error);
      if (job.shouldFailOnTimeout()) await this.failJob(job, error);
    } catch (e) {
      this.report(e);
    }
    this.events.emit('JobTimedOut', { ...this.jobEvent(job), timeout: limit });
    this.report(error);
    if (this.options.onTimeout === 'stop') {
      this.timedOutStop = true;
      this.wake.abort();
    }
  }

  // Laravel's stopIfNecessary (§10.14), in its order; a timeout stop comes first, as Laravel's is immediate.
  private async stopIfNecessary(startedAt: number, found: boolean): Promise<WorkerStopResult | null> {
    if (this.timedOutStop) return { status: EXIT_ERROR, reason: 'timed_out' };
    if (this.lostConnection) return { status: EXIT_SUCCESS, reason: 'lost_connection' };
    if (this.shouldQuit) return { status: STATUS_BY_REASON[this.quitReason] ?? EXIT_SUCCESS, reason: this.quitReason };
    if (this.memoryExceeded()) return { status: EXIT_MEMORY_LIMIT, reason: 'memory' };
    if (await this.cacheSignals.shouldRestart()) return { status: EXIT_SUCCESS, reason: 'restart_signal' };
    if (this.options.stopWhenEmpty && !found) return { status: EXIT_SUCCESS, reason: 'empty' };
    if (this.options.maxTime > 0 && (this.clock.nowMs() - startedAt) / 1000 >= this.options.maxTime) return { status: EXIT_SUCCESS, reason: 'max_time' };
    if (this.options.maxJobs > 0 && this.jobsProcessed >= this.options.maxJobs) return { status: EXIT_SUCCESS, reason: 'max_jobs' };
    return null;
  }

  private async stopWorker(result: WorkerStopResult): Promise<WorkerStopResult> {
    // Let the jobs in flight finish (a timed-out one is over already), within shutdownGraceSeconds.
    await this.slots.drain(this.options.shutdownGraceSeconds, this.sleepImpl);
    this.events.emit('WorkerStopping', {
      ...result,
      options: this.options,
      jobsProcessed: this.jobsProcessed,
      lastJobProcessedAt: this.lastJobProcessedAt,
      memoryUsage: this.memoryUsage(),
    });
    return result;
  }

  // Free slots, at most half of them, and never more than maxJobs still allows (maxJobs counts started
  // jobs and the slots held for pops in flight). The other half stays for the next pass or the other
  // loop, so Redis reserves one batch while another runs.
  private popLimit(): number {
    const free = Math.min(this.slots.free, Math.ceil(this.slots.size / 2));
    return this.options.maxJobs > 0 ? Math.max(0, Math.min(free, this.options.maxJobs - this.jobsProcessed - this.slots.held)) : free;
  }

  private passOrder(list: readonly string[]): readonly string[] {
    if (!this.options.rotateQueues || list.length < 2) return list;
    const start = this.passes++ % list.length;
    return [...list.slice(start), ...list.slice(0, start)];
  }

  // 12.54+: `memory` 0 disables the check (earlier versions always stopped).
  private memoryExceeded(): boolean {
    return this.options.memory > 0 && this.memoryUsage() / 1024 / 1024 >= this.options.memory;
  }

  private memoryUsage(): number {
    return (this.deps.memoryUsage ?? heapMemoryUsage)();
  }

  private async isDownForMaintenance(): Promise<boolean> {
    return this.deps.isDownForMaintenance ? await this.deps.isDownForMaintenance() : false;
  }

  private startHeartbeat(): Heartbeat<J> | null {
    const { heartbeat, retryAfter } = this.options;
    const queue = this.queue;
    if (heartbeat === false || retryAfter === null || queue.extendReservation === undefined) return null;
    return new Heartbeat<J>({
      intervalSeconds: heartbeat,
      retryAfterSeconds: retryAfter,
      jobs: () => this.slots.runningJobs(),
      extend: (job, until) => queue.extendReservation!(job, until),
      now: () => unixSeconds(this.clock),
      sleep: this.sleepImpl,
      report: (e) => this.report(e),
    }).start();
  }

  // runJob's catch: report the exception and stop on a lost connection. After a timeout the handler's
  // reaction to the abort is expected noise; anything else it throws late is still reported.
  private reportJobException(flight: InFlight<J>, thrown: unknown): void {
    const error = toError(thrown);
    if (flight.state === 'timedOut' && (error === flight.abortReason || error.name === 'AbortError')) return;
    this.reportAndCheckConnection(error);
  }

  private reportAndCheckConnection(thrown: unknown): void {
    const error = toError(thrown);
    this.report(error);
    if (causedByLostConnection(error)) {
      this.lostConnection = true;
      this.wake.abort();
    }
  }

  private report(thrown: unknown): void {
    this.events.emit('error', toError(thrown));
  }

  // Interruptible by stop(), so a stopping worker never sits out a `sleep` or `rest`.
  private async sleep(seconds: number): Promise<void> {
    if (seconds > 0 && !this.wake.signal.aborted) await this.sleepImpl(seconds * 1000, this.wake.signal);
  }

  private where(list: readonly string[]): WorkerEvent {
    return { connectionName: this.queue.connectionName, queue: list.join(',') };
  }

  // The per-job events are built only when someone listens: at thousands of jobs a second, event objects
  // nobody reads are garbage the collector has to sweep.
  private listens(name: keyof WorkerEvents<J> & string): boolean {
    return this.events.listenerCount(name) > 0;
  }

  private jobEvent(job: J): JobEvent<J> {
    return { connectionName: this.queue.connectionName, job };
  }
}

// Laravel splits `--queue` on commas without trimming; an array is taken as given.
function queueList(queues: string[] | string): string[] {
  const list = typeof queues === 'string' ? queues.split(',') : [...queues];
  if (list.length === 0) throw new InvalidOptionError('queues', 'must name at least one queue');
  return list;
}

function nonNull<T>(value: T | null): T[] {
  return value === null ? [] : [value];
}

