// What Redis servers receive, as MONITOR reports it: every command a client sends and every command a
// Lua script issues (`[0 lua]`), with its arguments. A spec opens one watch over the servers it uses
// (each primary of a cluster), runs its calls, then reads what each server ran.
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
  private readonly monitors: Redis[] = [];
  private readonly markers = new Map<string, () => void>();

  private constructor(private readonly ports: number[]) {}

  /** Starts watching the servers on `ports` (127.0.0.1). */
  static async on(ports: number[]): Promise<CommandWatch> {
    const watch = new CommandWatch(ports);
    for (const port of ports) {
      const client = new Redis({ port, host: '127.0.0.1', lazyConnect: true });
      await client.connect();
      const monitor = await client.monitor();
      client.disconnect();
      monitor.on('monitor', (_time: string, args: string[], source: string) => {
        if (args[0]?.toLowerCase() === 'echo' && watch.markers.has(args[1])) return watch.markers.get(args[1])!();
        watch.commands.push({ port, argv: args, source });
      });
      watch.monitors.push(monitor);
    }
    return watch;
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
    return this.commands.reduce<WatchedCommand | undefined>((most, c) => (most === undefined || c.argv.length > most.argv.length ? c : most), undefined);
  }

  /** Commands named `name` (any case), optionally only those a script issued. */
  named(name: string, from?: 'lua'): WatchedCommand[] {
    return this.commands.filter((c) => c.argv[0]?.toLowerCase() === name.toLowerCase() && (from === undefined || c.source === from));
  }

  /** Forgets what was recorded. */
  clear(): void {
    this.commands.length = 0;
  }

  /** Closes the MONITOR connections. */
  stop(): void {
    for (const monitor of this.monitors.splice(0)) monitor.disconnect();
  }
}
