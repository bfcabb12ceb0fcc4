#!/usr/bin/env node
// Build step: tsc does not copy non-TS files, and lib/redis/scripts.ts reads its Lua from a `lua` folder
// next to the compiled module, so copy lib/redis/lua/*.lua to dist/redis/lua/.
'use strict';
const { mkdirSync, readdirSync, copyFileSync } = require('fs');
const { join } = require('path');

const root = join(__dirname, '..');
const from = join(root, 'lib', 'redis', 'lua');
const to = join(root, 'dist', 'redis', 'lua');

mkdirSync(to, { recursive: true });
const files = readdirSync(from).filter((f) => f.endsWith('.lua'));
for (const file of files) copyFileSync(join(from, file), join(to, file));
console.error(`copy-lua: ${files.length} script(s) -> ${to}`);
