// Mocha's spec reporter, plus the closing line CI reads: "N passed, N failed, N skipped".
'use strict';
const Mocha = require('mocha');
const { EVENT_RUN_END } = Mocha.Runner.constants;

class LarqReporter extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    runner.once(EVENT_RUN_END, () => {
      const s = runner.stats;
      // Printed after Spec's own epilogue so it is the last line of the run.
      process.nextTick(() => console.log(`${s.passes} passed, ${s.failures} failed, ${s.pending} skipped`));
    });
  }
}

module.exports = LarqReporter;
