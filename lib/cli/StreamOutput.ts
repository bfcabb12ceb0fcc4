// What the CLI writes to stdout, gathered and written at most FLUSH_MS after it came. Symfony Console's
// StreamOutput::doWrite (under artisan's queue:work, Laravel 13.x) writes and flushes each line as it
// comes; a Node process writing two lines a job that way spends a system call on each, and a worker
// running tens of thousands of jobs a second spends a third of its time there. Here a line joins the
// lines that came before it within FLUSH_MS and they go out in one write, in the order they came (one
// write a turn of the event loop would still be two a job for a worker running one job at a time).
//
// Invariants:
// - Order: every write to the same file descriptor goes through one buffer (process.stdout's own writes,
//   e.g. a handlers module's console.log, are routed into it by capture()), so lines leave in the order
//   they were written.
// - Bounded memory: the buffer is written out FLUSH_MS after its first line, or at once when it passes
//   MAX_BUFFERED bytes; a write the pipe cannot take yet (EAGAIN: a slow reader) waits for it, as PHP's
//   blocking fwrite does, so a slow reader slows the worker and never grows its memory or loses a line.
// - Complete at exit: process.exit(), a worker that ends by itself and an uncaught exception all pass
//   through the process's 'exit' event, where the buffer is written out synchronously.
import { writeSync } from 'fs';

/** Bytes gathered before they are written without waiting for FLUSH_MS. */
export const MAX_BUFFERED = 64 * 1024;

const NEWLINE = 0x0a;

/** The longest a line waits to be written, in milliseconds: less than a person watching notices. */
export const FLUSH_MS = 20;

// How long one wait for a full pipe lasts before the write is tried again.
const WAIT_MS = 1;
const waitCell = new Int32Array(new SharedArrayBuffer(4));

/** Lines for one file descriptor, written together every FLUSH_MS. */
export class StreamOutput {
  // What is gathered, already encoded: each line is copied in as UTF-8 as it comes, so a flush writes
  // these bytes as they are, with no joined string to build and encode first (that took more than half
  // of the output's CPU). Twice MAX_BUFFERED, so that whatever arrives below MAX_BUFFERED fits.
  private readonly buffer = Buffer.allocUnsafe(2 * MAX_BUFFERED);
  private used = 0;
  private scheduled = false;
  // Set once the descriptor cannot be written (the reader has gone): what follows is dropped.
  private closed = false;
  private readonly flushNow = (): void => {
    this.scheduled = false;
    this.flush();
  };

  constructor(private readonly fd: number) {
    process.on('exit', () => this.flush());
  }

  /** `line` and a newline, written within FLUSH_MS. */
  line(line: string): void {
    if (this.closed) return;
    // room for the newline too, which goes in as a byte (a string write costs a call into C++)
    this.append(line, 1);
    this.buffer[this.used++] = NEWLINE;
    this.gathered();
  }

  /** `text` (or bytes) as it is, written within FLUSH_MS. */
  write(text: string | Uint8Array): void {
    if (this.closed || text.length === 0) return;
    this.append(text);
    this.gathered();
  }

  // Copy `text` in, after writing out what is gathered if it might not fit; `room` bytes are left free
  // after it.
  private append(text: string | Uint8Array, room = 0): void {
    // The most bytes `text` can take: 3 a UTF-16 unit as UTF-8 (a surrogate pair, 2 units, takes 4).
    const most = (typeof text === 'string' ? text.length * 3 : text.length) + room;
    if (this.used + most > this.buffer.length) {
      this.flush();
      if (most > this.buffer.length) {
        this.writeAll(typeof text === 'string' ? Buffer.from(text, 'utf8') : text);
        return;
      }
    }
    if (typeof text === 'string') this.used += this.buffer.write(text, this.used, 'utf8');
    else {
      this.buffer.set(text, this.used);
      this.used += text.length;
    }
  }

  // Written at once past MAX_BUFFERED, else within FLUSH_MS.
  private gathered(): void {
    if (this.used >= MAX_BUFFERED) this.flush();
    else if (!this.scheduled) {
      this.scheduled = true;
      setTimeout(this.flushNow, FLUSH_MS).unref();
    }
  }

  /** Write out everything gathered, now; waits while the reader is not keeping up. */
  flush(): void {
    if (this.used === 0) return;
    const used = this.used;
    this.used = 0;
    // Written synchronously: the buffer is free again when this returns.
    this.writeAll(this.buffer.subarray(0, used));
  }

  private writeAll(bytes: Uint8Array): void {
    if (this.closed) return;
    let left = bytes;
    while (left.length > 0) {
      try {
        left = left.subarray(writeSync(this.fd, left));
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if (code === 'EAGAIN') Atomics.wait(waitCell, 0, 0, WAIT_MS);
        else {
          // EPIPE (the reader is gone), EBADF (stdout closed): the lines have nowhere to go; the worker
          // goes on with its jobs rather than dying of its log
          this.closed = true;
          return;
        }
      }
    }
  }

  /**
   * Route `stream`'s own writes (console.log and the like, from this process's other code) into this
   * buffer, so they keep their place among its lines.
   */
  capture(stream: NodeJS.WriteStream): void {
    stream.write = ((chunk: string | Uint8Array, encoding?: unknown, callback?: unknown): boolean => {
      const done = typeof encoding === 'function' ? encoding : callback;
      this.write(
        typeof chunk !== 'string'
          ? Buffer.from(chunk)
          : typeof encoding === 'string' && encoding !== 'utf8' && encoding !== 'utf-8'
            ? Buffer.from(chunk, encoding as BufferEncoding)
            : chunk,
      );
      if (typeof done === 'function') process.nextTick(done as () => void);
      return true;
    }) as typeof stream.write;
  }
}
