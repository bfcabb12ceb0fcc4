// A reading taken at most once per period. The worker asks for its memory twice a pass (the pop's budget,
// then the stop check), and V8's getHeapStatistics builds its object of fourteen numbers in C++ on every
// call: at concurrency 1 that was 4% of a job's CPU. A reading a few milliseconds old serves as well: the
// limit is checked against memory that changes by a job's worth at a time.

/** How old a reading of the worker's memory may be, in milliseconds. */
export const MEMORY_READING_MS = 10;

/**
 * `read`, called at most once per `ms` milliseconds of `now` (a monotonic clock); in between, the last
 * value it returned. A read that throws is not kept: the next call reads again.
 */
export function readAtMostEvery<T>(ms: number, read: () => T, now: () => number = () => performance.now()): () => T {
  let value: T;
  let readAt = -Infinity;
  return () => {
    const at = now();
    if (at - readAt >= ms) {
      value = read();
      readAt = at;
    }
    return value;
  };
}
