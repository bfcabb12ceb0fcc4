// The queue worker: Laravel's Worker (13.x) with its retry, timeout and failure rules unchanged, so Redis
// and Laravel's tools see what a `php artisan queue:work` would have left behind.
//
// One loop, shaped like Laravel's Worker::daemon: should the daemon run (paused, down for maintenance)?
// get the next jobs, as many as there are free slots; start each; wait for a free slot, at most until the
// next stop check; stopIfNecessary. Concurrency is a semaphore of `concurrency` slots (worker/Slots); with
// concurrency 1 this is Laravel's loop: pop, run, stop checks, next.
//
// Each job runs as an Attempt (worker/Attempt): reserved -> running -> processed, released, failed or
// timed out, each reached once; every side effect of the attempt is fenced, and once it is over, whatever
// the handler does late is refused and reported.
//
// Timeouts (worker/JobTimeouts): when a job's timeout expires the worker does what Laravel's timeout
// handler does before it kills the worker, and leaves the job reserved; a handler still running
// `timeoutGraceSeconds` later is hung, and by default ends the worker with status 1 (worker/TimeoutHandler).
//
// The stop, pause and maintenance checks take the newest read that answered (worker/RecentRead), never one
// started more than PREFETCH_FRESH_MS before: a `queue:restart`, `queue:pause` or `down` may be seen that much
// later than Laravel's loop would see it, so the jobs started meanwhile still run. In exchange a check
// rarely waits for Redis, and the next pop leaves with the last job's acknowledgement at once.
import { type Clock, systemClock, unixSeconds } from './clock';
import { AttemptOverError, JobAlreadyRunningError, LarqError } from './errors';
import { LaravelRelease } from './LaravelLine';
import { toError, type WorkerEvents, type WorkerStopReason, type WorkerStopResult } from './events';
import type { AttemptAction, JobRunner, WorkerJob, WorkerQueue } from './jobs/contracts';
import { Attempt, attemptOf } from './worker/Attempt';
import { CacheSignals } from './worker/CacheSignals';
import { DaemonEvents } from './worker/DaemonEvents';
import { heapMemoryUsage, timerSleep } from './worker/defaults';
import { failJob, FailureRecorder } from './worker/fail';
import { handleJobException, type JobExceptionDeps } from './worker/handleJobException';
import { Heartbeat } from './worker/heartbeat';
import { JobTimeouts, timeoutForJob } from './worker/JobTimeouts';
import { alreadyExceedsMaxAttempts, failAsAlreadyExceeded, type AttemptContext } from './worker/maxAttempts';
import { NextJobs, where } from './worker/NextJobs';
import { payloadSize, PopBudget } from './worker/PopBudget';
import { RunningJobs } from './worker/RunningJobs';
import { Slots } from './worker/Slots';
import { StopChecks } from './worker/StopChecks';
import { TimeoutHandler } from './worker/TimeoutHandler';
import { queueList, resolveWorkerOptions, type WorkerDeps, type WorkerOptions } from './WorkerOptions';

export type { WorkerDeps } from './WorkerOptions';

export { EXIT_ERROR, EXIT_MEMORY_LIMIT, EXIT_SUCCESS } from './worker/StopChecks';

/** Seconds between stop checks while every slot is busy. */
export const STOP_CHECK_SECONDS = 1;

/** Runs jobs from one queue connection with Laravel's worker semantics. */
export class Worker<J extends WorkerJob = WorkerJob> {
  /** The resolved options. */
  readonly options: Readonly<WorkerOptions>;
  private readonly events: DaemonEvents<J>;
  private readonly clock: Clock;
  private readonly sleepImpl: (ms: number, signal?: AbortSignal) => Promise<void>;
  private readonly attemptContext: AttemptContext<J>;
  private readonly exceptionRules: JobExceptionDeps<J>;
  private readonly slots: Slots<J>;
  private readonly timeouts: JobTimeouts<J>;
  private readonly heartbeat: Heartbeat<J> | null;
  private readonly popBudget: PopBudget;
  private readonly recorder: FailureRecorder;
  private readonly cacheSignals: CacheSignals;
  private readonly nextJobs: NextJobs<J>;
  private readonly runningJobs = new RunningJobs<J>();
  private running = false;
  private stopCheckTimer: { cancel: AbortController } | null = null;
  private readonly stops: StopChecks;
  private jobsProcessed = 0;
  private lastJobProcessedAt: number | null = null;
  private readonly refused = (attempt: Attempt<J>, action: AttemptAction): void => this.refuse(attempt, action);

  constructor(
    private readonly queue: WorkerQueue<J>,
    private readonly runner: JobRunner<J>,
    options: Partial<WorkerOptions> = {},
    private readonly deps: WorkerDeps = {},
  ) {
    this.options = resolveWorkerOptions(options);
    this.events = new DaemonEvents(queue);
    this.clock = deps.clock ?? systemClock;
    const sleep = deps.sleep ?? timerSleep;
    // A sleep that rejects must not leave a rejected promise behind in the duties or the loop.
    this.sleepImpl = (ms, signal) => sleep(ms, signal).catch((e: unknown) => this.events.report(e));
    this.slots = new Slots(this.options.concurrency);
    this.popBudget = new PopBudget(this.options.memory * 1024 * 1024, () => this.memoryUsage());
    this.recorder = new FailureRecorder(deps.failer, () => this.clock.nowMs());
    const laravel = LaravelRelease.of(deps.laravel ?? 13);
    this.cacheSignals = new CacheSignals(deps.cache, (e) => this.events.report(e), {
      laravel,
      clock: this.clock,
      readAhead: true,
    });
    this.stops = new StopChecks(this.options, {
      clock: this.clock,
      memoryUsage: () => this.memoryUsage(),
      shouldRestart: () => this.cacheSignals.shouldRestart(),
      isDownForMaintenance: deps.isDownForMaintenance,
    });
    this.nextJobs = new NextJobs({
      queue,
      events: this.events,
      cacheSignals: this.cacheSignals,
      rotateQueues: this.options.rotateQueues,
      report: (e) => this.reportAndCheckConnection(e),
      sleep: (seconds) => this.sleep(seconds),
    });
    this.attemptContext = {
      now: () => unixSeconds(this.clock),
      cache: deps.cache,
      fail: (job, e) => this.failJobByRule(job, e),
    };
    this.exceptionRules = { options: this.options, rules: this.attemptContext, events: this.events };
    const onTimeout = new TimeoutHandler({
      ...this.exceptionRules,
      stops: this.stops,
      finishIfDone: (attempt) => this.finishIfDone(attempt),
    });
    this.timeouts = new JobTimeouts(this.clock, this.sleepImpl, this.options.timeoutGraceSeconds, onTimeout);
    this.heartbeat = Heartbeat.forWorker(this.options, queue, {
      sleep: this.sleepImpl,
      jobs: () => this.slots.attempts(),
      now: () => unixSeconds(this.clock),
      report: (e) => this.events.report(e),
    });
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

  /** Laravel's Worker::daemon: work the queues (comma list or array, in priority order) until a stop condition. */
  async daemon(queues: string[] | string): Promise<WorkerStopResult> {
    const list = queueList(queues);
    this.begin({ listenForSignals: true });
    this.timeouts.start();
    this.heartbeat?.start();
    try {
      await this.cacheSignals.start();
      this.events.emit('WorkerStarting', { ...where(this.queue, list), options: this.options });
      for (;;) {
        let found = true;
        try {
          found = await this.runNextJobs(list);
        } catch (e) {
          // Laravel would die here; larq reports and carries on after a breath.
          this.events.report(e);
          await this.sleep(1);
        }
        // The stop check's restart read and the next pass's pause reads, in one round trip.
        this.cacheSignals.prefetch(this.queue.connectionName, list);
        const stop = await this.stops.check(found, this.jobsProcessed);
        if (stop !== null) return await this.stopWorker(stop);
      }
    } finally {
      this.stops.stop();
      this.stopCheckTimer?.cancel.abort();
      this.stopCheckTimer = null;
      await this.heartbeat?.stop();
      await this.timeouts.stop();
      this.cacheSignals.dropPrefetched();
      this.running = false;
    }
  }

  // One pass of the daemon's loop. When a slot is free: unless paused or down (Laravel's pauseWorker:
  // sleep), pop for the free slots and start what came back, or sleep `sleep` when nothing came
  // (WorkerIdle). Then wait for a free slot, at most until the next stop check. Whether it found jobs
  // (true when it could take none).
  private async runNextJobs(list: readonly string[]): Promise<boolean> {
    let found = true;
    let limit = 0;
    if (this.slots.free > 0) {
      if (!(await this.stops.daemonShouldRun())) {
        await this.sleep(this.options.sleep > 0 ? this.options.sleep : 1);
        return false;
      }
      if (this.events.listens('Looping')) this.events.emit('Looping', where(this.queue, list));
      limit = this.popLimit();
      if (limit > 0) {
        const jobs = await this.nextJobs.pop(list, limit);
        if (jobs.length > 0) this.popBudget.record(jobs.map(payloadSize));
        for (const job of jobs) if (!this.alreadyRunning(job)) this.runJob(job);
        found = jobs.length > 0;
        if (!found) {
          if (this.events.listens('WorkerIdle'))
            this.events.emit('WorkerIdle', { ...where(this.queue, list), options: this.options });
          await this.sleep(this.options.sleep);
        }
      }
    }
    // Nothing could be taken (every slot busy, maxJobs, the memory left): wait for the next slot to free.
    await this.waitForFreeSlot(limit <= 0);
    return found;
  }

  // Wait for a free slot (`anyVacancy`: for the next slot to free, even if one is free), at most until the
  // next stop check: the stop checks run at least every STOP_CHECK_SECONDS while every slot is busy, so a
  // stuck handler never holds them off. One timer serves every pass until it fires, and it wakes the wait
  // through Slots rather than racing it: a race per pass against a promise that lives a second kept every
  // pass's reaction alive that long (a timer, an AbortController and its abort per pass cost a job at
  // concurrency 1 about a tenth of its CPU).
  private async waitForFreeSlot(anyVacancy: boolean): Promise<void> {
    const stopping = this.stops.signal;
    if (stopping.aborted || (this.slots.free > 0 && !anyVacancy)) return;
    this.armStopCheck(stopping);
    await this.slots.nextVacancy();
  }

  // Wake the wait for a slot when the next stop check is due (STOP_CHECK_SECONDS after it was armed) or at
  // a stop, unless this timer is armed already.
  private armStopCheck(stopping: AbortSignal): void {
    if (this.stopCheckTimer !== null) return;
    const cancel = new AbortController();
    const onStop = (): void => cancel.abort();
    stopping.addEventListener('abort', onStop, { once: true });
    const timer = { cancel };
    this.stopCheckTimer = timer;
    void this.sleepImpl(STOP_CHECK_SECONDS * 1000, cancel.signal).then(() => {
      stopping.removeEventListener('abort', onStop);
      if (this.stopCheckTimer === timer) this.stopCheckTimer = null;
      this.slots.wake();
    });
  }

  /** Laravel's Worker::runNextJob (`--once`): pop one job and run it to the end; no timeout, no stop checks. */
  async runNextJob(queues: string[] | string): Promise<J | null> {
    const list = queueList(queues);
    this.begin();
    try {
      if (!this.options.force && (await this.stops.isDownForMaintenance())) {
        await this.sleep(this.options.sleep);
        return null;
      }
      const [job] = await this.nextJobs.pop(list, 1);
      if (job === undefined) {
        await this.sleep(this.options.sleep);
        return null;
      }
      const attempt = new Attempt(job, this.refused);
      await this.process(attempt).catch((e: unknown) => this.reportJobException(attempt, e));
      return job;
    } finally {
      this.running = false;
    }
  }

  /** Ask the daemon to stop after the jobs in flight (what SIGTERM does); status 0 unless the reason says otherwise. */
  stop(reason: WorkerStopReason = 'interrupted'): void {
    this.stops.quit(reason);
  }

  /** Take no new jobs until resume() (SIGUSR2). */
  pause(): void {
    this.stops.pause();
  }

  /** Take jobs again (SIGCONT). */
  resume(): void {
    this.stops.resume();
  }

  /**
   * Laravel's Job::fail, as a handler calls it: mark failed; unless already failed or deleted, record the
   * failure, delete the reservation once it is recorded (see worker/fail), call the runner's failed hook
   * (its errors are reported, not fatal), fire JobFailed. For a job whose attempt is over, nothing
   * happens: the refusal is reported (JobActionRefused).
   */
  async failJob(job: J, error?: Error): Promise<void> {
    const attempt = attemptOf(job);
    if (attempt !== undefined && !attempt.allows('fail')) return;
    await this.failJobByRule(attempt?.job ?? job, error);
  }

  // Laravel's Worker::failJob: the worker's own rules (max attempts, max exceptions, the timeout) fail the
  // job as part of the attempt's end, so never through the fence.
  private async failJobByRule(job: J, error?: Error): Promise<void> {
    await failJob(job, error, this.runner, this.recorder, {
      jobFailed: (failed, exception) =>
        this.events.emit('JobFailed', { connectionName: failed.getConnectionName(), job: failed, exception }),
      report: (e) => this.events.report(e),
    });
  }

  private begin(options: { listenForSignals?: boolean } = {}): void {
    if (this.running) throw new LarqError('this worker is already running');
    this.running = true;
    this.stops.start(options.listenForSignals ? this : undefined);
    this.jobsProcessed = 0;
    this.lastJobProcessedAt = null;
  }

  // A job whose earlier attempt still runs here (worker/RunningJobs) is not started. Its new reservation is
  // left as it is, as a second Laravel worker that died right after its pop would leave it: it comes back
  // after retry_after with this attempt counted.
  private alreadyRunning(job: J): boolean {
    if (!this.runningJobs.has(job)) return false;
    this.events.emit('JobAlreadyRunning', this.events.jobEvent(job));
    this.events.report(new JobAlreadyRunningError(job));
    return true;
  }

  // Laravel's Worker::runJob: one attempt in a slot, watched for its timeout. The runner may hand its
  // final delete over (deferFinalDelete) instead of awaiting it: the slot is then free at once, and the
  // next pop goes out on the same connection after that ZREM, so Redis never holds more than
  // `concurrency` reserved jobs; the attempt still ends (JobProcessed, or the exception path) only when
  // Redis has answered.
  private runJob(job: J): void {
    this.jobsProcessed++;
    const attempt = new Attempt(job, this.refused, { mayDeferFinalDelete: true });
    const key = this.runningJobs.add(attempt);
    this.slots.occupy(attempt);
    this.timeouts.trackJob(attempt, timeoutForJob(job, this.options.timeout, this.events));
    let vacated = false;
    const handlerDone = (): void => {
      if (vacated) return;
      vacated = true;
      this.timeouts.untrackJob(attempt);
      this.runningJobs.delete(key, attempt);
      this.lastJobProcessedAt = unixSeconds(this.clock);
      if (this.options.rest > 0) void this.sleep(this.options.rest).then(() => this.slots.vacate(attempt));
      else this.slots.vacate(attempt);
    };
    void this.process(attempt, handlerDone)
      .catch((e: unknown) => this.reportJobException(attempt, e))
      .then(() => {
        handlerDone();
        this.finishIfDone(attempt);
      });
  }

  // Laravel's Worker::process: JobProcessing, the already-exceeded check, the run, JobProcessed; exceptions
  // go through handleJobException (which rethrows); JobAttempted always comes last. A handler that settles
  // after its timeout changes nothing: the attempt ended at the timeout. `handlerDone`, when given, is
  // called once the runner has returned and only its final delete is left.
  private async process(attempt: Attempt<J>, handlerDone?: () => void): Promise<void> {
    const { job } = attempt;
    attempt.start();
    let exception: Error | null = null;
    try {
      if (this.events.listens('JobProcessing')) this.events.emit('JobProcessing', this.events.jobEvent(job));
      if (alreadyExceedsMaxAttempts(this.attemptContext, job, this.options.maxTries))
        await failAsAlreadyExceeded(this.attemptContext, job);
      // A JobProcessing listener may have deleted the job: it then counts as processed, unrun.
      if (!job.isDeleted()) await this.runner.run(attempt.guarded, attempt);
      if (!attempt.handlerSettled()) return;
      const finalDelete = attempt.pendingFinalDelete;
      if (finalDelete !== undefined) {
        handlerDone?.();
        await finalDelete;
      }
      attempt.conclude();
      if (this.events.listens('JobProcessed')) this.events.emit('JobProcessed', this.events.jobEvent(job));
      if (job.isReleased() && !job.isDeleted() && this.events.listens('JobReleased'))
        this.events.emit('JobReleased', this.events.jobEvent(job));
    } catch (e) {
      exception = toError(e);
      if (!attempt.handlerSettled()) throw exception;
      try {
        await handleJobException(job, exception, this.exceptionRules);
      } finally {
        attempt.conclude();
      }
    } finally {
      if (attempt.state !== 'timedOut' && this.events.listens('JobAttempted'))
        this.events.emit('JobAttempted', { ...this.events.jobEvent(job), exception });
    }
  }

  private finishIfDone(attempt: Attempt<J>): void {
    if (attempt.isFinished) this.slots.finish(attempt);
  }

  // An attempt refused a side effect because it was over: say so, with the job's name.
  private refuse(attempt: Attempt<J>, action: AttemptAction): void {
    const error = new AttemptOverError(attempt.job, action, attempt.state);
    this.events.emit('JobActionRefused', { ...this.events.jobEvent(attempt.job), action, state: attempt.state, error });
    this.events.report(error);
  }

  private async stopWorker(result: WorkerStopResult): Promise<WorkerStopResult> {
    // Let the jobs in flight finish (a timed-out one is over already), within shutdownGraceSeconds.
    await this.slots.drain(this.options.shutdownGraceSeconds, this.sleepImpl);
    // A handler that hung while the worker drained ends it with status 1, whatever stop began the drain.
    result = this.stops.finalResult(result);
    this.events.emit('WorkerStopping', {
      ...result,
      ...(result.reason === 'restart_signal' ? { restartSignal: this.cacheSignals.restartSignal } : {}),
      options: this.options,
      jobsProcessed: this.jobsProcessed,
      lastJobProcessedAt: this.lastJobProcessedAt,
      memoryUsage: this.memoryUsage(),
    });
    return result;
  }

  // The free slots, never more than maxJobs still allows (it counts started jobs), and never more than
  // the memory left holds (PopBudget).
  private popLimit(): number {
    const free = this.slots.free;
    const byCount =
      this.options.maxJobs > 0 ? Math.max(0, Math.min(free, this.options.maxJobs - this.jobsProcessed)) : free;
    return this.popBudget.limit(byCount, this.slots.unfinishedCount);
  }

  private memoryUsage(): number {
    return (this.deps.memoryUsage ?? heapMemoryUsage)();
  }

  // runJob's catch: report the exception and stop on a lost connection. After a timeout the handler's
  // reaction to the abort is expected noise; anything else it throws late is still reported.
  private reportJobException(attempt: Attempt<J>, thrown: unknown): void {
    const error = toError(thrown);
    if (attempt.state === 'timedOut' && (error === attempt.abortReason || error.name === 'AbortError')) return;
    this.reportAndCheckConnection(error);
  }

  private reportAndCheckConnection(thrown: unknown): void {
    const error = toError(thrown);
    this.events.report(error);
    this.stops.stopWorkerIfLostConnection(error);
  }

  // Cut short by a stop, so a stopping worker never sits out a `sleep` or `rest`.
  private async sleep(seconds: number): Promise<void> {
    // Reads made before a sleep are stale after it.
    this.cacheSignals.dropPrefetched();
    if (seconds > 0 && !this.stops.signal.aborted) await this.sleepImpl(seconds * 1000, this.stops.signal);
  }
}
