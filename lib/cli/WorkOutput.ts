// What `larq work` prints per job, in the shapes Laravel 13's queue:work prints (WorkCommand's
// writeOutputForCli and writeOutputAsJson): a RUNNING line, then DONE, a yellow FAIL for a job released to
// be tried again, a red FAIL for a job failed for good; with --json one JSON object per line with
// artisan's fields. larq adds what artisan leaves to the log: on stderr, for each failure, whether the job
// will be retried, the reason, and the uuid that `larq failed` and `larq retry` take. Everything a
// payload decides (name, ids, queue, exception text) is printed through printable(): no control character
// of a job's reaches the terminal.
import { formatDateTime } from '../failed/timestamp';
import type { RedisJob } from '../jobs/RedisJob';
import type { Worker } from '../Worker';
import type { Io } from './args';
import { printable, printableJson } from './printable';

/** How `larq work` prints. */
export interface WorkOutputOptions {
  /** APP_TIMEZONE, for the timestamps. */
  timezone: string;
  /** --json: one JSON object per line instead of text. */
  json: boolean;
  /** -v: the job id, connection and queue on each line, and memory on the last. */
  verbose: boolean;
  /** ANSI colours (a terminal, unless NO_COLOR is set). */
  colors: boolean;
  /** Terminal width for the dot leaders. */
  width: number;
}

const COLOR = { gray: 90, yellow: 33, green: 32, red: 31, blue: 34 } as const;

// How many job names WorkOutput keeps the text of before it starts afresh.
const NAMES_KEPT = 256;

// How many lines of one job class in one second WorkOutput keeps to write again: its RUNNING line and a
// DONE line for nearly every run time below 10 ms (kept by hundredths of a millisecond). Lines are kept
// only for the second they were written in, so this never holds more than that second wrote.
const LINES_KEPT = 1000;

// A job class's share of its lines: its printable name, the tail of its RUNNING line (without -v), and
// the lines already made in `second` (RUNNING under RUNNING_KEY, DONE under its run time in hundredths of
// a millisecond: a number, so that finding a line takes neither a string to format nor one to hash).
interface Named {
  text: string;
  running: string;
  second: number;
  lines: Map<number, string>;
}

const RUNNING_KEY = -1;

/** Whether stdout should get colours: a terminal, and neither NO_COLOR nor FORCE_COLOR=0. */
export function wantsColors(env: NodeJS.ProcessEnv = process.env, tty = process.stdout.isTTY === true): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined) return env.FORCE_COLOR !== '0';
  return tty;
}

/** Prints a worker's job lines to `io`. */
export class WorkOutput {
  private readonly startedAt = new WeakMap<RedisJob, number>();
  // The last timestamp printed (painted, with the line's indent) and its second: every line of one second
  // shows the same text.
  private stampSecond = NaN;
  private stampText = '';
  // What the lines of a job class share, by the payload's name (see Named). A worker runs few classes;
  // more than NAMES_KEPT start the cache afresh.
  private readonly names = new Map<string, Named>();
  // The dot leaders, painted, by length.
  private readonly leaders: string[] = [];

  constructor(
    private readonly io: Io,
    private readonly options: WorkOutputOptions,
  ) {}

  /**
   * Start printing `worker`'s jobs: the job lines unless `quiet`, and always, on stderr, one line per
   * exception saying what became of the job. Returns the exceptions it reported, so that the worker's
   * 'error' listener does not print them again.
   */
  attach(worker: Worker<RedisJob>, quiet: boolean): WeakSet<Error> {
    const reported = new WeakSet<Error>();
    if (!quiet) {
      worker.on('WorkerQueuePaused', (e) => this.queueStatus(e.queue, 'paused'));
      worker.on('WorkerQueueResumed', (e) => this.queueStatus(e.queue, 'resumed'));
      worker.on('JobProcessing', (e) => this.job(e.job, 'starting'));
      // A job that failed itself also fires JobProcessed: its FAIL line was written already. One released
      // without an exception (put back for a PHP worker by --unknown-jobs=release, or by its handler) did
      // not get done: it is shown as RELEASED.
      worker.on(
        'JobProcessed',
        (e) =>
          this.startedAt.has(e.job) &&
          !e.job.hasFailed() &&
          this.job(e.job, e.job.isReleased() && !this.options.json ? 'released' : 'success'),
      );
    }
    // A string job's handler settles the job itself, as a PHP `fire`/`handle` method must; one that
    // returned without doing so stays reserved and runs again after retry_after.
    worker.on('JobProcessed', (e) => {
      if (!e.job.isDeletedOrReleased() && !e.job.hasFailed() && isStringJob(e.job)) {
        this.note(
          e.job,
          'returned without delete() or release(): it stays reserved and runs again after retry_after (call ctx.delete() when done)',
        );
      }
    });
    worker.on('JobReleasedAfterException', (e) => {
      if (!quiet) this.job(e.job, 'released_after_exception', e.exception);
      this.note(e.job, `released after an exception; it runs again in ${e.backoff}s: ${firstLine(e.exception)}`);
    });
    worker.on('JobFailed', (e) => {
      reported.add(e.exception);
      if (!quiet) this.job(e.job, 'failed', e.exception);
      this.note(e.job, `failed for good (${e.exception.name}): ${firstLine(e.exception)}`);
    });
    // Laravel fires this after the fail decision and before the release: a job that failed is noted
    // already and one about to be released is noted next; one that settled itself first is noted here.
    worker.on('JobExceptionOccurred', (e) => {
      reported.add(e.exception);
      if (!e.job.hasFailed() && e.job.isDeletedOrReleased())
        this.note(
          e.job,
          `threw after it ${e.job.isDeleted() ? 'deleted' : 'released'} itself: ${firstLine(e.exception)}`,
        );
    });
    return reported;
  }

  // `  <time>` as a job line starts, formatted for the app's timezone once a second (formatting a zone's
  // time takes microseconds).
  private stamp(ms: number): string {
    const second = Math.floor(ms / 1000);
    if (second !== this.stampSecond) {
      this.stampSecond = second;
      this.stampText = `  ${this.paint(formatDateTime(ms, this.options.timezone), 'gray')}`;
    }
    return this.stampText;
  }

  private named(job: RedisJob): Named {
    const raw = job.resolveName();
    let named = this.names.get(raw);
    if (named === undefined) {
      if (this.names.size >= NAMES_KEPT) this.names.clear();
      const text = printable(raw);
      const dots = Math.max(this.options.width - text.length - 33, 0);
      const running = ` ${this.leader(dots)} ${this.paint('RUNNING', 'yellow', true)}`;
      named = { text, running, second: NaN, lines: new Map() };
      this.names.set(raw, named);
    }
    return named;
  }

  // Without -v a RUNNING or DONE line is the same text for every job of a class in one second (and, for
  // DONE, the same run time): made once, then written again as it is, with nothing to build or copy.
  // `make` gets the stamp the line is kept under, so a second that turns meanwhile cannot show in it.
  private sameLine(named: Named, key: number, make: (stamp: string) => string): string {
    const stamp = this.stamp(Date.now());
    if (named.second !== this.stampSecond) {
      named.second = this.stampSecond;
      named.lines.clear();
    }
    let line = named.lines.get(key);
    if (line === undefined) {
      line = make(stamp);
      if (named.lines.size < LINES_KEPT) named.lines.set(key, line);
    }
    return line;
  }

  // `count` dots, painted gray.
  private leader(count: number): string {
    return (this.leaders[count] ??= this.paint('.'.repeat(count), 'gray'));
  }

  /** A colour, when colours are on. */
  paint(text: string, color: keyof typeof COLOR, bold = false): string {
    return this.options.colors ? `\x1b[${bold ? '1;' : ''}${COLOR[color]}m${text}\x1b[0m` : text;
  }

  private job(
    job: RedisJob,
    status: 'starting' | 'success' | 'released' | 'released_after_exception' | 'failed',
    exception?: Error,
  ): void {
    if (this.options.json) return this.jsonLine(job, status, exception);
    const named = this.named(job);
    const name = named.text;
    let details = '';
    let detailsWidth = 0;
    if (this.options.verbose) {
      const [id, connection, queue] = [
        printable(job.getJobId() ?? ''),
        printable(job.getConnectionName()),
        printable(job.getQueue()),
      ];
      details = ` ${this.paint(id, 'gray')} ${this.paint(connection, 'blue')} ${this.paint(queue, 'blue')}`;
      detailsWidth = id.length + connection.length + queue.length + 2;
    }
    if (status === 'starting' && !this.options.verbose) {
      this.startedAt.set(job, performance.now());
      return this.io.out(this.sameLine(named, RUNNING_KEY, (stamp) => `${stamp} ${name}${named.running}`));
    }
    if (status === 'success' && !this.options.verbose) {
      const ms = this.runMs(job);
      // Below a second the text is a function of the hundredths; a longer run is rare enough to format.
      const hundredths = ms < 1000 ? Math.round(ms * 100) : null;
      const done = (stamp: string): string => {
        const runTime = hundredths === null ? runTimeForHumans(ms) : hundredthsOfMs(hundredths);
        const dots = Math.max(this.options.width - name.length - runTime.length - 31, 0);
        return `${stamp} ${name} ${this.leader(dots)} ${this.paint(runTime, 'gray')} ${this.paint('DONE', 'green', true)}`;
      };
      return this.io.out(hundredths === null ? done(this.stamp(Date.now())) : this.sameLine(named, hundredths, done));
    }
    const head = `${this.stamp(Date.now())} ${name}${details}`;
    if (status === 'starting') {
      this.startedAt.set(job, performance.now());
      const dots = Math.max(this.options.width - name.length - detailsWidth - 33, 0);
      this.io.out(`${head} ${this.leader(dots)} ${this.paint('RUNNING', 'yellow', true)}`);
      return;
    }
    const runTime = this.runTime(job);
    const memory = this.options.verbose ? `${(process.memoryUsage().rss / 1024 / 1024).toFixed(1)}MB` : '';
    const dots = Math.max(
      this.options.width -
        name.length -
        (this.options.verbose ? detailsWidth + memory.length + 1 : 0) -
        runTime.length -
        31 -
        (status === 'released' ? 'RELEASED'.length - 'DONE'.length : 0),
      0,
    );
    const result =
      status === 'success'
        ? this.paint('DONE', 'green', true)
        : status === 'released'
          ? this.paint('RELEASED', 'yellow', true)
          : this.paint('FAIL', status === 'failed' ? 'red' : 'yellow', true);
    this.io.out(
      `${head} ${this.leader(dots)} ${this.paint(memory ? `${runTime} ${memory}` : runTime, 'gray')} ${result}`,
    );
  }

  // Laravel's runTimeForHumans since the job's RUNNING line; forgets when that was.
  private runTime(job: RedisJob): string {
    return runTimeForHumans(this.runMs(job));
  }

  // Milliseconds since the job's RUNNING line; forgets when that was.
  private runMs(job: RedisJob): number {
    const now = performance.now();
    const ms = now - (this.startedAt.get(job) ?? now);
    this.startedAt.delete(job);
    return ms;
  }

  // writeQueueStatus: `  <time> Queue <name> PAUSED|RESUMED`, or a JSON line.
  private queueStatus(queue: string, status: 'paused' | 'resumed'): void {
    const now = Date.now();
    if (this.options.json) {
      this.io.out(
        printableJson({ level: 'warning', queue, status, timestamp: isoTimestamp(now, this.options.timezone) }),
      );
      return;
    }
    const label = status === 'paused' ? this.paint('PAUSED', 'yellow', true) : this.paint('RESUMED', 'green', true);
    this.io.out(
      `  ${this.paint(formatDateTime(now, this.options.timezone), 'gray')} Queue ${this.paint(printable(queue), 'blue')} ${label}`,
    );
  }

  // artisan's --json fields, empty ones left out as array_filter leaves them out.
  private jsonLine(job: RedisJob, status: string, exception?: Error): void {
    const now = Date.now();
    const log: Record<string, unknown> = {
      level: status === 'starting' || status === 'success' ? 'info' : 'warning',
      id: job.getJobId(),
      uuid: job.uuid(),
      connection: job.getConnectionName(),
      queue: job.getQueue(),
      job: job.resolveName(),
      status,
      result: job.isDeleted() ? 'deleted' : job.isReleased() ? 'released' : job.hasFailed() ? 'failed' : '',
      attempts: job.attempts(),
      exception: exception ? exception.name : '',
      message: exception ? exception.message : null,
      timestamp: isoTimestamp(now, this.options.timezone),
    };
    for (const [key, value] of Object.entries(log))
      if (value === '' || value === null || value === undefined || value === 0) delete log[key];
    if (status === 'starting') this.startedAt.set(job, performance.now());
    else {
      log.duration = Math.round((performance.now() - (this.startedAt.get(job) ?? performance.now())) * 1000) / 1e6;
      this.startedAt.delete(job);
    }
    this.io.out(printableJson(log));
  }

  // A failure's reason and the uuid to look it up with, on stderr, where artisan's log would have it.
  private note(job: RedisJob, what: string): void {
    if (this.options.json) return;
    const uuid = job.uuid();
    this.io.err(
      printable(`larq work: ${job.resolveName()}${uuid ? ` [${uuid}]` : ''} (attempt ${job.attempts()}) ${what}`),
    );
  }
}

function isStringJob(job: RedisJob): boolean {
  try {
    return !job.payload().isObjectJob;
  } catch {
    return false;
  }
}

function firstLine(error: Error): string {
  return error.message.split('\n')[0];
}

// Laravel's runTimeForHumans: milliseconds with two decimals below a second, else seconds.
function runTimeForHumans(ms: number): string {
  return ms >= 1000 ? `${(ms / 1000).toFixed(2)}s` : hundredthsOfMs(Math.round(ms * 100));
}

// A run time given in hundredths of a millisecond, as runTimeForHumans writes one below a second.
function hundredthsOfMs(hundredths: number): string {
  const fraction = hundredths % 100;
  return `${(hundredths - fraction) / 100}.${fraction < 10 ? '0' : ''}${fraction}ms`;
}

// `Y-m-d\TH:i:s.uP` in the app's timezone, as artisan's JSON lines stamp them.
function isoTimestamp(ms: number, timezone: string): string {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', {
      timeZone: timezone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      timeZoneName: 'longOffset',
    })
      .formatToParts(new Date(ms))
      .map((p) => [p.type, p.value]),
  );
  const offset = parts.timeZoneName === 'GMT' ? '+00:00' : String(parts.timeZoneName).replace('GMT', '');
  const micros = String((ms % 1000) * 1000).padStart(6, '0');
  return `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}.${micros}${offset}`;
}
