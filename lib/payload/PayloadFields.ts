// The payload's top-level array as Laravel builds it: fields in insertion order, and a field set again
// keeps its place (PHP's array assignment, which `createPayloadUsing` merges rely on). It stands in for a
// Map handed to phpJsonEncode because a payload is built for every push: the envelope's own key texts
// are escaped once here, and values whose JSON text is known ahead (the uuid and id larq draws, the
// command as serializeToJsonString writes it) skip phpJsonEncode. Without hooks no key comes twice, and
// PayloadWriter writes each field as it comes instead of keeping them.
import { phpJsonEncode, phpJsonEncodeMember } from './json';

/** The envelope's own keys, each with its JSON text and the separators around it ready. */
export class EnvelopeKey {
  /** `{"key":`, for the first field. */
  readonly first: string;
  /** `,"key":`, for the others. */
  readonly next: string;

  constructor(readonly name: string) {
    this.first = `{${JSON.stringify(name)}:`;
    this.next = `,${JSON.stringify(name)}:`;
  }
}

/** The envelope's own keys; the order fields are written in is createPayload's. */
export const KEYS = {
  uuid: new EnvelopeKey('uuid'),
  displayName: new EnvelopeKey('displayName'),
  job: new EnvelopeKey('job'),
  maxTries: new EnvelopeKey('maxTries'),
  maxExceptions: new EnvelopeKey('maxExceptions'),
  failOnTimeout: new EnvelopeKey('failOnTimeout'),
  backoff: new EnvelopeKey('backoff'),
  timeout: new EnvelopeKey('timeout'),
  retryUntil: new EnvelopeKey('retryUntil'),
  deleteWhenMissingModels: new EnvelopeKey('deleteWhenMissingModels'),
  data: new EnvelopeKey('data'),
  createdAt: new EnvelopeKey('createdAt'),
  id: new EnvelopeKey('id'),
  attempts: new EnvelopeKey('attempts'),
  delay: new EnvelopeKey('delay'),
} as const;
const BY_NAME: ReadonlyMap<string, EnvelopeKey> = new Map(Object.values(KEYS).map((key) => [key.name, key]));

/**
 * A field value whose JSON text is known without phpJsonEncode. It is asked for its text only when the
 * payload is written, in field order, so an error it throws comes where phpJsonEncode would throw it.
 */
export abstract class KnownJson {
  abstract toJson(): string;
}

/** A string made only of letters, digits and dashes (a drawn uuid or job id): its JSON text is itself, quoted. */
export class PlainText extends KnownJson {
  constructor(readonly text: string) {
    super();
  }

  toJson(): string {
    return `"${this.text}"`;
  }
}

/** A value given as its JSON text, written as it is. */
export class JsonText extends KnownJson {
  constructor(readonly json: string) {
    super();
  }

  toJson(): string {
    return this.json;
  }
}

/** An ordered set of payload fields, written as PHP's json_encode writes the array. */
export class PayloadFields {
  private readonly keys: string[] = [];
  /** The envelope key of each field, or undefined for a hook's key (escaped when written, in order). */
  private readonly known: (EnvelopeKey | undefined)[] = [];
  private readonly values: unknown[] = [];

  /** Append a field the payload cannot hold yet (the envelope's own, before any hook key). */
  add(key: string | EnvelopeKey, value: unknown): void {
    const known = typeof key === 'string' ? BY_NAME.get(key) : key;
    this.keys.push(typeof key === 'string' ? key : key.name);
    this.known.push(known);
    this.values.push(value);
  }

  /** Set a field: replaced in place when the payload holds it, else appended. */
  set(key: string | EnvelopeKey, value: unknown): void {
    const at = this.keys.indexOf(typeof key === 'string' ? key : key.name);
    if (at < 0) this.add(key, value);
    else this.values[at] = value;
  }

  /** The JSON text; a field whose value is undefined is left out, as phpJsonEncode leaves it out of a Map. */
  toJson(): string {
    let out = '';
    for (let i = 0; i < this.keys.length; i++) {
      const value = this.values[i];
      if (value === undefined) continue;
      const known = this.known[i];
      // the key before the value, so the first error is the one phpJsonEncode would report
      const head =
        known !== undefined
          ? out === ''
            ? known.first
            : known.next
          : `${out === '' ? '{' : ','}${phpJsonEncode(this.keys[i])}:`;
      out += `${head}${valueJson(value)}`;
    }
    return out === '' ? '{}' : `${out}}`;
  }
}

/** The fields of a payload no hook adds to, written as they come: the same text as PayloadFields writes. */
export class PayloadWriter {
  private out = '';

  /**
   * Write a field, or leave it out when its value is undefined. It is written at once, so the caller
   * checks its options first: a bad option is then still reported ahead of a value json_encode refuses,
   * as with PayloadFields, which encodes everything at the end. Without hooks no key comes twice.
   */
  add(key: EnvelopeKey, value: unknown): void {
    if (value === undefined) return;
    this.out += `${this.out === '' ? key.first : key.next}${valueJson(value)}`;
  }

  /** Without hooks a key set is not there yet: the same as add(). */
  set(key: EnvelopeKey, value: unknown): void {
    this.add(key, value);
  }

  toJson(): string {
    return this.out === '' ? '{}' : `${this.out}}`;
  }
}

// A field's value as JSON: its known text, else phpJsonEncode's, as a member of the payload.
function valueJson(value: unknown): string {
  return value instanceof KnownJson ? value.toJson() : phpJsonEncodeMember(value);
}
