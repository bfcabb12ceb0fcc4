// The PHP side of the Laravel 12/13 feature specs: dispatch13.php's scenarios, and the environment that
// makes jobs13.php's classes loadable in any harness script (worker.php included) through an
// auto_prepend_file on an extra PHP_INI_SCAN_DIR entry.
import { mkdtempSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { laravelEnv, PHP_DIR, redisEnv, runPhp, type PhpConnection } from './php';

let scanDir: string | undefined;

/** Environment that loads jobs13.php's classes on demand in every PHP process it is given to. */
export function php13Env(): Record<string, string> {
  if (scanDir === undefined) {
    scanDir = mkdtempSync(join(tmpdir(), 'larq-php13-'));
    writeFileSync(join(scanDir, 'zz-larq-jobs13.ini'), `auto_prepend_file=${join(PHP_DIR, 'autoload13.php')}\n`);
  }
  // a leading ':' keeps PHP's own scan directory (the redis, sqlite... extensions) and adds ours
  return { PHP_INI_SCAN_DIR: `:${scanDir}` };
}

/** What dispatch13.php printed. */
export interface Dispatch13Result {
  scenario: string;
  now: number;
  ids: string[];
  keys: (string | null)[];
}

/** Runs a dispatch13.php scenario through real Laravel; rejects when the script fails. */
export async function dispatch13(
  scenario: string,
  args: (string | number)[],
  opts: PhpConnection,
): Promise<Dispatch13Result> {
  const env: Record<string, string> = {
    ...laravelEnv(opts.laravel),
    ...redisEnv(opts),
    LARQ_PREFIX: opts.prefix,
    ...php13Env(),
  };
  if (opts.cachePrefix !== undefined) env.LARQ_CACHE_PREFIX = opts.cachePrefix;
  if (opts.now !== undefined) env.LARQ_NOW = String(opts.now);
  const res = await runPhp('dispatch13.php', [scenario, ...args.map(String)], { ...env, ...opts.env });
  if (res.code !== 0)
    throw new Error(`dispatch13.php ${scenario} ${args.join(' ')} exited ${res.code ?? res.signal}:\n${res.stderr}`);
  return JSON.parse(res.stdout) as Dispatch13Result;
}

/** A payload with the values that differ per dispatch (uuid, id, createdAt) masked. */
export function masked(payload: string): string {
  return payload
    .replace(/"uuid":"[0-9a-f-]{36}"/, '"uuid":"U"')
    .replace(/"id":"[A-Za-z0-9]{32}"/, '"id":"I"')
    .replace(/"createdAt":\d+/, '"createdAt":0');
}
