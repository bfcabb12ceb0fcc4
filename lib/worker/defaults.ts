// The worker's default sleep and memory gauge, used when WorkerDeps does not provide them.
import { getHeapStatistics } from 'v8';
import { MEMORY_READING_MS, readAtMostEvery } from '../support/readAtMostEvery';

// setTimeout caps at 2^31-1 ms (about 24.8 days); longer waits are chained.
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Resolve after `ms` milliseconds, or as soon as `signal` aborts (never rejects). */
export async function timerSleep(ms: number, signal?: AbortSignal): Promise<void> {
  for (let left = ms; left > 0 && !signal?.aborted; left -= MAX_TIMER_MS) {
    await new Promise<void>((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, Math.min(left, MAX_TIMER_MS));
      signal?.addEventListener('abort', done, { once: true });
    });
  }
}

/**
 * Bytes in use, as the `memory` option means it. Like PHP's memory_get_usage(true): what the runtime's
 * allocator holds (V8 heap + buffers), not the resident size, which also counts the executable and its
 * JIT code before any work is done and so would bring Laravel's 128 MB default within reach for no reason.
 * Read at most every MEMORY_READING_MS (support/readAtMostEvery).
 */
export const heapMemoryUsage: () => number = readAtMostEvery(MEMORY_READING_MS, () => {
  // v8's own counters: process.memoryUsage() would also read the resident size from /proc on every call.
  const { total_heap_size: heapTotal, external_memory: external } = getHeapStatistics();
  return heapTotal + external;
});
