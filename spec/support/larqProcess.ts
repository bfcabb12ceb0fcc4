// The larq command as a process, for the CLI specs: started with the app's settings coming only from the
// .env file it is given (variables of the same names in this process would win over the file, as in
// Laravel), its output collected.
import { spawn, type ChildProcess } from 'child_process';
import { writeFileSync } from 'fs';

/** A running larq process and what it printed so far. */
export interface LarqProcess {
  child: ChildProcess;
  stdout: string;
  stderr: string;
  /** Resolves with the exit code once the process has ended. */
  done: Promise<number | null>;
}

/** This process's environment without the app's variables (APP_, REDIS_, DB_, CACHE_, QUEUE_, LARQ_) and `unset`, plus `extra`. */
export function appFreeEnv(
  extra: Record<string, string> = {},
  unset: string[] = [],
): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = { ...process.env };
  for (const name of Object.keys(env))
    if (/^(APP|REDIS|DB|CACHE|QUEUE|LARQ)_/.test(name) || unset.includes(name)) delete env[name];
  return { ...env, ...extra };
}

/**
 * Write the .env of a `larq work` on the test Redis at `port` under `prefix`: the Redis queue and the Redis
 * cache store (the skeleton's default, the database store, needs an app), no failed-job store; `first`
 * lines before those.
 */
export function writeRedisEnv(file: string, port: number, prefix: string, first: string[] = []): void {
  writeFileSync(
    file,
    [
      ...first,
      'QUEUE_CONNECTION=redis',
      'REDIS_HOST=127.0.0.1',
      `REDIS_PORT=${port}`,
      `REDIS_PREFIX=${prefix}`,
      'CACHE_STORE=redis',
      'QUEUE_FAILED_DRIVER=null',
      '',
    ].join('\n'),
  );
}

/** Start `node main ...args` in `cwd` with appFreeEnv(extraEnv). */
export function startLarq(
  main: string,
  args: string[],
  opts: { cwd?: string; env?: Record<string, string>; unset?: string[] } = {},
): LarqProcess {
  const child = spawn(process.execPath, [main, ...args], { cwd: opts.cwd, env: appFreeEnv(opts.env, opts.unset) });
  const run = { child, stdout: '', stderr: '' } as LarqProcess;
  child.stdout!.on('data', (d) => (run.stdout += d));
  child.stderr!.on('data', (d) => (run.stderr += d));
  run.done = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
  return run;
}

/** Run larq to its end (killed after `timeoutMs`); its exit code and output. */
export async function runLarq(
  main: string,
  args: string[],
  opts: { cwd?: string; env?: Record<string, string>; timeoutMs?: number } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const run = startLarq(main, args, opts);
  const limit = setTimeout(() => run.child.kill('SIGKILL'), opts.timeoutMs ?? 60000);
  const code = await run.done;
  clearTimeout(limit);
  return { code, stdout: run.stdout, stderr: run.stderr };
}
