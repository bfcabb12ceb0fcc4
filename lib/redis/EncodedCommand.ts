// A Redis command of one key and many arguments (bulk()'s RPUSH of a thousand payloads, the worker's
// ZREM of the jobs it finished), whose arguments are turned into the bytes of Redis' protocol as they
// are added, not when the command is sent.
//
// ioredis writes a command's arguments when it sends it: Buffer.byteLength of each one, then one string of
// all of them, then that string's UTF-8 bytes, flattening each payload (a string built by concatenation)
// and then the string of all of them. Here each argument is written once, straight into a buffer, so a
// payload is garbage as soon as it is added instead of living, with its thousand siblings, until the
// whole call is sent (a scavenge that finds them alive has to copy them).
import { AtMostOnceCommand } from './AtMostOnceCommand';

// A UTF-16 code unit takes at most 3 bytes in UTF-8 (a surrogate pair: 4 bytes for 2 units).
const MAX_BYTES_PER_UNIT = 3;
// `*<count>\r\n`: room for any argument count.
const COUNT_ROOM = 1 + 10 + 2;

/** A command `NAME key arg...` whose arguments are encoded as they are added. */
export class EncodedCommand extends AtMostOnceCommand {
  private bytes: Buffer;
  private used: number;
  private count = 0;

  /**
   * `name` and `key` are sent as given: no ioredis keyPrefix applies (larq refuses connections that have
   * one). The key is also the command's only ioredis argument, so a cluster pipeline finds its slot.
   * `sizeHint`: the bytes the arguments are expected to take (the buffer grows past it if need be).
   * `what`: what the write does, when Redis must run it at most once (see AtMostOnceCommand); null for a
   * write whose replay changes nothing.
   */
  constructor(name: string, key: string, sizeHint = 16 * 1024, what: string | null = null) {
    super(name, [key], { what });
    const nameAndKey = Buffer.from(`$${Buffer.byteLength(name)}\r\n${name}\r\n$${Buffer.byteLength(key)}\r\n${key}\r\n`, 'utf8');
    // The arguments start right after the name and key; the count goes in front of those when sent.
    const start = COUNT_ROOM + nameAndKey.length;
    this.bytes = Buffer.allocUnsafe(start + sizeHint);
    nameAndKey.copy(this.bytes, COUNT_ROOM);
    this.used = start;
  }

  /** How many arguments were added after the key. */
  get size(): number {
    return this.count;
  }

  /** The bytes the command takes so far, about: what a caller sending commands in chunks measures. */
  get byteLength(): number {
    return this.used;
  }

  /** The bytes the buffer holds before it has to grow. */
  get capacity(): number {
    return this.bytes.length;
  }

  /**
   * Whether `arg` can be added without the buffer growing, counting a string at the most bytes UTF-8 can
   * take for it (what add() reserves). A caller that sends in chunks ends the chunk instead: growing means
   * a buffer twice the size and a copy of everything written so far.
   */
  fits(arg: string | Buffer): boolean {
    return this.used + mostFrameBytes(arg) <= this.bytes.length;
  }

  /** Add the same short argument `times` times (bulk's notify tokens): its frame is written once, then repeated. */
  addRepeated(arg: string, times: number): this {
    if (times <= 0) return this;
    const frame = `$${Buffer.byteLength(arg)}\r\n${arg}\r\n`;
    const frameBytes = Buffer.byteLength(frame);
    this.reserve(frameBytes * times);
    this.bytes.fill(frame, this.used, this.used + frameBytes * times, 'utf8');
    this.used += frameBytes * times;
    this.count += times;
    return this;
  }

  /** Add one argument: a string is sent as its UTF-8 bytes (as ioredis sends one), a Buffer as it is. */
  add(arg: string | Buffer): this {
    if (typeof arg !== 'string') return this.addBytes(arg);
    const digits = digitCount(arg.length);
    this.reserve(mostFrameBytes(arg));
    const b = this.bytes;
    // The byte count is known only once the text is written. It is at least the number of code units, so
    // the text goes right after a header of that many digits, and moves in the rare case it needs more.
    let at = this.used + 1 + digits + 2;
    const written = b.write(arg, at, 'utf8');
    const needed = digitCount(written);
    if (needed > digits) {
      b.copyWithin(at + needed - digits, at, at + written);
      at += needed - digits;
    }
    this.frame(at, written);
    return this;
  }

  /** The whole command in Redis' protocol: what ioredis writes to the socket. */
  protected override encode(): Buffer {
    const count = `*${this.count + 2}\r\n`;
    const from = COUNT_ROOM - count.length;
    this.bytes.write(count, from, 'latin1');
    return this.bytes.subarray(from, this.used);
  }

  private addBytes(arg: Buffer): this {
    this.reserve(mostFrameBytes(arg));
    const at = this.used + 1 + digitCount(arg.length) + 2;
    arg.copy(this.bytes, at);
    this.frame(at, arg.length);
    return this;
  }

  // The header before an argument of `length` bytes written at `at`, and the CRLF after it.
  private frame(at: number, length: number): void {
    const b = this.bytes;
    b[this.used] = 0x24; // '$'
    b.write(String(length), this.used + 1, 'latin1');
    b[at - 2] = 0x0d;
    b[at - 1] = 0x0a;
    b[at + length] = 0x0d;
    b[at + length + 1] = 0x0a;
    this.used = at + length + 2;
    this.count++;
  }

  private reserve(bytes: number): void {
    if (this.used + bytes <= this.bytes.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.bytes.length * 2, this.used + bytes));
    this.bytes.copy(grown, 0, 0, this.used);
    this.bytes = grown;
  }
}

// The most bytes `$<count>\r\n<arg>\r\n` can take: a string's count may need one digit more than its
// length has (add() moves the text when it does).
function mostFrameBytes(arg: string | Buffer): number {
  const most = typeof arg === 'string' ? arg.length * MAX_BYTES_PER_UNIT : arg.length;
  return 1 + digitCount(most) + 2 + most + 2;
}

function digitCount(n: number): number {
  let digits = 1;
  for (let rest = n; rest >= 10; rest = Math.floor(rest / 10)) digits++;
  return digits;
}
