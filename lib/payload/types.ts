// The shapes of Laravel's job payload (the JSON envelope pushed to Redis): what a producer gives to build
// one, and the typed view a consumer reads.
import type { Clock } from '../clock';

import type { LaravelLine, LaravelRelease, LaravelVersion } from '../LaravelLine';
export type { LaravelLine };

/** The `job` of every object job: Laravel's handler that unserializes and runs `data.command`. */
export const CALL_QUEUED_HANDLER = 'Illuminate\\Queue\\CallQueuedHandler@call';

/** A backoff value as a PHP job declares it: seconds, a DateTime, or (for per-attempt backoff) a list. */
export type BackoffSpec = number | string | Date | (number | string | Date)[];

/** What a PHP object job declares, already reduced to values: the input of createObjectPayload. */
export interface ObjectJobSpec {
  /** The PHP class (`get_class($job)`), written as `data.commandName`. */
  commandName: string;
  /** `serialize($job)` (starting with `O:`) or its encryption, written as `data.command`. */
  command: string;
  /** The job's `displayName()`. Default: commandName. */
  displayName?: string;
  /** `tries`. Default null. */
  maxTries?: number | null;
  /** `maxExceptions`. Default null. */
  maxExceptions?: number | null;
  /** `timeout` in seconds. Default null. */
  timeout?: number | null;
  /** `failOnTimeout`. Default false. */
  failOnTimeout?: boolean;
  /** `backoff`: written as Laravel's comma-joined string, a Date as seconds from now. Default null. */
  backoff?: BackoffSpec | null;
  /** `retryUntil`: Unix seconds or a Date. Default null. */
  retryUntil?: number | Date | null;
  /** `deleteWhenMissingModels` (written for line 13 only). Default false. */
  deleteWhenMissingModels?: boolean;
  /** The Batchable `batchId` (written as `data.batchId` from 12.51). Default null. */
  batchId?: string | null;
}

/** A classic string job (`Queue::push('Class@method', $data)`): the input of createStringPayload. */
export interface StringJobSpec {
  /** `Class@method`, or just `Class` for its `fire` method. */
  job: string;
  /** Handed to the handler as is. Default `''` like Laravel. */
  data?: unknown;
}

/** Envelope values that do not come from the job itself. */
export interface PayloadOptions {
  /** Payload shape: a line (8, 12, 13: the newest release of each) or an exact release. Default 13. */
  line?: LaravelVersion | LaravelRelease;
  /** Default: a random UUID v4. */
  uuid?: string;
  /** The Redis job id. Default: 32 random letters and digits, like `Str::random(32)`. */
  id?: string;
  /** `createdAt` in Unix seconds (12.11+). Default: now, from `clock`. */
  createdAt?: number;
  /** `delay` in seconds as given to `later` (12.11+). Default null. */
  delay?: number | null;
  /** Keys a `createPayloadUsing` hook would add: placed after `data`/`createdAt`, existing keys replaced in place. */
  extra?: Record<string, unknown>;
  /** Source of "now" for `createdAt` and Date backoffs. Default: the system clock. */
  clock?: Clock;
}

/** A read-only typed view of a decoded payload, as Laravel's RedisJob reads it (missing fields are null). */
export interface JobPayload {
  /** The payload string it was read from. */
  readonly raw: string;
  /** The whole decoded object, unknown keys included (hook keys, Horizon's `type`, `tags`...). */
  readonly decoded: Readonly<Record<string, unknown>>;
  /** `job`: `Illuminate\Queue\CallQueuedHandler@call` or a string job's `Class@method`. */
  readonly job: string;
  /** True when `job` is CallQueuedHandler, i.e. `data` holds a serialized command. */
  readonly isObjectJob: boolean;
  readonly uuid: string | null;
  readonly displayName: string | null;
  /** Laravel's resolveName(): `displayName` when non-empty, else `job`. */
  readonly name: string;
  readonly maxTries: number | null;
  readonly maxExceptions: number | null;
  readonly failOnTimeout: boolean;
  /** The comma-separated backoff string, or null. */
  readonly backoff: string | null;
  readonly timeout: number | null;
  /** Unix seconds, or null. */
  readonly retryUntil: number | null;
  readonly deleteWhenMissingModels: boolean;
  /** `data` as decoded (`[]` and `{}` both mean empty). */
  readonly data: unknown;
  /** `data.commandName` when it is a string. */
  readonly commandName: string | null;
  /** `data.command` when it is a string: a serialized object (`O:…`) or an encrypted one. */
  readonly command: string | null;
  /** `data.batchId` when it is a string. */
  readonly batchId: string | null;
  /** Unix seconds (12.11+), or null. */
  readonly createdAt: number | null;
  /** The Redis job id (Horizon: the uuid), or null. */
  readonly id: string | null;
  /** The `attempts` field: 0 as pushed, incremented by each pop. */
  readonly attempts: number;
  /** The dispatch delay in seconds (12.11+), or null. */
  readonly delay: number | null;
}
