// The spec tiers `npm run test:<tier>` runs; `npm test` runs them all in one mocha run (LARQ_TIER=all).
//   unit         no Redis, no PHP, no native module: seconds
//   integration  a real redis-server (and the SQL databases the failed-job stores use)
//   interop      real PHP: Laravel on the same Redis, and PHP oracles for byte-exact output
//   slow         the long fault, failover and chaos runs, the mixed-fleet middleware run, and the specs
//                that run the compiler
// A file listed below (needsPhp, needsRedis, compiles) sits in a folder of one tier but needs another's
// tools or time: the tier of its folder skips it and the other tier runs it.

const needsPhp = [
  'spec/unit/features/xxh128.spec.ts',
  'spec/unit/php/encrypter.spec.ts',
  'spec/unit/payload/parsePayload.spec.ts',
  'spec/unit/payload/prettyPrint.spec.ts',
  'spec/unit/payload/phpJson.spec.ts',
];
const needsRedis = ['spec/compat/push.spec.ts', 'spec/compat/pop.spec.ts'];
// Runs the TypeScript compiler over a spec file: tens of seconds, and `npm test`'s tsc checks it too.
const compiles = ['spec/unit/types.spec.ts', 'spec/interop/larq-types-compile.spec.ts'];
const slow = [
  'spec/integration/chaos.spec.ts',
  'spec/integration/cluster-failover.spec.ts',
  'spec/integration/cluster-failover-run.spec.ts',
  'spec/integration/sentinel-failover.spec.ts',
  'spec/integration/connection-faults.spec.ts',
  'spec/integration/outage.spec.ts',
  'spec/integration/failed/store-faults.spec.ts',
  // 200 rate-limited jobs: Laravel releases a limited job until its window ends plus 3 s, so about 80 s.
  'spec/interop/middleware-fleet.spec.ts',
  'spec/integration/cli-work-memory.spec.ts',
];

const tiers = {
  unit: {
    spec: ['spec/unit/**/*.spec.ts', 'spec/compat/**/*.spec.ts'],
    ignore: [...needsPhp, ...needsRedis, ...compiles],
  },
  integration: { spec: ['spec/integration/**/*.spec.ts', ...needsRedis], ignore: slow },
  interop: { spec: ['spec/interop/**/*.spec.ts', ...needsPhp], ignore: [...slow, ...compiles] },
  slow: { spec: [...slow, ...compiles], ignore: [] },
};

/** The spec globs and ignores of `tier` ('all': every tier). */
function select(tier) {
  if (tier === 'all')
    return { spec: Object.values(tiers).flatMap((t) => t.spec.filter((s) => s.includes('*'))), ignore: [] };
  const chosen = tiers[tier];
  if (chosen === undefined) throw new Error(`LARQ_TIER=${tier}: expected one of all, ${Object.keys(tiers).join(', ')}`);
  return chosen;
}

module.exports = { tiers, select };
