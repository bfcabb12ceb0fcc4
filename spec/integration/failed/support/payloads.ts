// Payload strings that a store could spoil by decoding and re-encoding them or by a lossy charset:
// raw UTF-8 (2-, 3- and 4-byte), `\/`, `\u0000`, `\u00e9` escapes, an int beyond 2^53, a float in PHP's
// exponent form, numeric object keys and unusual spacing. Stores must keep them byte for byte.
import { randomUUID } from 'crypto';

/** A Laravel-shaped object-job payload with every awkward feature, for uuid `uuid`. */
export function trickyPayload(uuid: string = randomUUID()): string {
  return String.raw`{"uuid":"${uuid}","displayName":"App\\Jobs\\Tricky","job":"Illuminate\\Queue\\CallQueuedHandler@call","maxTries":null,"maxExceptions":null,"failOnTimeout":false,"backoff":null,"timeout":null,"retryUntil":null,"data":{"commandName":"App\\Jobs\\Tricky","command":"O:15:\"App\\Jobs\\Tricky\":1:{s:4:\"text\";s:8:\"caf\u00e9 \/x\";}"},"extra":{"text":"café 日本 🎉 \/path\/to","nul":"a\u0000b","escaped":"\u00e9\u2028\t\"q\"","big":12345678901234567890,"float":1.0e+25,"10":"ten","2":"two"} , "id":"${uuid.slice(0, 8)}","attempts":0}`;
}

/** A small valid payload with uuid `uuid`. */
export function simplePayload(uuid: string = randomUUID(), job = 'App\\Jobs\\Simple'): string {
  return JSON.stringify({ uuid, job, data: { n: 1 }, attempts: 0 });
}

/** True when both strings have the same UTF-8 bytes. */
export function sameBytes(a: string, b: string): boolean {
  return Buffer.from(a, 'utf8').equals(Buffer.from(b, 'utf8'));
}
