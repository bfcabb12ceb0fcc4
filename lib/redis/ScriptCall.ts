// One run of a queue script, sent as an EVALSHA whose whole text is built in one string: what push and
// later send, one job at a time. The frame of the script's name, SHA and keys is built once per queue,
// and a call appends its arguments to it, instead of ioredis measuring and joining every argument of a
// generic command when it is written: pushing one job at a time, that work is on the round trip's clock.
import { createHash } from 'crypto';
import { AtMostOnceCommand } from './AtMostOnceCommand';

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

/** A script run written as its frame and arguments, run by Redis at most once (see AtMostOnceCommand). */
export class ScriptCall extends AtMostOnceCommand {
  private readonly text: string;

  /** `what`: what the run does, for the error when its connection closes before the reply. */
  constructor(frame: ScriptFrame, args: readonly (string | number)[], what: string) {
    super('evalsha', frame.routing as (string | number)[], { what });
    this.text = frame.text(args);
  }

  protected override encode(): string {
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
