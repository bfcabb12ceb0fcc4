// One run of a queue script, sent as an EVALSHA whose whole text is built in one string: what push and
// later send, one job at a time.
//
// Pushing jobs one by one is a round trip per job, and everything the client does between a reply and the
// next write is on that clock. Through ioredis' defineCommand a call goes through its script wrapper (a
// promise chained for the NOSCRIPT fallback, another for the callback), then a generic Command that
// measures every argument when it is written. Here the frame of the script's name, SHA and keys is built
// once per queue, and a call appends its arguments to it. Measured with both builds in one process
// against one redis-server, in alternating blocks of 2,000 pushes: the push took 4-6% less time (paired
// ratio 1.040 and 1.056 over two runs of 40 blocks, 31 and 32 of them won) and about 4 µs less CPU.
import { createHash } from 'crypto';
import { Command } from 'ioredis';

/** The EVALSHA of one script with its keys, up to its first argument: shared by every call with those keys. */
export class ScriptFrame {
  /** The command's ioredis arguments without the ARGV: what a cluster routes by and an error names. */
  readonly routing: readonly (string | number)[];
  private readonly head: string;

  constructor(sha: string, keys: readonly string[], argCount: number) {
    this.routing = [sha, keys.length, ...keys];
    let head = `*${2 + 1 + keys.length + argCount}\r\n$7\r\nevalsha\r\n${bulk(sha)}${bulk(String(keys.length))}`;
    for (const key of keys) head += bulk(key);
    this.head = head;
  }

  /** The whole command for these arguments, in Redis' protocol. */
  text(args: readonly (string | number)[]): string {
    let out = this.head;
    for (const arg of args) out += bulk(typeof arg === 'string' ? arg : String(arg));
    return out;
  }
}

/** A script run written as its frame and arguments; replies and errors are a Command's. */
export class ScriptCall extends Command {
  private readonly text: string;

  constructor(frame: ScriptFrame, args: readonly (string | number)[]) {
    super('evalsha', frame.routing as (string | number)[]);
    this.text = frame.text(args);
  }

  override toWritable(): string {
    return this.text;
  }
}

/** The SHA1 Redis files a script under (what EVALSHA names it by). */
export function scriptSha(source: string): string {
  return createHash('sha1').update(source).digest('hex');
}

/** Whether Redis refused an EVALSHA because it does not hold the script (flushed, or a new server). */
export function isNoScript(error: unknown): boolean {
  return error instanceof Error && error.message.startsWith('NOSCRIPT');
}

// `$<bytes>\r\n<text>\r\n`: the byte count is the UTF-8 one, as ioredis counts it.
function bulk(text: string): string {
  return `$${Buffer.byteLength(text)}\r\n${text}\r\n`;
}
