#!/usr/bin/env node
// Build step: empty dist/ before tsc writes it, so a module deleted or renamed in lib/ never ships in a
// package from a stale earlier build.
'use strict';
const { rmSync } = require('fs');
const { join } = require('path');

rmSync(join(__dirname, '..', 'dist'), { recursive: true, force: true });
