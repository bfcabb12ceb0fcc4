// Lint rules: eslint's and typescript-eslint's recommended sets. A rule is turned off only where it
// flags a pattern this code uses on purpose, with the reason beside it. Formatting is prettier's job.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const nodeGlobals = {
  require: 'readonly',
  module: 'writable',
  exports: 'writable',
  global: 'readonly',
  process: 'readonly',
  console: 'readonly',
  Buffer: 'readonly',
  __dirname: 'readonly',
  __filename: 'readonly',
};

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', '.cache/', 'docs/api/', 'compat-fixtures/', '.larq-demo/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2022, sourceType: 'module', globals: nodeGlobals },
    rules: {
      // Parameters kept for an interface's shape (a null store's methods, a fake's unused index) start
      // with `_`, as TypeScript's own noUnusedParameters convention has it.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      // PHP's serialize format and JSON are byte-level: their parsers and specs match control characters.
      'no-control-regex': 'off',
    },
  },
  {
    // Plain CommonJS files: build scripts, the mocha config and reporter.
    files: ['**/*.js'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // require() on purpose: optional peer dependencies loaded only when a feature is used (loadDriver),
    // a user's handler module that may be CommonJS or ESM (work), package.json read on `--version` (main),
    // the CommonJS entry of the app's own tsx (typescript).
    files: ['lib/sql/loadDriver.ts', 'lib/cli/commands/work.ts', 'lib/cli/main.ts', 'lib/cli/typescript.ts'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['spec/**/*.ts'],
    rules: {
      // chai's property assertions (`expect(x).to.be.true`) are expressions.
      '@typescript-eslint/no-unused-expressions': 'off',
      // Specs write float literals PHP prints differently from JS on purpose, to prove the rounding.
      'no-loss-of-precision': 'off',
    },
  },
);
