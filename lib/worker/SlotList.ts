// An unordered list with constant-time removal, for the worker's slots and unfinished attempts, which
// turn over with every job while the worker lives.
//
// It replaces a Set for the garbage collector's sake. A long-lived Set sits in V8's old generation and,
// as its entries turn over, rebuilds its hash table there; a table it leaves behind still points at the
// entries it held, the young-generation collector cannot tell it is garbage, and everything those
// entries reach (job, payload, command, promises) is promoted until the next full collection. An array
// clears a freed cell at once, and once it has grown to the worker's concurrency it keeps its backing
// store. (The GC traces that showed this are in the commit history.)

/** A value in the list, with its position (kept by the list, so removal needs no lookup). */
export interface SlotEntry<T> {
  readonly value: T;
  at: number;
}

export class SlotList<T> {
  private readonly entries: SlotEntry<T>[] = [];

  get size(): number {
    return this.entries.length;
  }

  /** Add `value`; the entry returned is what remove() takes. */
  add(value: T): SlotEntry<T> {
    const entry = { value, at: this.entries.length };
    this.entries.push(entry);
    return entry;
  }

  /** Remove an entry add() returned; removing it again does nothing. */
  remove(entry: SlotEntry<T>): void {
    const { at } = entry;
    if (at < 0 || this.entries[at] !== entry) return;
    entry.at = -1;
    // The last entry fills the hole; pop() clears the cell it leaves.
    const last = this.entries.pop() as SlotEntry<T>;
    if (last !== entry) {
      last.at = at;
      this.entries[at] = last;
    }
  }

  /** The values, in no particular order: a copy, so the caller may add and remove while going through it. */
  values(): T[] {
    return this.entries.map((e) => e.value);
  }
}
