// larq's failed list in Redis, `<queue>:larq:failed`: where a failed job goes when the failed-job store
// cannot take it (down, table missing, a payload its columns cannot hold), so it is never lost between
// Redis and the store. Each entry is one line of JSON describing the failure, then the payload's exact
// bytes: `#larq-failed {...}\n<payload>`. The quarantine list `<queue>:larq:invalid` holds payloads the
// pop script could not decode, in the same shape with the mark `#larq-invalid` (older entries are the
// bare payload). `larq failed` lists both, `larq retry` takes jobs back out of the failed list.
import { randomUUID } from 'crypto';

/** What an entry records about the failure, as a failed-job record would. */
export interface FailedListHeader {
  /** The payload's uuid, or one generated for a payload without (it is then the entry's id). */
  uuid: string;
  /** The queue connection name, e.g. "redis". */
  connection: string;
  /** The bare queue name. */
  queue: string;
  /** PHP's string form of the exception (formatException). */
  exception: string;
  /** `Y-m-d H:i:s`, UTC. */
  failed_at: string;
  /** Why the failed-job store did not take it. */
  reason: string;
}

/** One entry of a failed or quarantine list. */
export interface FailedListEntry {
  /** Which list it came from. */
  kind: 'failed' | 'invalid';
  /** The header; null for a bare entry (a quarantined payload written before reasons were kept). */
  header: Partial<FailedListHeader> | null;
  /** The payload's exact bytes. */
  payload: Buffer;
  /** The entry as stored, what LREM needs to remove it. */
  raw: Buffer;
}

const MARKS = { failed: '#larq-failed ', invalid: '#larq-invalid ' } as const;

/** The entry for a failed job: header line, then the payload bytes untouched. */
export function encodeFailedEntry(header: FailedListHeader, payload: string | Buffer): Buffer {
  const head = Buffer.from(`${MARKS.failed}${JSON.stringify(header)}\n`);
  return Buffer.concat([head, typeof payload === 'string' ? Buffer.from(payload) : payload]);
}

/** Read one entry of a `kind` list; anything without a readable header is taken as a bare payload. */
export function decodeFailedEntry(raw: Buffer, kind: 'failed' | 'invalid'): FailedListEntry {
  const mark = MARKS[kind];
  const newline = raw.indexOf(0x0a);
  if (newline > 0 && raw.subarray(0, mark.length).toString('latin1') === mark) {
    try {
      const header = JSON.parse(raw.subarray(mark.length, newline).toString('utf8')) as unknown;
      if (header !== null && typeof header === 'object' && !Array.isArray(header)) {
        return { kind, header: header as Partial<FailedListHeader>, payload: raw.subarray(newline + 1), raw };
      }
    } catch {
      // not a header after all: a bare payload that happens to start with the mark
    }
  }
  return { kind, header: null, payload: raw, raw };
}

/** A fresh uuid for a failed job whose payload has none (a raw string job from another producer). */
export function generatedUuid(): string {
  return randomUUID();
}
