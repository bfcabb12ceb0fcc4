// A Map and a Set kept in arrays, for the worker's per-job bookkeeping: the attempts in the slots, the
// running jobs, the watched timeouts. Members come and go once a job and, from concurrency 1 on, never
// all at once (the next job joins before the last one has left).
//
// Why not Map and Set: V8 keeps, in each hash table a Map or Set has outgrown, the entries it held and a
// link to the table that replaced it (for iterators still walking it). Once such a table has reached the
// old generation, that link keeps every later table, and every member each one held, alive through
// every minor collection until the next full one. For a collection that never empties, that is every
// job the worker ran since the last full collection, each copied and then promoted: at concurrency 50,
// minor collections kept 19% of what the worker had allocated, against 2% with arrays
// (spec/integration/worker-garbage.spec.ts). An array slot is overwritten or cleared as its member
// leaves, and keeps nothing.
//
// Lookups scan the keys: these hold at most `concurrency` members, and a scan of a few hundred pointers
// costs less than the collections it saves.

/** Map's methods the worker uses, on two arrays; iteration sees a copy, so members may leave meanwhile. */
export class ArrayMap<K, V> {
  private readonly keyList: K[] = [];
  private readonly valueList: V[] = [];

  /** How many members there are. */
  get size(): number {
    return this.keyList.length;
  }

  /** The value under `key` (compared with ===), or undefined. */
  get(key: K): V | undefined {
    const index = this.keyList.indexOf(key);
    return index < 0 ? undefined : this.valueList[index];
  }

  /** Whether `key` is a member. */
  has(key: K): boolean {
    return this.keyList.includes(key);
  }

  /** Put `value` under `key`, in place of any value it had. */
  set(key: K, value: V): this {
    const index = this.keyList.indexOf(key);
    if (index >= 0) this.valueList[index] = value;
    else {
      this.keyList.push(key);
      this.valueList.push(value);
    }
    return this;
  }

  /** Remove `key`; whether it was a member. The last member takes its place, so order is not kept. */
  delete(key: K): boolean {
    const index = this.keyList.indexOf(key);
    if (index < 0) return false;
    const lastKey = this.keyList.pop() as K;
    const lastValue = this.valueList.pop() as V;
    if (index < this.keyList.length) {
      this.keyList[index] = lastKey;
      this.valueList[index] = lastValue;
    }
    return true;
  }

  /** The members' keys and values as they are now. */
  entries(): [K, V][] {
    return this.keyList.map((key, index) => [key, this.valueList[index]]);
  }

  /** The members' keys as they are now. */
  keys(): K[] {
    return this.keyList.slice();
  }
}

/** Set's methods the worker uses, on an array; iteration sees a copy, so members may leave meanwhile. */
export class ArraySet<T> {
  private readonly list: T[] = [];

  /** How many members there are. */
  get size(): number {
    return this.list.length;
  }

  /** Whether `member` (compared with ===) is a member. */
  has(member: T): boolean {
    return this.list.includes(member);
  }

  /** Add `member` unless it is one already. */
  add(member: T): this {
    if (!this.list.includes(member)) this.list.push(member);
    return this;
  }

  /** Remove `member`; whether it was one. The last member takes its place, so order is not kept. */
  delete(member: T): boolean {
    const index = this.list.indexOf(member);
    if (index < 0) return false;
    const last = this.list.pop() as T;
    if (index < this.list.length) this.list[index] = last;
    return true;
  }

  /** The members as they are now. */
  [Symbol.iterator](): Iterator<T> {
    return this.list.slice()[Symbol.iterator]();
  }
}
