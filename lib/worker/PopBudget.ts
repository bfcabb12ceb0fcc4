// How many jobs one pop may take so that their payloads fit in the memory the worker has left under its
// `memory` limit: the count the slots allow is also bounded by bytes. A popped job is held several times
// over while it runs (the raw body, the reserved copy, the decoded payload and command), so each job is
// budgeted at COPIES times its payload's size. The size is that of the largest payload seen lately: it
// jumps up at once when a big payload arrives and halves with every pop of smaller ones. Until a first
// payload is seen nothing is known, so the first pop takes one job.
//
// Laravel's worker holds one job at a time and checks memory after it; a concurrent worker checks before
// each pop too, so a queue of big payloads is taken a few at a time and never all at once.
import type { WorkerJob } from '../jobs/contracts';

/** Memory held per job, in multiples of its payload's length. */
export const COPIES = 4;

/** Bounds each pop by the memory left. */
export class PopBudget {
  // The largest payload seen lately, in bytes (string length); 0 until the first pop.
  private largest = 0;

  /**
   * @param limitBytes the `memory` limit in bytes; 0: no limit (only the slots count)
   * @param usage the memory in use, in bytes (as the limit means it)
   */
  constructor(
    private readonly limitBytes: number,
    private readonly usage: () => number,
  ) {}

  /**
   * How many of `slots` free slots one pop may fill. `running`: the attempts not finished yet (their
   * memory is in `usage`). 0 when the memory left holds no further job while others are in flight (their
   * end frees memory); 1 at least when nothing is in flight and the limit is not reached, as Laravel
   * takes one job whatever its size.
   */
  limit(slots: number, running: number): number {
    if (this.limitBytes <= 0 || slots <= 0) return slots;
    const left = this.limitBytes - this.usage();
    if (left <= 0) return 0;
    if (this.largest === 0) return running === 0 ? 1 : 0;
    const fits = Math.floor(left / (this.largest * COPIES));
    return Math.min(slots, Math.max(fits, running === 0 ? 1 : 0));
  }

  /** Learn from the payload sizes (string lengths, see payloadSize) of one pop. */
  record(sizes: readonly number[]): void {
    let largest = this.largest / 2;
    for (const size of sizes) if (size > largest) largest = size;
    this.largest = Math.max(largest, 1);
  }
}

/** A popped job's payload size as the budget counts it: its string length. */
export function payloadSize(job: WorkerJob): number {
  return job.payloadLength ? job.payloadLength() : job.getRawBody().length;
}
