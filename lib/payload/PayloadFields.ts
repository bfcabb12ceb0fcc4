// The payload's top-level array as Laravel builds it: fields in insertion order, and a field set again
// keeps its place (PHP's array assignment, which `createPayloadUsing` merges rely on). It stands in for a
// Map handed to phpJsonEncode because a payload is built for every push: the envelope's own key texts
// are escaped once here, and the uuid and id larq draws are known to need no escaping at all.
import { phpJsonEncode, phpJsonEncodeMember } from './json';

const ENVELOPE_KEYS = [
  'uuid', 'displayName', 'job', 'maxTries', 'maxExceptions', 'failOnTimeout', 'backoff', 'timeout', 'retryUntil',
  'deleteWhenMissingModels', 'data', 'createdAt', 'id', 'attempts', 'delay',
];
const KEY_JSON: ReadonlyMap<string, string> = new Map(ENVELOPE_KEYS.map((key) => [key, JSON.stringify(key)]));

/** A string made only of letters, digits and dashes (a drawn uuid or job id): its JSON text is itself, quoted. */
export class PlainText {
  constructor(readonly text: string) {}
}

/** An ordered set of payload fields, written as PHP's json_encode writes the array. */
export class PayloadFields {
  private readonly keys: string[] = [];
  private readonly values: unknown[] = [];

  /** Append a field the payload cannot hold yet (the envelope's own, before any hook key). */
  add(key: string, value: unknown): void {
    this.keys.push(key);
    this.values.push(value);
  }

  /** Set a field: replaced in place when the payload holds it, else appended. */
  set(key: string, value: unknown): void {
    const at = this.keys.indexOf(key);
    if (at < 0) this.add(key, value);
    else this.values[at] = value;
  }

  /** The JSON text; a field whose value is undefined is left out, as phpJsonEncode leaves it out of a Map. */
  toJson(): string {
    let out = '';
    for (let i = 0; i < this.keys.length; i++) {
      const value = this.values[i];
      if (value === undefined) continue;
      const key = this.keys[i];
      // the key before the value, so the first error is the one phpJsonEncode would report
      const keyJson = KEY_JSON.get(key) ?? phpJsonEncode(key);
      out += `${out === '' ? '{' : ','}${keyJson}:${value instanceof PlainText ? `"${value.text}"` : phpJsonEncodeMember(value)}`;
    }
    return out === '' ? '{}' : `${out}}`;
  }
}
