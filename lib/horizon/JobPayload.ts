// Horizon's view of a payload string (Horizon 5.29.1 `JobPayload`): the record id (`uuid`, else `id`),
// tags, silencing and retry fields, and `prepare`, which adds the keys Horizon's RedisQueue pushes with
// and re-encodes the payload with PHP's plain `json_encode` (non-ASCII as \uXXXX, `/` as \/).
import { phpJsonDecode, phpJsonEncode } from '../payload/json';
import { phpFloatString } from './microtime';

/** What `prepare` adds: `JobPayload::prepare`'s type, tags, silenced and pushedAt. */
export interface HorizonPushFields {
  /** job, broadcast, event, mail or notification. */
  type: string;
  /** The job's tags (Tags::for), appended to any the payload has. */
  tags: readonly string[];
  silenced: boolean;
}

// The queued wrappers Horizon gives a type of their own (`JobPayload::determineType`).
const TYPES: Record<string, string> = {
  'Illuminate\\Broadcasting\\BroadcastEvent': 'broadcast',
  'Illuminate\\Events\\CallQueuedListener': 'event',
  'Illuminate\\Mail\\SendQueuedMailable': 'mail',
  'Illuminate\\Notifications\\SendQueuedNotifications': 'notification',
};

/** Horizon's `type` for a job of class `commandName`. */
export function jobType(commandName: string | undefined): string {
  return (commandName !== undefined && TYPES[commandName]) || 'job';
}

/** A payload as Horizon reads it. */
export class JobPayload {
  /** The decoded payload, as PHP's `json_decode($value, true)` would hold it. */
  readonly decoded: Record<string, unknown>;

  constructor(readonly value: string) {
    const decoded = phpJsonDecode(value);
    this.decoded =
      decoded !== null && typeof decoded === 'object' && !Array.isArray(decoded)
        ? (decoded as Record<string, unknown>)
        : {};
  }

  /** The record id: the payload's `uuid`, else its `id`. */
  id(): string {
    return String(this.decoded.uuid ?? this.decoded.id ?? '');
  }

  /** The payload's tags, [] when it has none. */
  tags(): string[] {
    const tags = this.decoded.tags;
    if (Array.isArray(tags)) return tags.map(String);
    // A list re-encoded by Laravel's pop (cjson) comes back as an object: {} when empty.
    return tags !== null && typeof tags === 'object' ? Object.values(tags).map(String) : [];
  }

  /** Whether this job is a dashboard retry of another (`retry_of`). */
  isRetry(): boolean {
    return this.decoded.retry_of !== undefined && this.decoded.retry_of !== null;
  }

  /** The id of the job this one retries. */
  retryOf(): string | null {
    return this.isRetry() ? String(this.decoded.retry_of) : null;
  }

  /** The payload's `silenced`. */
  isSilenced(): boolean {
    return this.decoded.silenced === true;
  }

  /** The payload's `displayName` (the record's `name`). */
  displayName(): string {
    return String(this.decoded.displayName ?? '');
  }

  /** The payload's `data.commandName`. */
  commandName(): string | undefined {
    const data = this.decoded.data as Record<string, unknown> | undefined;
    return typeof data?.commandName === 'string' ? data.commandName : undefined;
  }

  /**
   * The payload Horizon's RedisQueue pushes: `id` set to the `uuid` (RedisQueue::createPayloadArray),
   * then type, tags (the payload's own first), silenced and pushedAt (a string) merged in, as
   * `JobPayload::prepare` does, and the whole re-encoded as PHP's `json_encode` would.
   */
  static prepare(payload: string, fields: HorizonPushFields, nowSeconds: number): JobPayload {
    const decoded = new JobPayload(payload).decoded;
    if (decoded.uuid !== undefined && decoded.id !== undefined) decoded.id = decoded.uuid;
    const own = Array.isArray(decoded.tags) ? decoded.tags : [];
    Object.assign(decoded, {
      type: fields.type,
      tags: [...own, ...fields.tags],
      silenced: fields.silenced,
      pushedAt: phpFloatString(nowSeconds),
    });
    return new JobPayload(phpJsonEncode(asPhpArrays(decoded), { unescapedUnicode: false }));
  }
}

// json_decode($json, true) then json_encode: an object whose keys are 0..n-1 in order (the empty one
// too) becomes a PHP list and is written back as a JSON array.
function asPhpArrays(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(asPhpArrays);
  if (value === null || typeof value !== 'object' || value instanceof Map) return value;
  const entries = Object.entries(value as Record<string, unknown>);
  const isList = entries.every(([k], i) => k === String(i));
  const mapped = entries.map(([k, v]) => [k, asPhpArrays(v)] as const);
  return isList ? mapped.map(([, v]) => v) : Object.fromEntries(mapped);
}
