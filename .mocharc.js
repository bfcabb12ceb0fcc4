// Specs run from TypeScript source; `npm test` type-checks first, so transpile-only is safe here.
// `npx mocha some.spec.ts` runs just that file; LARQ_TIER (set by the test:* scripts) picks a tier's
// files from spec/tiers.js.
const { select } = require('./spec/tiers');

const tier = process.env.LARQ_TIER;

module.exports = {
  require: ['ts-node/register/transpile-only', 'spec/support/hooks.ts'],
  extension: ['ts'],
  reporter: 'spec/support/reporter.js',
  timeout: 30000,
  exit: true,
  ...(tier ? select(tier) : {}),
};
