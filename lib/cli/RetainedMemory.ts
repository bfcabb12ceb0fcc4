// The memory `larq work --memory` compares with its limit: what the worker keeps, as PHP's
// memory_get_usage() counts it for Laravel's Worker::memoryExceeded (13.x). PHP frees an object when its
// last reference goes, so what it counts is what stays; V8 frees nothing until it collects, and the size
// of its heap (v8.getHeapStatistics().total_heap_size) follows how the collector is tuned: a young
// generation sized for a busy worker (--max-semi-space-size) adds a hundred megabytes or more that are
// garbage by the next collection, and would stop a worker whose memory is stable.
//
// What stays in the heap is read where V8 has just found it: after each full (mark-compact) collection,
// the old generation's bytes in use (every heap space but the young ones, which such a collection
// empties). Until the first full collection, the old generation as it is at each collection: what
// survived two collections, garbage among it only once it has died there, a bound from above. A leak
// grows the old generation and the full collections it causes see it. Beside the heap, the memory
// outside it that its objects hold (Buffers, external_memory) as it is now, or at most MEMORY_READING_MS
// before: a Buffer's bytes are allocated and freed with it, the heap's garbage holds few of them, and a
// big one counts within milliseconds.
//
// The price: a leak is seen at the next full collection, and V8 lets the old generation grow to a few
// times (up to 4) what the last one kept before it collects again, so a leaking worker runs on past the
// limit for a while (in the spec, 128 kB a job under --memory=128 stopped after about 3,500 jobs, where
// PHP would stop after about 1,000). A stable worker is never stopped by its garbage, however V8 is tuned.
import { PerformanceObserver, constants } from 'perf_hooks';
import { getHeapSpaceStatistics, getHeapStatistics } from 'v8';
import { MEMORY_READING_MS, readAtMostEvery } from '../support/readAtMostEvery';

const YOUNG_SPACES = new Set(['new_space', 'new_large_object_space']);

function oldGenerationBytes(): number {
  let bytes = 0;
  for (const space of getHeapSpaceStatistics()) if (!YOUNG_SPACES.has(space.space_name)) bytes += space.space_used_size;
  return bytes;
}

/** The memory that stays, kept up to date by V8's collections while started. */
export class RetainedMemory {
  private bytes = oldGenerationBytes();
  private sawFullCollection = false;
  private observer: PerformanceObserver | undefined;
  private readonly external = readAtMostEvery(MEMORY_READING_MS, () => getHeapStatistics().external_memory);

  /** Start following V8's collections. */
  start(): this {
    if (this.observer) return this;
    this.bytes = oldGenerationBytes();
    this.observer = new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) {
        const { detail } = entry as unknown as { detail?: { kind?: number } | null };
        const full = detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR;
        if (full) this.sawFullCollection = true;
        if (full || !this.sawFullCollection) this.bytes = oldGenerationBytes();
      }
    });
    this.observer.observe({ entryTypes: ['gc'] });
    return this;
  }

  /** Bytes that stay: the heap's as of the last collection (or of start()), and the memory outside it now. */
  usage(): number {
    return this.bytes + this.external();
  }

  stop(): void {
    this.observer?.disconnect();
    this.observer = undefined;
  }
}
