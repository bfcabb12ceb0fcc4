// The MULTI ... EXEC of a bulk push, through ioredis' own multi(): the whole transaction goes to Redis in
// one write, and Redis runs all of it or none of it.
//
// What the caller learns matches what Redis did:
// - resolved: EXEC ran; exec() gives each command's error, null for those that ran. A command that fails
//   while EXEC runs (a key of the wrong type) does not undo the others: MULTI has no rollback;
// - UnconfirmedWriteError: the transaction was written and the connection closed before EXEC's reply, so
//   all of it or none of it ran; it is never written again (its commands are AtMostOnceCommands, and a
//   MULTI that ioredis resends after a reconnect carries only PINGs);
// - any other error: nothing ran (Redis refused the transaction, or it was never written).
import { ReplyError, type ChainableCommander, type Cluster, type Redis } from 'ioredis';
import { LarqError, UnconfirmedWriteError } from '../errors';
import type { AtMostOnceCommand } from './AtMostOnceCommand';

export class BulkTransaction {
  private readonly multi: ChainableCommander;
  private readonly commands: AtMostOnceCommand[] = [];

  /** `what` names the call for errors (e.g. `the bulk push to queues:default`). */
  constructor(
    client: Redis | Cluster,
    private readonly what: string,
  ) {
    this.multi = client.multi();
  }

  /** Queue a command in the transaction. */
  send(command: AtMostOnceCommand): void {
    (this.multi as unknown as { sendCommand(c: AtMostOnceCommand): unknown }).sendCommand(command);
    this.commands.push(command);
  }

  /** Write the transaction and wait for EXEC: each command's error (null: it ran), in order; throws as the file's header says. */
  async exec(): Promise<(Error | null)[]> {
    // The first command whose connection closed before its reply: EXEC's outcome is unknown from then on,
    // and with ioredis' resend turned off the pipeline would never settle.
    const lost = new Promise<never>((_, reject) => {
      for (const command of this.commands)
        (command.promise as Promise<unknown>).catch((e: unknown) => command.unconfirmed && reject(e as Error));
    });
    let results: [Error | null, unknown][] | null;
    try {
      results = await Promise.race([this.multi.exec(), lost]);
    } catch (error) {
      if (error instanceof UnconfirmedWriteError) throw error;
      if (error instanceof ReplyError) {
        // EXECABORT: Redis refused a command as it was queued (out of memory...) and ran none; say which.
        const first = (error as { previousErrors?: Error[] }).previousErrors?.[0] ?? (error as Error);
        throw new LarqError(`${this.what} failed: ${first.message}`, { cause: first });
      }
      if (this.commands.some((c) => c.written)) throw new UnconfirmedWriteError(this.what, { cause: error });
      throw new LarqError(`${this.what} failed: ${(error as Error).message}`, { cause: error });
    }
    return (results ?? []).map(([e]) => e);
  }
}
