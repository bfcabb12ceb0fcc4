// The clock of every Node contender of `npm run bench` (scripts/bench.ts), inside the contender's own
// process: the handler calls job() once a job; the first call notes the time and the process's CPU time,
// and the LARQ_BENCH_JOBS-th writes, once, the span from that first start to this last end and the CPU
// time spent in it to the file LARQ_BENCH_REPORT names. No Redis command, no I/O per job.
'use strict';
const { writeFileSync } = require('fs');
const { performance } = require('perf_hooks');

const jobs = Number(process.env.LARQ_BENCH_JOBS);
const report = process.env.LARQ_BENCH_REPORT;
if (!(jobs > 0) || !report) throw new Error('bench-clock: LARQ_BENCH_JOBS and LARQ_BENCH_REPORT must be set');

let first = 0;
let cpuAtFirst;
let ended = 0;

/** A no-op job's start and end. */
function job() {
  if (ended === 0 && first === 0) {
    first = performance.now();
    cpuAtFirst = process.cpuUsage();
  }
  if (++ended !== jobs) return;
  const seconds = (performance.now() - first) / 1000;
  const cpu = process.cpuUsage(cpuAtFirst);
  writeFileSync(report, JSON.stringify({ jobs: ended, seconds, cpuMicros: cpu.user + cpu.system }));
}

module.exports = { job };
