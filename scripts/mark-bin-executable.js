#!/usr/bin/env node
// Build step: tsc writes files without the executable bit. npm sets it on a dependency's bin when it
// installs one, but `npx larq` in this repository (and a package linked from it) runs
// dist/cli/main.js as it is, so give it the bit here.
'use strict';
const { chmodSync } = require('fs');
const { join } = require('path');

chmodSync(join(__dirname, '..', 'dist', 'cli', 'main.js'), 0o755);
