// Reading larq's quarantine list in specs: each entry carries the pop script's reason, then the payload.
import { expect } from 'chai';
import type Redis from 'ioredis';
import { decodeFailedEntry } from '../../lib/failed/FailedList';

/** The payloads of the quarantine list `key`, in order, after checking that each kept a reason. */
export async function quarantinedPayloads(client: Redis, key: string): Promise<string[]> {
  const entries = (await client.lrangeBuffer(key, 0, -1)).map((raw) => decodeFailedEntry(raw, 'invalid'));
  for (const entry of entries)
    expect(entry.header?.reason, `reason kept with ${entry.payload.toString()}`).to.be.a('string').and.not.equal('');
  return entries.map((e) => e.payload.toString());
}
