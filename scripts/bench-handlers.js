// The handlers module `npm run bench` gives `larq work --handlers=`: App\Jobs\BenchNoop, a no-op timed by
// scripts/bench-clock.js. Loaded by the CLI from dist/, as a user's compiled handlers module would be.
'use strict';
const { Handlers } = require('../dist');
const { job } = require('./bench-clock');

module.exports = new Handlers().object('App\\Jobs\\BenchNoop', () => job());
