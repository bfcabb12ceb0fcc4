// What V8's trace of each minor collection (`node --trace-gc-nvp`, one `gc=s` line per scavenge) says a
// process kept: for the garbage specs, which bound the share of what a process allocates that survives.

/** One minor collection: bytes allocated since the last one, and bytes of the new space it kept. */
export interface MinorCollection {
  allocated: number;
  survived: number;
}

/** The minor collections in a process's --trace-gc-nvp output, in order. */
export function minorCollections(traceOutput: string): MinorCollection[] {
  return traceOutput
    .split('\n')
    .filter((line) => line.includes(' gc=s '))
    .map((line) => ({
      allocated: Number(/ allocated=(\d+)/.exec(line)![1]),
      survived: Number(/ new_space_survived=(\d+)/.exec(line)![1]),
    }));
}

/**
 * The collections of the second half of a run (the first finds the process starting: its modules,
 * connections and compiled code stay) and the share of what they saw allocated that they kept.
 */
export function steadyShareKept(collections: MinorCollection[]): { count: number; share: number } {
  const steady = collections.slice(Math.floor(collections.length / 2));
  const allocated = steady.reduce((sum, c) => sum + c.allocated, 0);
  const survived = steady.reduce((sum, c) => sum + c.survived, 0);
  return { count: steady.length, share: survived / allocated };
}
