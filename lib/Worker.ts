// The queue worker: Laravel's Worker (spec §10) with its retry, timeout and failure rules unchanged, so
// Redis and Laravel's tools see what a `php artisan queue:work` would have left behind.
//
// Concurrency: up to `concurrency` jobs run at once, each in a slot. A pass pops for at most half the
// free slots (never past `maxJobs`, never more than the memory left holds, see PopBudget) and starts
// what came back; the loop then waits for a free slot and runs the stop checks. While every slot is
// busy the stop checks still run, every STOP_CHECK_SECONDS, so a stuck handler cannot hold off
// maxTime, --memory, queue:restart or a signal. From concurrency 4, two such loops share the slots (see
// poll()). With concurrency 1 this is Laravel's loop: pop, run, rest, stop checks, next.
//
// The stop and pause checks take the cache reads the checks before them started (CacheSignals' read-ahead),
// never one started more than PREFETCH_FRESH_MS before: a `queue:restart` or `queue:pause` is
// seen up to that much later than Laravel's loop would see it, so one more job may start in between. In
// exchange the next pop leaves with the last job's acknowledgement instead of a round trip after it.
//
// Each job runs as an Attempt (worker/Attempt.ts): reserved -> running -> processed, released, failed or
// timed out, each reached once; once it is over, whatever the handler does late is refused and reported.
//
// Timeouts (§10.8), the Node way: a job's limit is its payload `timeout`, else `options.timeout` (0 =
// none). When it expires larq does what Laravel's SIGALRM handler does (fail the job if this was its last
// try or exception, or if it has failOnTimeout; fire JobTimedOut) and aborts the handler's AbortSignal.
// The job is otherwise neither released nor deleted: it stays reserved until `retry_after`, then comes
// back with one more attempt, which is exactly what Redis shows after Laravel kills its worker. Node
// cannot pre-empt a promise, so the slot stays occupied until the handler really settles: this process
// never runs more than `concurrency` handlers, nor the same job twice at once (a job that comes back
// while its earlier attempt still runs here is not started: JobAlreadyRunning). A handler still running
// `timeoutGraceSeconds` after its timeout is hung: by default (onHungHandler 'stop') the worker then does
// what Laravel's killed worker amounts to: it takes no more jobs, lets the other slots finish and ends
// with status 1, reason `timed_out`, for its supervisor to restart it. With onTimeout 'stop' it ends so
// at the timeout itself, as Laravel does. Laravel's other alarm quirk, killing an idle worker whose
// `sleep` reaches `timeout`, is not reproduced, and `runNextJob` (`--once`) has no timeout, as in Laravel.
//
// All deadlines (timeouts, hung-handler graces, heartbeats, stop checks while busy) share one timer
// (worker/Deadlines.ts), armed for the earliest; no timer or AbortController is made per job.
import { calculateBackoff } from './backoff';
import { type Clock, systemClock, unixSeconds } from './clock';
import { AttemptOverError, HungHandlerError, InvalidOptionError, JobAlreadyRunningError, LarqError, RedisUnavailableError, TimeoutExceededError } from './errors';
import { LaravelRelease, type LaravelVersion } from './LaravelLine';
import { type JobEvent, toError, TypedEmitter, type WorkerEvent, type WorkerEvents, type WorkerStopReason, type WorkerStopResult } from './events';
import type { AttemptAction, FailedJobLogger, JobRunner, WorkerCache, WorkerJob, WorkerQueue } from './jobs/contracts';
import { Attempt, attemptOf } from './worker/Attempt';
import { alreadyExceedsMaxAttempts, failAsAlreadyExceeded, failIfWillExceedMaxAttempts, failIfWillExceedMaxExceptions, type AttemptContext } from './worker/attempts';
import { CacheSignals } from './worker/CacheSignals';
import { Deadlines } from './worker/Deadlines';
import { failJob, FailureRecorder } from './worker/fail';
import { Heartbeat } from './worker/heartbeat';
import { causedByLostConnection } from './worker/lostConnection';
import { listenForSignals } from './worker/signals';
import { heapMemoryUsage, timerSleep } from './worker/defaults';
import { PopBudget } from './worker/PopBudget';
import { Slots } from './worker/Slots';
import { resolveWorkerOptions, type WorkerOptions } from './WorkerOptions';

/** `queue:work` exit statuses (Laravel's EXIT_SUCCESS, EXIT_ERROR, EXIT_MEMORY_LIMIT). */
export const EXIT_SUCCESS = 0;
export const EXIT_ERROR = 1;
export const EXIT_MEMORY_LIMIT = 12;

/** Seconds between stop checks while every slot is busy. */
export const STOP_CHECK_SECONDS = 1;

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
  private readonly deadlines: Deadlines;
  private readonly popBudget: PopBudget;
  // The attempts whose handlers have not settled, by job identity (uuid, else the raw payload): a job
  // popped again while its key is here is not started (from concurrency 2; one slot cannot hold two).
  private readonly handlersRunning = new Map<string, Attempt<J>>();
  // The queues found paused by the last pass, to tell WorkerQueuePaused/Resumed transitions.
  private lastPaused = new Set<string>();
  private readonly recorder: FailureRecorder;
  private running = false;
  private paused = false;
  private shouldQuit = false;
  private quitReason: WorkerStopReason = 'interrupted';
  private lostConnection = false;
  private timedOutStop = false;
  // When the stop checks are next due while every slot is busy (clock ms); Infinity: not waiting.
  private stopCheckAtMs = Infinity;
  private wake = new AbortController();
  private readonly cacheSignals: CacheSignals;
  private jobsProcessed = 0;
  private lastJobProcessedAt: number | null = null;
  private passes = 0;
  // The polling loop that started a batch in this turn of the event loop, if any (see startAfterOtherLoop).
  private startingBatch: number | null = null;
  private stopResult: WorkerStopResult | null = null;
  // The heartbeat (null when off), whether it beats (while the daemon runs), when it next beats (clock
  // ms; Infinity while a beat is on its way), and the beat on its way.
  private heartbeat: Heartbeat<J> | null = null;
  private nextBeatAtMs = Infinity;
  private beating: Promise<void> | null = null;
  private heartbeatOn = false;
  private readonly refused = (attempt: Attempt<J>, action: AttemptAction): void => this.refuse(attempt, action);

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
    this.deadlines = new Deadlines(this.clock, this.sleepImpl, (now) => this.handleDeadlines(now));
    this.popBudget = new PopBudget(this.options.memory * 1024 * 1024, () => this.memoryUsage());
    this.recorder = new FailureRecorder(deps.failer, () => this.clock.nowMs());
    this.cacheSignals = new CacheSignals(deps.cache, (e) => this.report(e), LaravelRelease.of(deps.laravel ?? 13), Date.now, true);
    // The worker's own fail decisions (before the run, after an exception, at the timeout) belong to the
    // attempt's end and are never fenced; failJob() is what handlers call.
    this.attemptContext = { now: () => unixSeconds(this.clock), cache: deps.cache, fail: (job, e) => this.failUnfenced(job, e) };
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
    this.deadlines.start();
    this.startHeartbeat();
    try {
      await this.cacheSignals.start();
      const startedAt = this.clock.nowMs();
      this.events.emit('WorkerStarting', { ...this.where(list), options: this.options });
      this.stopResult = null;
      await Promise.all(Array.from({ length: this.options.concurrency >= 4 ? 2 : 1 }, (_, loop) => this.poll(list, startedAt, loop)));
      return await this.stopWorker(this.stopResult ?? { status: EXIT_SUCCESS, reason: 'interrupted' });
    } finally {
      removeSignals();
      this.heartbeatOn = false;
      this.nextBeatAtMs = Infinity;
      await this.beating;
      await this.deadlines.stop();
      this.cacheSignals.dropPrefetched();
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
      // null: no pass ran, or it could take nothing, so nothing was learned about emptiness
      let found: boolean | null = null;
      try {
        const passed = this.slots.free > 0;
        if (passed) found = await this.pass(list, loop);
        await this.waitForSlot(passed && found === null);
      } catch (e) {
        // Laravel would die here; larq reports and carries on after a breath.
        this.report(e);
        await this.sleep(1);
      }
      if (this.stopResult !== null) return;
      // The stop check's restart read and the next pass's pause reads, in one round trip.
      this.cacheSignals.prefetch(this.queue.connectionName, list);
      const stop = await this.stopIfNecessary(startedAt, found ?? true);
      if (this.stopResult !== null) return;
      if (stop !== null) {
        this.stopResult = stop;
        this.wake.abort(); // the other loop may be waiting for a slot or sleeping
        return;
      }
    }
  }

  // One pass of Laravel's loop: unless paused or down (Laravel's pauseWorker: sleep), pop for the free
  // slots and start what came back; sleep `sleep` when nothing did. Whether it found jobs, or null when
  // it could take none (the other loop holds the slots, maxJobs, or the memory left).
  private async pass(list: readonly string[], loop: number): Promise<boolean | null> {
    if (!(await this.daemonShouldRun(list))) {
      await this.sleep(this.options.sleep > 0 ? this.options.sleep : 1);
      return false;
    }
    const limit = this.popLimit();
    if (limit <= 0) return null;
    this.slots.hold(limit);
    let jobs: J[];
    try {
      jobs = await this.getNextJob(list, limit);
      // still holding the slots: the other loop must not pop for them while this batch waits its turn
      if (jobs.length > 0) await this.startAfterOtherLoop(loop);
    } finally {
      this.slots.unhold(limit);
    }
    if (jobs.length > 0) this.popBudget.record(jobs.map(payloadSize));
    for (const job of jobs) if (!this.alreadyRunning(job)) this.startJob(job);
    if (jobs.length === 0) {
      this.events.emit('WorkerIdle', { ...this.where(list), options: this.options });
      await this.sleep(this.options.sleep);
    }
    return jobs.length > 0;
  }

  // Wait for a free slot, for at most STOP_CHECK_SECONDS: the stop checks run on their own schedule
  // while every slot is busy, so a stuck handler never holds them off. `forAnyChange`: the pass could take
  // nothing although slots were free; wait for the next change (a slot freed, a pop back) instead.
  private async waitForSlot(forAnyChange: boolean): Promise<void> {
    if (this.wake.signal.aborted) return;
    if (this.slots.free > 0 && !forAnyChange) return;
    const checkAt = this.clock.nowMs() + STOP_CHECK_SECONDS * 1000;
    if (checkAt < this.stopCheckAtMs) this.stopCheckAtMs = checkAt;
    this.deadlines.wakeBy(this.stopCheckAtMs);
    await this.slots.waitForFree(this.wake.signal, forAnyChange);
  }

  // The two polling loops must take turns, or they fall into step: when both pops come back in one read,
  // both batches start in the same turn of the event loop, both free their slots in it (jobs that do not
  // wait for I/O finish there), both pops go out together, and Node and Redis wait on each other in turn.
  // So a batch that arrives while the other loop's batch is starting in this turn starts in the next
  // one: the first loop's next pop is then on its way while the second batch runs.
  private async startAfterOtherLoop(loop: number): Promise<void> {
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
      const attempt = new Attempt(job, this.refused); // --once has no timeout, as in Laravel
      await this.process(attempt).catch((e: unknown) => this.reportJobException(attempt, e));
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
   * Laravel's Job::fail (§9.2): mark failed; unless already deleted, record the failure, delete the
   * reservation once it is recorded (see worker/fail), call the runner's failed hook (its errors are
   * reported, not fatal), fire JobFailed.
   * For a job a handler was given whose attempt is over (it timed out), nothing happens: the refusal is
   * reported (JobActionRefused).
   */
  async failJob(job: J, error?: Error): Promise<void> {
    const attempt = attemptOf(job);
    if (attempt !== undefined && !attempt.allows('fail')) return;
    await this.failUnfenced(attempt?.job ?? job, error);
  }

  private async failUnfenced(job: J, error?: Error): Promise<void> {
    await failJob(job, error, this.runner, this.recorder, {
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
    this.stopCheckAtMs = Infinity;
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
      const order = this.passOrder(list);
      const paused = await this.pausedQueues(order);
      for (const [index, name] of order.entries()) {
        if (paused.has(name)) continue;
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
      // Laravel's breath after a failed pop. A pop refused as RedisUnavailableError has just waited a
      // second for the lost connection (whenConnected), which ends the moment it is back: that wait was
      // the breath, and sleeping again could hold the worker back for most of a second after Redis returned.
      if (!(e instanceof RedisUnavailableError)) await this.sleep(1);
      return [];
    }
  }

  // Laravel 13's getPausedQueues and raisePausedQueueEvents: which queues of the list are paused now, each
  // read once per pass, with an event for every queue that became paused or stopped being paused.
  private async pausedQueues(order: readonly string[]): Promise<Set<string>> {
    const connection = this.queue.connectionName;
    const states = await Promise.all(order.map((name) => this.cacheSignals.isPaused(connection, name)));
    const paused = new Set(order.filter((_, i) => states[i]));
    for (const name of paused) if (!this.lastPaused.has(name)) this.events.emit('WorkerQueuePaused', { connectionName: connection, queue: name });
    for (const name of this.lastPaused) if (!paused.has(name)) this.events.emit('WorkerQueueResumed', { connectionName: connection, queue: name });
    this.lastPaused = paused;
    return paused;
  }

  // A job whose earlier attempt still runs here (it outlived retry_after, was taken back to the queue and
  // popped again) is not started: one process never runs one job twice at once. Its new reservation is
  // left as it is, as a second Laravel worker that died right after its pop would leave it: it comes back
  // after retry_after with this attempt counted, and by then the first one has most likely finished.
  private alreadyRunning(job: J): boolean {
    if (this.options.concurrency === 1) return false; // the one slot is free: nothing else runs
    const running = this.handlersRunning.get(jobKey(job));
    if (running === undefined) return false;
    this.events.emit('JobAlreadyRunning', this.jobEvent(job));
    this.report(new JobAlreadyRunningError(job));
    return true;
  }

  private startJob(job: J): void {
    this.jobsProcessed++;
    const limit = this.timeoutFor(job);
    // The runner hands its final delete over (deferFinalDelete) instead of awaiting it. The slot is then
    // free at once, even though the delete still waits for Redis' reply: the next pop goes out on the same
    // connection after that ZREM, in the same write, so Redis never holds more than `concurrency` reserved
    // jobs, and the attempt still ends (JobProcessed, or the exception path) only when the reply is in.
    // One job at a time, Redis then sees Laravel's loop in its order (ZREM, the stop check's and the pass's
    // cache reads, the migrations and the pop) in one round trip instead of two: the checks take the reads
    // the previous checks started (CacheSignals' read-ahead).
    const concurrent = this.options.concurrency > 1;
    const attempt = new Attempt(job, this.refused, { mayDeferFinalDelete: true });
    const key = concurrent ? jobKey(job) : undefined;
    if (key !== undefined) this.handlersRunning.set(key, attempt);
    this.slots.add(attempt);
    if (limit > 0) {
      attempt.timeoutSeconds = limit;
      attempt.deadlineMs = this.clock.nowMs() + limit * 1000;
      this.deadlines.wakeBy(attempt.deadlineMs);
    }
    let slotFreed = false;
    const freeSlot = (): void => {
      if (slotFreed) return;
      slotFreed = true;
      if (key !== undefined && this.handlersRunning.get(key) === attempt) this.handlersRunning.delete(key);
      this.lastJobProcessedAt = unixSeconds(this.clock);
      if (this.options.rest > 0) void this.sleep(this.options.rest).then(() => this.slots.vacate(attempt));
      else this.slots.vacate(attempt);
    };
    const handled = this.process(attempt, freeSlot).catch((e: unknown) => this.reportJobException(attempt, e));
    void handled.then(() => {
      freeSlot();
      this.finishIfDone(attempt);
    });
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
  // exceptions go through handleJobException (which rethrows); JobAttempted always comes last. A handler
  // that settles after its timeout changes nothing: the attempt ended at the timeout.
  // `handlerDone`, when given, is called once the runner has returned and only its final delete is left:
  // the slot may take the next job while the attempt waits for Redis' reply.
  private async process(attempt: Attempt<J>, handlerDone?: () => void): Promise<void> {
    const { job } = attempt;
    attempt.start();
    let exception: Error | null = null;
    try {
      if (this.listens('JobProcessing')) this.events.emit('JobProcessing', this.jobEvent(job));
      if (alreadyExceedsMaxAttempts(this.attemptContext, job, this.options.maxTries)) await failAsAlreadyExceeded(this.attemptContext, job);
      // A JobProcessing listener may have deleted the job: it then counts as processed, unrun.
      if (!job.isDeleted()) await this.runner.run(attempt.guarded, attempt);
      if (!attempt.handlerSettled()) return;
      if (attempt.finalDelete !== undefined) {
        handlerDone?.();
        await attempt.finalDelete;
      }
      attempt.conclude();
      if (this.listens('JobProcessed')) this.events.emit('JobProcessed', this.jobEvent(job));
      if (job.isReleased() && !job.isDeleted() && this.listens('JobReleased')) this.events.emit('JobReleased', this.jobEvent(job));
    } catch (e) {
      exception = toError(e);
      if (!attempt.handlerSettled()) throw exception;
      try {
        await this.handleJobException(job, exception);
      } finally {
        attempt.conclude();
      }
    } finally {
      if (attempt.state !== 'timedOut' && this.listens('JobAttempted')) this.events.emit('JobAttempted', { ...this.jobEvent(job), exception });
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

  // The one timer fired: time out the attempts whose deadline passed, call hung the timed-out handlers
  // whose grace passed, and end the waits for a slot when the stop checks are due. Returns when it must
  // fire next.
  private handleDeadlines(now: number): number {
    let next = Infinity;
    for (const attempt of this.slots.attempts()) {
      if (attempt.deadlineMs > 0 && attempt.state === 'running' && !attempt.handlerHasSettled) {
        if (attempt.deadlineMs <= now) this.timeoutJob(attempt).catch((e: unknown) => this.report(e));
        else next = Math.min(next, attempt.deadlineMs);
      } else if (attempt.state === 'timedOut' && !attempt.handlerHasSettled && !attempt.reportedHung && attempt.hungAtMs > 0) {
        if (attempt.hungAtMs <= now) this.handlerHung(attempt);
        else next = Math.min(next, attempt.hungAtMs);
      }
    }
    if (this.stopCheckAtMs <= now) {
      this.stopCheckAtMs = Infinity;
      this.slots.interruptWaits();
    }
    if (this.nextBeatAtMs <= now) this.beat();
    return Math.min(next, this.stopCheckAtMs, this.nextBeatAtMs);
  }

  // What Laravel's SIGALRM handler does before it kills the worker (§10.8); see the header for the rest.
  private async timeoutJob(attempt: Attempt<J>): Promise<void> {
    if (!attempt.timeOut()) return;
    const { job } = attempt;
    const error = new TimeoutExceededError(job);
    attempt.abort(error);
    attempt.hungAtMs = this.clock.nowMs() + this.options.timeoutGraceSeconds * 1000;
    this.deadlines.wakeBy(attempt.hungAtMs);
    try {
      // A job already failed in this attempt (before it ran, or by its handler) is not failed again.
      if (!job.hasFailed()) {
        await failIfWillExceedMaxAttempts(this.attemptContext, job, this.options.maxTries, error);
        await failIfWillExceedMaxExceptions(this.attemptContext, job, error);
        if (job.shouldFailOnTimeout()) await this.failUnfenced(job, error);
      }
    } catch (e) {
      this.report(e);
    }
    this.events.emit('JobTimedOut', { ...this.jobEvent(job), timeout: attempt.timeoutSeconds });
    this.report(error);
    attempt.timeoutHandled = true;
    this.finishIfDone(attempt);
    if (this.options.onTimeout === 'stop') {
      this.timedOutStop = true;
      this.wake.abort();
    }
  }

  // The worker is done with an attempt once it settled its outcome; with a timed-out one, once the
  // timeout is handled and the handler has settled or been given up as hung. A stop waits for this.
  private finishIfDone(attempt: Attempt<J>): void {
    if (attempt.state !== 'timedOut' ? attempt.handlerHasSettled : attempt.timeoutHandled && (attempt.handlerHasSettled || attempt.reportedHung)) {
      this.slots.finish(attempt);
    }
  }

  // A timed-out handler did not settle within the grace: Laravel's worker would have been killed by now.
  private handlerHung(attempt: Attempt<J>): void {
    attempt.reportedHung = true;
    const { timeoutGraceSeconds: graceSeconds, onHungHandler: policy } = this.options;
    this.events.emit('JobHandlerHung', { ...this.jobEvent(attempt.job), timeout: attempt.timeoutSeconds, graceSeconds, policy });
    this.report(new HungHandlerError(attempt.job, graceSeconds, policy));
    this.finishIfDone(attempt);
    if (policy === 'stop') {
      this.timedOutStop = true;
      this.wake.abort();
    }
  }

  // An attempt refused a side effect because it was over: say so, with the job's name.
  private refuse(attempt: Attempt<J>, action: AttemptAction): void {
    const error = new AttemptOverError(attempt.job, action, attempt.state);
    this.events.emit('JobActionRefused', { ...this.jobEvent(attempt.job), action, state: attempt.state, error });
    this.report(error);
  }

  // Laravel's stopIfNecessary (§10.14), in its order; a timeout stop comes first, as Laravel's is immediate.
  private async stopIfNecessary(startedAt: number, found: boolean): Promise<WorkerStopResult | null> {
    if (this.timedOutStop) return { status: EXIT_ERROR, reason: 'timed_out' };
    // Laravel exits 0 here; larq exits 1, so a supervisor that restarts only on failure (systemd's
    // Restart=on-failure) brings back a worker whose Redis client gave up reconnecting.
    if (this.lostConnection) return { status: EXIT_ERROR, reason: 'lost_connection' };
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
    // A handler that hung while the worker drained ends it as if the hang came first: status 1, for the
    // supervisor and the operator to see, whatever stop (a signal, maxTime...) began the drain.
    if (this.timedOutStop) result = { status: EXIT_ERROR, reason: 'timed_out' };
    this.events.emit('WorkerStopping', {
      ...result,
      options: this.options,
      jobsProcessed: this.jobsProcessed,
      lastJobProcessedAt: this.lastJobProcessedAt,
      memoryUsage: this.memoryUsage(),
    });
    return result;
  }

  // Free slots, at most half of them, never more than maxJobs still allows (maxJobs counts started jobs
  // and the slots held for pops in flight), and never more than the memory left holds once the pops in
  // flight have brought their jobs. The other half
  // stays for the next pass or the other loop, so Redis reserves one batch while another runs.
  private popLimit(): number {
    const free = Math.min(this.slots.free, Math.ceil(this.slots.size / 2));
    const byCount = this.options.maxJobs > 0 ? Math.max(0, Math.min(free, this.options.maxJobs - this.jobsProcessed - this.slots.held)) : free;
    return this.popBudget.limit(byCount, this.slots.unfinishedCount, this.slots.held);
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

  // The heartbeat beats on the worker's one timer, `heartbeat` seconds after the previous beat ended.
  private startHeartbeat(): void {
    const { heartbeat, retryAfter } = this.options;
    const queue = this.queue;
    if (heartbeat === false || retryAfter === null || queue.extendReservation === undefined) return;
    this.heartbeat ??= new Heartbeat<J>({
      retryAfterSeconds: retryAfter,
      jobs: () => this.slots.attempts(),
      extend: (job, until) => queue.extendReservation!(job, until),
      now: () => unixSeconds(this.clock),
      report: (e) => this.report(e),
    });
    this.heartbeatOn = true;
    this.nextBeatAtMs = this.clock.nowMs() + heartbeat * 1000;
    this.deadlines.wakeBy(this.nextBeatAtMs);
  }

  private beat(): void {
    this.nextBeatAtMs = Infinity;
    this.beating = this.heartbeat!.beat().then(() => {
      this.beating = null;
      if (!this.heartbeatOn || this.options.heartbeat === false) return;
      this.nextBeatAtMs = this.clock.nowMs() + this.options.heartbeat * 1000;
      this.deadlines.wakeBy(this.nextBeatAtMs);
    });
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
    // Reads made before a sleep are stale after it.
    this.cacheSignals.dropPrefetched();
    if (seconds > 0 && !this.wake.signal.aborted) await this.sleepImpl(seconds * 1000, this.wake.signal);
  }

  private where(list: readonly string[]): WorkerEvent {
    return { connectionName: this.queue.connectionName, queue: list.join(',') };
  }

  // The per-job events are built only when someone listens: event objects nobody reads are garbage the
  // collector has to sweep, several per job.
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

// What makes two reservations the same job: its uuid, else (a raw job pushed by another producer) its
// payload as popped.
function jobKey(job: WorkerJob): string {
  let uuid: string | null = null;
  try {
    uuid = job.uuid();
  } catch {
    // an unreadable payload has no uuid to read: its raw body identifies it
  }
  return uuid ?? job.getRawBody();
}

function payloadSize(job: WorkerJob): number {
  return job.payloadLength ? job.payloadLength() : job.getRawBody().length;
}
