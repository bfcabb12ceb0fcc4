// Reading and emptying larq's two lists of failed jobs in Redis for the CLI (larq failed, retry, forget,
// flush, size, monitor): `<queue>:larq:failed` (failures the failed-job store could not take) and
// `<queue>:larq:invalid` (payloads the pop script could not decode). Entries are shown as failed-job
// records, with the payload uuid as their id; a quarantined payload without a uuid gets an id made from
// its bytes, so it can still be named.
import { isUtf8 } from 'buffer';
import { createHash } from 'crypto';
import type Redis from 'ioredis';
import type { Cluster } from 'ioredis';
import type { KeySpace } from '../redis/keys';
import type { FailedJobRecord } from './FailedJobProvider';
import { decodeFailedEntry, type FailedListEntry } from './FailedList';
import { payloadUuid } from './payloadUuid';

/** One entry of a failed or quarantine list, as a failed-job record plus where it is. */
export interface RedisFailedJob extends FailedJobRecord {
  /** `failed`: the store could not record it; `invalid`: the pop script quarantined it. */
  kind: FailedListEntry['kind'];
  /** The list holding it (prefixed). */
  key: string;
  /** The entry as stored, for LREM. */
  raw: Buffer;
  /** The payload's exact bytes. */
  bytes: Buffer;
}

const SUFFIX = { failed: ':larq:failed', invalid: ':larq:invalid' } as const;

/** larq's failed and quarantine lists of every queue under one prefix. */
export class RedisFailedLists {
  constructor(
    private readonly client: Redis | Cluster,
    private readonly keys: KeySpace,
    /** The connection name entries without a header are shown under. */
    private readonly connectionName = 'redis',
  ) {}

  /** Every entry of every queue's lists: failed ones first, then quarantined ones. */
  async all(): Promise<RedisFailedJob[]> {
    const out: RedisFailedJob[] = [];
    for (const kind of ['failed', 'invalid'] as const) {
      for (const key of await this.listKeys(kind)) {
        for (const raw of await this.client.lrangeBuffer(key, 0, -1))
          out.push(this.toJob(decodeFailedEntry(raw, kind), key));
      }
    }
    return out;
  }

  /** The entry with this id, or null. */
  async find(id: string | number): Promise<RedisFailedJob | null> {
    return (await this.all()).find((job) => job.id === String(id)) ?? null;
  }

  /** Remove one entry; true when it was still there. */
  async forget(job: RedisFailedJob): Promise<boolean> {
    return (await this.client.lrem(job.key, 1, job.raw)) > 0;
  }

  /**
   * Remove the failed-list entries (not quarantined ones) whose failure `recorded` (the store's records)
   * already holds: when a store's insert landed but its reply was lost, the worker kept the job here too,
   * and a failure has one home. Returns how many entries went.
   */
  async dropRecorded(recorded: readonly FailedJobRecord[]): Promise<number> {
    const uuids = new Set(recorded.map((r) => r.uuid ?? String(r.id)));
    let dropped = 0;
    for (const job of await this.all()) {
      if (job.kind === 'failed' && uuids.has(String(job.id)) && (await this.forget(job))) dropped++;
    }
    return dropped;
  }

  /** Remove every failed-list entry of this uuid (its failure is being retried or forgotten from the store). */
  async forgetUuid(uuid: string): Promise<number> {
    return this.dropRecorded([{ id: uuid, connection: '', queue: '', payload: '', exception: '', failed_at: '' }]);
  }

  /**
   * Push `payload` onto the job's queue as Laravel's push script does (RPUSH, then a notify token) and
   * remove the entry, in one MULTI: the job is in exactly one place whatever happens.
   */
  async retry(job: RedisFailedJob, payload: string | Buffer): Promise<void> {
    const keys = this.keys.forQueue(job.queue);
    const replies = await this.client
      .multi()
      .rpush(keys.queue, payload)
      .rpush(keys.notify, 1)
      .lrem(job.key, 1, job.raw)
      .exec();
    const error = replies?.find(([err]) => err)?.[0];
    if (replies === null || error) throw error ?? new Error(`retry of ${String(job.id)} was aborted`);
  }

  /** Push `payload` (bytes kept exactly) onto `queue` as Laravel's push script does: RPUSH, then a notify token. */
  async push(queue: string, payload: string | Buffer): Promise<void> {
    const keys = this.keys.forQueue(queue);
    const replies = await this.client.multi().rpush(keys.queue, payload).rpush(keys.notify, 1).exec();
    const error = replies?.find(([err]) => err)?.[0];
    if (replies === null || error) throw error ?? new Error(`push to ${keys.queue} was aborted`);
  }

  /** Entries per queue name: how many failed and quarantined. */
  async counts(queue: string): Promise<{ failed: number; invalid: number }> {
    const keys = this.keys.forQueue(queue);
    const [failed, invalid] = await Promise.all([this.client.llen(keys.failed), this.client.llen(keys.invalid)]);
    return { failed, invalid };
  }

  /** Delete every failed and quarantine list; the number of entries deleted. */
  async flush(): Promise<number> {
    let total = 0;
    for (const kind of ['failed', 'invalid'] as const) {
      for (const key of await this.listKeys(kind)) {
        const [[, length]] = ((await this.client.multi().llen(key).del(key).exec()) ?? [[null, 0]]) as [
          Error | null,
          number,
        ][];
        total += length;
      }
    }
    return total;
  }

  // Every list of `kind`. A SCAN walks the keys of one server only: on a cluster each primary holds the
  // lists of its own slots, so every primary is scanned.
  private async listKeys(kind: 'failed' | 'invalid'): Promise<string[]> {
    const pattern = `${globEscape(this.keys.key('queues:'))}*${SUFFIX[kind]}`;
    const found = new Set<string>();
    for (const server of await this.servers()) {
      let cursor = '0';
      do {
        const [next, batch] = await server.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
        for (const key of batch) found.add(key);
        cursor = next;
      } while (cursor !== '0');
    }
    return [...found].sort();
  }

  // The servers to scan: the client itself, or every primary of a cluster. A cluster client knows its
  // primaries once it has read the slot map: a PING waits for that (it is queued until the client is ready).
  private async servers(): Promise<Redis[]> {
    if (!this.client.isCluster) return [this.client as Redis];
    const cluster = this.client as Cluster;
    if (cluster.status !== 'ready') await cluster.ping();
    return cluster.nodes('master');
  }

  private toJob(entry: FailedListEntry, key: string): RedisFailedJob {
    const h = entry.header ?? {};
    const queue = h.queue ?? this.queueOf(key, entry.kind);
    const id =
      h.uuid ??
      payloadUuid(entry.payload) ??
      `invalid-${createHash('sha1').update(entry.raw).digest('hex').slice(0, 12)}`;
    const exception =
      h.exception ??
      `larq quarantined this payload: the pop script could not reserve it (${h.reason ?? 'no reason kept'})`;
    return {
      id,
      uuid: id,
      connection: h.connection ?? this.connectionName,
      queue,
      payload: entry.payload.toString('utf8'),
      ...(isUtf8(entry.payload) ? {} : { payloadBytes: entry.payload }),
      exception,
      failed_at: h.failed_at ?? '',
      kind: entry.kind,
      key,
      raw: entry.raw,
      bytes: entry.payload,
    };
  }

  private queueOf(key: string, kind: 'failed' | 'invalid'): string {
    const name = key.slice(this.keys.key('queues:').length, key.length - SUFFIX[kind].length);
    // 13.x on a cluster wraps the name in a hash tag (queueKey); the queue's own name is inside.
    return this.keys.cluster && /^\{[^}]*\}$/.test(name) ? name.slice(1, -1) : name;
  }
}

function globEscape(text: string): string {
  return text.replace(/[*?[\]\\]/g, '\\$&');
}
