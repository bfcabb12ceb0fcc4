// Writer for PHP's serialize() format: the byte-exact inverse of unserialize.ts.
// References are written as the model holds them (kind and slot index); the writer counts slots the way
// PHP does so that an index pointing nowhere, or at something else than its target, is caught here
// instead of failing inside a PHP worker.
import { SerializeError } from '../errors';
import { formatPhpFloat } from './float';
import { decodeUtf8 } from './unserialize';
import { PhpArray, PhpBytes, PhpCustomObject, PhpEnum, PhpObject, PhpProperty, PhpReference, PhpValue } from './values';

const INT_MIN = -(2n ** 63n);
const INT_MAX = 2n ** 63n - 1n;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Serialize to PHP's format as bytes; PhpBytes may make the result invalid UTF-8. */
export function serializeToBuffer(value: PhpValue): Buffer {
  const writer = new Writer();
  writer.value(value);
  return Buffer.concat(writer.chunks);
}

/** Serialize to PHP's format as a JS string; throws SerializeError when the bytes are not valid UTF-8. */
export function serialize(value: PhpValue): string {
  const text = decodeUtf8(serializeToBuffer(value));
  if (text === undefined) throw new SerializeError('the serialized value is not valid UTF-8 (it holds PhpBytes); use serializeToBuffer');
  return text;
}

/** The serialized property name PHP uses for a visibility (§7.2): `name`, `\0*\0name` or `\0Class\0name`. */
export function mangle(property: Omit<PhpProperty, 'value'>, className: string): string {
  switch (property.visibility) {
    case 'public':
      return property.name;
    case 'protected':
      return `\0*\0${property.name}`;
    case 'private':
      if (!property.declaringClass) {
        throw new SerializeError(`private property ${property.name} of ${className} has no declaringClass`);
      }
      return `\0${property.declaringClass}\0${property.name}`;
  }
}

class Writer {
  readonly chunks: Buffer[] = [];
  private readonly slots: PhpValue[] = [];
  private readonly open = new Set<PhpArray | PhpObject>();

  value(value: PhpValue): void {
    if (value instanceof PhpReference) return this.reference(value);
    this.slots.push(value);
    if (value === null) return this.text('N;');
    switch (typeof value) {
      case 'boolean':
        return this.text(value ? 'b:1;' : 'b:0;');
      case 'bigint':
        return this.text(`i:${checkInt(value)};`);
      case 'number':
        return this.text(`d:${formatPhpFloat(value, 'E')};`);
      case 'string':
        return this.bytes('s', utf8Bytes(value, 'a string'), ';');
    }
    if (value instanceof PhpBytes) return this.bytes('s', value.bytes, ';');
    if (value instanceof PhpArray) return this.array(value);
    if (value instanceof PhpObject) return this.object(value);
    if (value instanceof PhpEnum) return this.enumCase(value);
    if (value instanceof PhpCustomObject) return this.custom(value);
    throw new SerializeError(`not a PHP value: ${describe(value)}`);
  }

  private array(array: PhpArray): void {
    this.enter(array, 'array');
    this.text(`a:${array.size}:{`);
    for (const [key, item] of array.entries) {
      if (typeof key === 'bigint') this.text(`i:${checkInt(key)};`);
      else this.bytes('s', utf8Bytes(key, 'an array key'), ';');
      this.value(item);
    }
    this.text('}');
    this.open.delete(array);
  }

  private object(object: PhpObject): void {
    this.enter(object, object.className);
    this.bytes('O', utf8Bytes(object.className, 'a class name'), `:${object.properties.length}:{`);
    const seen = new Set<string>();
    for (const property of object.properties) {
      const name = mangle(property, object.className);
      if (seen.has(name)) throw new SerializeError(`property ${property.name} of ${object.className} appears twice with the same visibility`);
      seen.add(name);
      this.bytes('s', utf8Bytes(name, 'a property name'), ';');
      this.value(property.value);
    }
    this.text('}');
    this.open.delete(object);
  }

  private enumCase(value: PhpEnum): void {
    if (!value.className || !value.caseName || value.className.includes(':') || value.caseName.includes(':')) {
      throw new SerializeError(`invalid enum case ${value.className}:${value.caseName}`);
    }
    this.bytes('E', utf8Bytes(`${value.className}:${value.caseName}`, 'an enum case'), ';');
  }

  private custom(value: PhpCustomObject): void {
    this.bytes('C', utf8Bytes(value.className, 'a class name'), `:${value.data.length}:{`);
    this.chunks.push(value.data);
    this.text('}');
  }

  private reference(ref: PhpReference): void {
    const label = `${ref.kind}:${ref.index}`;
    if (!Number.isSafeInteger(ref.index) || ref.index < 1 || ref.index > this.slots.length) {
      throw new SerializeError(`${label} refers to no earlier value (${this.slots.length} written so far)`);
    }
    const slot = this.slots[ref.index - 1];
    if (ref.target !== undefined && !Object.is(ref.target, slot)) {
      throw new SerializeError(`${label} points at a different value than its target`);
    }
    if (ref.kind === 'r') {
      if (!(slot instanceof PhpObject || slot instanceof PhpEnum || slot instanceof PhpCustomObject)) {
        throw new SerializeError(`${label} must point at an object`);
      }
      this.slots.push(slot);
    }
    this.text(`${label};`);
  }

  private enter(container: PhpArray | PhpObject, what: string): void {
    // A container inside itself can only be written through a PhpReference, as PHP does.
    if (this.open.has(container)) throw new SerializeError(`${what} contains itself; use a PhpReference for the cycle`);
    this.open.add(container);
  }

  private bytes(letter: string, bytes: Buffer, after: string): void {
    this.text(`${letter}:${bytes.length}:"`);
    this.chunks.push(bytes);
    this.text(`"${after}`);
  }

  private text(ascii: string): void {
    this.chunks.push(Buffer.from(ascii, 'latin1'));
  }
}

function checkInt(n: bigint): bigint {
  if (n < INT_MIN || n > INT_MAX) throw new SerializeError(`integer ${n} is outside PHP's 64-bit range`);
  return n;
}

function utf8Bytes(text: string, what: string): Buffer {
  if (LONE_SURROGATE.test(text)) throw new SerializeError(`${what} holds a lone UTF-16 surrogate, which has no UTF-8 bytes`);
  return Buffer.from(text, 'utf8');
}

function describe(value: unknown): string {
  if (typeof value === 'object' && value !== null) return `an instance of ${value.constructor?.name ?? 'Object'}`;
  return typeof value;
}
