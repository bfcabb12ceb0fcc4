// Types of scripts/bench-contender-env.js, for scripts/bench.ts.
export function appFreeEnv(): NodeJS.ProcessEnv;
export function contenderSettings(settings: {
  port: number;
  jobs: number;
  report: string;
  downFile: string;
  laravel: string;
}): NodeJS.ProcessEnv;
