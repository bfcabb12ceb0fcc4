// The spec list lives in package.json's test script, so `npx mocha some.spec.ts` runs just that file.
// Specs run from TypeScript source; `npm test` type-checks first, so transpile-only is safe here.
module.exports = {
  require: ['ts-node/register/transpile-only', 'spec/support/hooks.ts'],
  extension: ['ts'],
  reporter: 'spec/support/reporter.js',
  timeout: 30000,
  exit: true,
};
