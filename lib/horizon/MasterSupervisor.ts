// A larq worker as Horizon sees its own processes: a master supervisor record and one supervisor record,
// refreshed on Horizon's heartbeat (Horizon 5.29.1 `RedisMasterSupervisorRepository::update`,
// `RedisSupervisorRepository::update`), so "Current workload", "Supervisors", wait times and long-wait
// detection count Node's processes. horizon:pause/continue/terminate signal the recorded pid (USR2, CONT,
// TERM) on the same host, which larq work already obeys; terminate also sets queue:restart.
//
// Invariants: the master's name starts with Str::slug(gethostname()) as MasterSupervisor::name() does
// (horizon:pause finds masters by that prefix); its environment is "larq", which names no plan of the PHP
// app's config/horizon.php (a matching one would make the dashboard add phantom inactive supervisors);
// records expire (15 s, 30 s) unless refreshed, and the dashboard ignores masters older than 14 s and
// supervisors older than 29 s, so a refresh every second keeps both listed while the worker lives.
import { randomBytes } from 'crypto';
import { hostname } from 'os';
import type { Cluster, Redis } from 'ioredis';
import { phpJsonEncode } from '../payload/json';
import { slug } from '../support/Str';
import type { HorizonKeys } from './HorizonKeys';

/** What the records say about the worker. */
export interface SupervisedWorker {
  /** The queue connection name (`redis`). */
  connection: string;
  /** The worker's comma-separated queue list, as one Horizon process pool works it. */
  queue: string;
  /** Jobs in flight at once: Horizon's process count for the pool. */
  processes: number;
  /** The worker's options, for the supervisor's `options` record. */
  options: {
    backoff: number | string;
    maxTries: number;
    maxTime: number;
    maxJobs: number;
    memory: number;
    sleep: number;
    timeout: number;
    rest: number;
    force: boolean;
    name: string;
  };
}

/** Horizon's heartbeat interval: MasterSupervisor::monitor loops once a second. */
const HEARTBEAT_MS = 1000;
/** How often the records a PHP master would trim are trimmed (Horizon's TrimRecentJobs: once a minute). */
const TRIM_EVERY_MS = 60_000;

/** Horizon's master and supervisor records for one larq worker process. */
export class MasterSupervisor {
  /** The master's name: `Str::slug(gethostname()) . '-' . Str::random(4)`, as Horizon names its own. */
  readonly name: string;
  /** The supervisor's name: `{master}:larq`. */
  readonly supervisorName: string;
  private working = true;
  private timer: NodeJS.Timeout | undefined;
  private lastTrim = 0;
  private readonly onPause = () => this.setWorking(false);
  private readonly onContinue = () => this.setWorking(true);

  constructor(
    private readonly client: Redis | Cluster,
    private readonly keys: HorizonKeys,
    private readonly worker: SupervisedWorker,
    private readonly trim: () => Promise<void>,
    private readonly onError: (error: Error) => void,
    private readonly pid = process.pid,
  ) {
    this.name = `${slug(hostname(), '-', 'hostname')}-${randomBytes(3).toString('base64url').slice(0, 4)}`;
    this.supervisorName = `${this.name}:larq`;
  }

  /** Write the records now and on every heartbeat; follow SIGUSR2/SIGCONT into their status. */
  start(): void {
    process.on('SIGUSR2', this.onPause);
    process.on('SIGCONT', this.onContinue);
    const beat = () => {
      this.update().catch(this.onError);
      if (Date.now() - this.lastTrim >= TRIM_EVERY_MS) {
        this.lastTrim = Date.now();
        this.trim().catch(this.onError);
      }
    };
    beat();
    this.timer = setInterval(beat, HEARTBEAT_MS);
    this.timer.unref();
  }

  /** Stop the heartbeat and remove both records (RedisMasterSupervisorRepository::forget). */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    process.off('SIGUSR2', this.onPause);
    process.off('SIGCONT', this.onContinue);
    await this.client
      .multi()
      .del(this.keys.key(`supervisor:${this.supervisorName}`), this.keys.key(`master:${this.name}`))
      .zrem(this.keys.key('supervisors'), this.supervisorName)
      .zrem(this.keys.key('masters'), this.name)
      .exec();
  }

  /** Refresh both records once. */
  async update(): Promise<void> {
    const now = Math.floor(Date.now() / 1000);
    const status = this.working ? 'running' : 'paused';
    const master = this.keys.key(`master:${this.name}`);
    const supervisor = this.keys.key(`supervisor:${this.supervisorName}`);
    const w = this.worker;
    const pipe = this.client.pipeline();
    pipe.hset(supervisor, {
      name: this.supervisorName,
      master: this.name,
      pid: String(this.pid),
      status,
      processes: phpJsonEncode({ [`${w.connection}:${w.queue}`]: w.processes }),
      options: phpJsonEncode(this.options()),
    });
    pipe.zadd(this.keys.key('supervisors'), now, this.supervisorName);
    pipe.expire(supervisor, 30);
    pipe.hset(master, {
      name: this.name,
      environment: 'larq',
      pid: String(this.pid),
      status,
      supervisors: phpJsonEncode([this.supervisorName]),
    });
    pipe.zadd(this.keys.key('masters'), now, this.name);
    pipe.expire(master, 15);
    const replies = await pipe.exec();
    const failed = replies?.find(([error]) => error !== null);
    if (failed) throw failed[0] as Error;
  }

  private setWorking(working: boolean): void {
    this.working = working;
    this.update().catch(this.onError);
  }

  // SupervisorOptions::toArray, with `queue` as a string and one fixed pool (balance off).
  private options(): Record<string, unknown> {
    const o = this.worker.options;
    return {
      balance: 'off',
      connection: this.worker.connection,
      queue: this.worker.queue,
      backoff: o.backoff,
      force: o.force,
      maxProcesses: this.worker.processes,
      minProcesses: this.worker.processes,
      maxTries: o.maxTries,
      maxTime: o.maxTime,
      maxJobs: o.maxJobs,
      memory: o.memory,
      nice: 0,
      name: this.supervisorName,
      workersName: o.name,
      sleep: o.sleep,
      timeout: o.timeout,
      balanceCooldown: 3,
      balanceMaxShift: 1,
      parentId: this.pid,
      rest: o.rest,
      autoScalingStrategy: 'time',
    };
  }
}
