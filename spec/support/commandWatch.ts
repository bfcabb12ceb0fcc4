// What Redis servers receive, as MONITOR reports it: every command a client sends and every command a
// Lua script issues (`[0 lua]`), with its arguments. A spec opens one watch over the servers it uses
// (each primary of a cluster), runs its calls, then reads what each server ran. MONITOR's lines are
// parsed here (the server quotes each argument and escapes its bytes), not by ioredis' monitor mode,
// which splits the line at every `" "` and so cuts an argument holding one.
import { connect, type Socket } from 'net';
import Redis from 'ioredis';

/** One command as a server ran it: its arguments (the command's name first) and who issued it. */
export interface WatchedCommand {
  port: number;
  argv: string[];
  /** `lua` for a command a script issued, else the client's address. */
  source: string;
}

/** MONITOR connections on some servers, recording every command they run. */
export class CommandWatch {
  readonly commands: WatchedCommand[] = [];
  private readonly sockets: Socket[] = [];
  private readonly markers = new Map<string, () => void>();

  private constructor(private readonly ports: number[]) {}

  /** Starts watching the servers on `ports` (127.0.0.1); resolves once each one has said OK to MONITOR. */
  static async on(ports: number[]): Promise<CommandWatch> {
    const watch = new CommandWatch(ports);
    await Promise.all(ports.map((port) => watch.monitor(port)));
    return watch;
  }

  private monitor(port: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => socket.write('*1\r\n$7\r\nMONITOR\r\n'));
      this.sockets.push(socket);
      let pending = '';
      socket.setEncoding('latin1');
      socket.on('error', reject);
      socket.on('data', (chunk: string) => {
        pending += chunk;
        let end: number;
        while ((end = pending.indexOf('\r\n')) >= 0) {
          const line = pending.slice(0, end);
          pending = pending.slice(end + 2);
          if (line === '+OK') resolve();
          else if (line.startsWith('+')) this.record(port, line.slice(1));
          else reject(new Error(`MONITOR on port ${port} answered ${line}`));
        }
      });
    });
  }

  // `<time> [<db> <source>] "arg" "arg" ...`
  private record(port: number, line: string): void {
    const open = line.indexOf('[');
    const close = line.indexOf('] ', open);
    const source = line.slice(open + 1, close).split(' ')[1] ?? '';
    const argv = unquote(line.slice(close + 2));
    if (argv[0]?.toLowerCase() === 'echo' && this.markers.has(argv[1])) return this.markers.get(argv[1])!();
    this.commands.push({ port, argv, source });
  }

  /** Waits until every watched server's MONITOR stream has caught up with what was sent so far. */
  async settle(): Promise<void> {
    await Promise.all(
      this.ports.map(async (port) => {
        const marker = `larq-watch-${port}-${Math.random().toString(36).slice(2)}`;
        const seen = new Promise<void>((resolve) => this.markers.set(marker, resolve));
        const client = new Redis({ port, host: '127.0.0.1' });
        try {
          await client.echo(marker);
          await seen;
        } finally {
          this.markers.delete(marker);
          client.disconnect();
        }
      }),
    );
  }

  /** The command with the most arguments seen so far (name included), or undefined when none. */
  largest(): WatchedCommand | undefined {
    return this.commands.reduce<WatchedCommand | undefined>(
      (most, c) => (most === undefined || c.argv.length > most.argv.length ? c : most),
      undefined,
    );
  }

  /** Commands named `name` (any case), optionally only those a script issued. */
  named(name: string, from?: 'lua'): WatchedCommand[] {
    return this.commands.filter(
      (c) => c.argv[0]?.toLowerCase() === name.toLowerCase() && (from === undefined || c.source === from),
    );
  }

  /** Forgets what was recorded. */
  clear(): void {
    this.commands.length = 0;
  }

  /** Closes the MONITOR connections. */
  stop(): void {
    for (const socket of this.sockets.splice(0)) socket.destroy();
  }
}

const ESCAPES: Record<string, number> = { n: 10, r: 13, t: 9, a: 7, b: 8, '\\': 92, '"': 34 };

// MONITOR's arguments: each in double quotes, with \n \r \t \a \b \\ \" and \xHH escapes of its bytes
// (the line arrives as latin1, one character per byte); each argument is returned as UTF-8 text.
function unquote(text: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < text.length) {
    if (text[i] !== '"') {
      i++;
      continue;
    }
    const bytes: number[] = [];
    for (i++; i < text.length && text[i] !== '"'; i++) {
      if (text[i] !== '\\') bytes.push(text.charCodeAt(i));
      else if (text[i + 1] === 'x') {
        bytes.push(parseInt(text.slice(i + 2, i + 4), 16));
        i += 3;
      } else {
        bytes.push(ESCAPES[text[i + 1]] ?? text.charCodeAt(i + 1));
        i++;
      }
    }
    i++;
    out.push(Buffer.from(bytes).toString('utf8'));
  }
  return out;
}
