// Specs run from TypeScript source; `npm test` type-checks first, so transpile-only is safe here.
module.exports = {
  require: ['ts-node/register/transpile-only', 'spec/support/hooks.ts'],
  spec: ['spec/unit/**/*.spec.ts', 'spec/integration/**/*.spec.ts', 'spec/compat/**/*.spec.ts', 'spec/interop/**/*.spec.ts'],
  reporter: 'spec/support/reporter.js',
  timeout: 30000,
  exit: true,
};
