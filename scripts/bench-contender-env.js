// The environment every process contender of the bench starts with (scripts/bench.ts' e2e rows and
// scripts/bench-ab.js): this process's own without an app's variables, which would otherwise reach the
// contender, and the settings `larq work` and the bench scripts read: the bench's Redis, its queue
// prefix, the Redis cache store, no failed-job store, and where scripts/bench-clock.js reports.
'use strict';

/** process.env without APP_, REDIS_, DB_, CACHE_, QUEUE_, LARQ_, HORIZON_ and OTEL_ variables, nor NODE_OPTIONS. */
function appFreeEnv() {
  const env = { ...process.env };
  for (const name of Object.keys(env))
    if (/^(APP|REDIS|DB|CACHE|QUEUE|LARQ|HORIZON|OTEL)_/.test(name) || name === 'NODE_OPTIONS') delete env[name];
  return env;
}

/** The bench's settings for a contender working `jobs` jobs on the Redis at `port`. */
function contenderSettings({ port, jobs, report, downFile, laravel }) {
  return {
    LARQ_BENCH_JOBS: String(jobs),
    LARQ_BENCH_REPORT: report,
    LARQ_BENCH_DOWN_FILE: downFile,
    APP_NAME: 'bench',
    LARQ_LARAVEL: laravel,
    QUEUE_CONNECTION: 'redis',
    REDIS_HOST: '127.0.0.1',
    REDIS_PORT: String(port),
    REDIS_PREFIX: 'bench_',
    CACHE_STORE: 'redis',
    QUEUE_FAILED_DRIVER: 'null',
  };
}

module.exports = { appFreeEnv, contenderSettings };
