// Laravel's Encrypter: the format of encrypted job commands (`ShouldBeEncrypted`) and of anything else
// Laravel encrypts with APP_KEY. A PHP app must be able to decrypt what this writes and vice versa, so
// the envelope (base64 of {"iv","value","mac","tag"}) and its checks follow Laravel exactly.
import { createCipheriv, createDecipheriv, createHmac, randomBytes, timingSafeEqual } from 'crypto';
import { DecryptError, EncryptError } from '../errors';
import { phpJsonEncode } from '../payload/json';

/** The ciphers Laravel supports (`app.cipher`, case-insensitive). */
export type EncrypterCipher = 'aes-128-cbc' | 'aes-256-cbc' | 'aes-128-gcm' | 'aes-256-gcm';

const CIPHERS: Record<EncrypterCipher, { keyBytes: number; ivBytes: number; aead: boolean }> = {
  'aes-128-cbc': { keyBytes: 16, ivBytes: 16, aead: false },
  'aes-256-cbc': { keyBytes: 32, ivBytes: 16, aead: false },
  'aes-128-gcm': { keyBytes: 16, ivBytes: 12, aead: true },
  'aes-256-gcm': { keyBytes: 32, ivBytes: 12, aead: true },
};

const TAG_BYTES = 16;
const STRICT_BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Laravel's `Illuminate\Encryption\Encrypter`: AES-CBC + HMAC-SHA256 or AES-GCM, with previous keys (11.x+). */
export class Encrypter {
  /** The cipher in use, lower-case. */
  readonly cipher: EncrypterCipher;
  private readonly key: Buffer;
  private readonly previousKeys: Buffer[];

  /**
   * `key` is raw bytes, or a string as in APP_KEY (`base64:…` or raw text). `cipher` defaults to the
   * skeleton's `aes-256-cbc`. `previousKeys` (APP_PREVIOUS_KEYS) are tried after `key` when decrypting.
   */
  constructor(key: string | Buffer, cipher: string = 'aes-256-cbc', previousKeys: (string | Buffer)[] = []) {
    const name = cipher.toLowerCase();
    if (!(name in CIPHERS)) {
      throw new EncryptError(`Unsupported cipher "${cipher}": use one of ${Object.keys(CIPHERS).join(', ')}`);
    }
    this.cipher = name as EncrypterCipher;
    this.key = this.checkedKey(key, 'key');
    this.previousKeys = previousKeys.map((k, i) => this.checkedKey(k, `previous key #${i + 1}`));
  }

  /** Turn an APP_KEY-style string into key bytes: `base64:` prefix means base64, anything else raw UTF-8. */
  static parseKey(key: string | Buffer): Buffer {
    if (Buffer.isBuffer(key)) return key;
    return key.startsWith('base64:') ? Buffer.from(key.slice(7), 'base64') : Buffer.from(key, 'utf8');
  }

  /** A random key of the right size for `cipher`, in `base64:` form. */
  static generateKey(cipher: string = 'aes-256-cbc'): string {
    const spec = CIPHERS[cipher.toLowerCase() as EncrypterCipher];
    return `base64:${randomBytes(spec ? spec.keyBytes : 32).toString('base64')}`;
  }

  /** Laravel's `encrypt($value, $serialize)`: with `serialize` the plaintext is PHP's `s:<bytes>:"…";`. */
  encrypt(value: string | Buffer, serialize: boolean = true): string {
    const bytes = Buffer.isBuffer(value) ? value : Buffer.from(value, 'utf8');
    return this.encryptBytes(serialize ? serializePhpString(bytes) : bytes);
  }

  /** Laravel's `encryptString`: encrypt without serializing. */
  encryptString(value: string | Buffer): string {
    return this.encrypt(value, false);
  }

  /** Laravel's `decrypt($payload, $unserialize)`, for values that are PHP strings; the result as UTF-8 text. */
  decrypt(payload: string, unserialize: boolean = true): string {
    return this.decryptBuffer(payload, unserialize).toString('utf8');
  }

  /** As decrypt, but the raw bytes: PHP strings need not be UTF-8. */
  decryptBuffer(payload: string, unserialize: boolean = true): Buffer {
    const plain = this.decryptBytes(payload);
    return unserialize ? unserializePhpString(plain) : plain;
  }

  /** Laravel's `decryptString`: decrypt without unserializing. */
  decryptString(payload: string): string {
    return this.decrypt(payload, false);
  }

  private checkedKey(key: string | Buffer, what: string): Buffer {
    const bytes = Encrypter.parseKey(key);
    const size = CIPHERS[this.cipher].keyBytes;
    if (bytes.length !== size) {
      throw new EncryptError(`${this.cipher} needs a ${size}-byte key, but the ${what} has ${bytes.length} bytes`);
    }
    return bytes;
  }

  private encryptBytes(plain: Buffer): string {
    const { ivBytes, aead } = CIPHERS[this.cipher];
    const iv = randomBytes(ivBytes);
    let value: string;
    let tag = '';
    let mac = '';
    try {
      if (aead) {
        const c = createCipheriv(this.cipher as 'aes-256-gcm', this.key, iv, { authTagLength: TAG_BYTES });
        value = Buffer.concat([c.update(plain), c.final()]).toString('base64');
        tag = c.getAuthTag().toString('base64');
      } else {
        const c = createCipheriv(this.cipher, this.key, iv);
        value = Buffer.concat([c.update(plain), c.final()]).toString('base64');
      }
    } catch (e) {
      throw new EncryptError('Could not encrypt the data.', { cause: e });
    }
    const ivText = iv.toString('base64');
    if (!aead) mac = hmac(this.key, ivText, value);
    const envelope = phpJsonEncode({ iv: ivText, value, mac, tag }, { unescapedSlashes: true });
    return Buffer.from(envelope, 'utf8').toString('base64');
  }

  private decryptBytes(payload: string): Buffer {
    const { ivBytes, aead } = CIPHERS[this.cipher];
    const envelope = readEnvelope(payload, ivBytes);
    const iv = Buffer.from(envelope.iv, 'base64');
    const tag = envelope.tag ? Buffer.from(envelope.tag, 'base64') : null;
    if (aead && (tag === null || tag.length !== TAG_BYTES)) throw new DecryptError('Could not decrypt the data.');
    if (!aead && tag !== null) {
      throw new DecryptError('Unable to use tag because the cipher algorithm does not support AEAD.');
    }

    let macMatched = false;
    for (const key of [this.key, ...this.previousKeys]) {
      if (!aead) {
        if (!macEquals(hmac(key, envelope.iv, envelope.value), envelope.mac)) continue;
        macMatched = true;
      }
      const plain = this.tryDecrypt(key, iv, envelope.value, tag);
      if (plain) return plain;
    }
    if (!aead && !macMatched) throw new DecryptError('The MAC is invalid.');
    throw new DecryptError('Could not decrypt the data.');
  }

  private tryDecrypt(key: Buffer, iv: Buffer, value: string, tag: Buffer | null): Buffer | null {
    // OpenSSL reads the value as strict base64; Node's decoder would skip bad characters instead
    if (!STRICT_BASE64.test(value)) return null;
    try {
      const data = Buffer.from(value, 'base64');
      if (tag) {
        const d = createDecipheriv(this.cipher as 'aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
        d.setAuthTag(tag);
        return Buffer.concat([d.update(data), d.final()]);
      }
      const d = createDecipheriv(this.cipher, key, iv);
      return Buffer.concat([d.update(data), d.final()]);
    } catch {
      return null;
    }
  }
}

interface Envelope {
  iv: string;
  value: string;
  mac: string;
  tag: string;
}

/** Decode and check the envelope as Laravel's getJsonPayload/validPayload do. */
function readEnvelope(payload: string, ivBytes: number): Envelope {
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(payload, 'base64').toString('utf8'));
  } catch {
    decoded = null;
  }
  const e = decoded as Partial<Record<keyof Envelope, unknown>> | null;
  const valid =
    e !== null &&
    typeof e === 'object' &&
    !Array.isArray(e) &&
    typeof e.iv === 'string' &&
    typeof e.value === 'string' &&
    typeof e.mac === 'string' &&
    (e.tag === undefined || e.tag === null || typeof e.tag === 'string') &&
    STRICT_BASE64.test(e.iv) &&
    Buffer.from(e.iv, 'base64').length === ivBytes;
  if (!valid) throw new DecryptError('The payload is invalid.');
  return { iv: e.iv as string, value: e.value as string, mac: e.mac as string, tag: (e.tag as string | null) ?? '' };
}

function hmac(key: Buffer, iv: string, value: string): string {
  return createHmac('sha256', key)
    .update(iv + value, 'utf8')
    .digest('hex');
}

/** hash_equals: constant time for equal lengths, false otherwise. */
function macEquals(expected: string, given: string): boolean {
  const a = Buffer.from(expected, 'utf8');
  const b = Buffer.from(given, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}

/** PHP serialize() of a string: `s:<byte length>:"<bytes>";`. */
function serializePhpString(bytes: Buffer): Buffer {
  return Buffer.concat([Buffer.from(`s:${bytes.length}:"`, 'latin1'), bytes, Buffer.from('";', 'latin1')]);
}

/** PHP unserialize() of a serialized string, the only kind of value larq encrypts. */
function unserializePhpString(plain: Buffer): Buffer {
  const head = /^s:(\d+):"/.exec(plain.subarray(0, 24).toString('latin1'));
  if (head) {
    const start = head[0].length;
    const end = start + Number(head[1]);
    if (end + 2 === plain.length && plain[end] === 0x22 && plain[end + 1] === 0x3b) return plain.subarray(start, end);
  }
  throw new DecryptError(
    'The decrypted data is not a serialized PHP string; use decryptString() or unserialize = false to read it as is.',
  );
}
