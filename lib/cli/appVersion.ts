// The Laravel version a PHP app runs, read from the app itself: its composer.lock (what `composer install`
// put in vendor/), else vendor/laravel/framework's Application::VERSION. larq needs it when nothing names
// the version, because the skeleton's default key prefix changed between 12 and 13: guessing the wrong
// line makes a worker watch keys no PHP process writes.
import { existsSync, readFileSync } from 'fs';
import { join } from 'path';

/** A Laravel version found in an app directory, and the file it came from. */
export interface AppLaravelVersion {
  /** `major.minor`, e.g. `12.67`. */
  version: string;
  /** The file, relative to the app directory. */
  source: string;
}

const LOCK = 'composer.lock';
const APPLICATION = 'vendor/laravel/framework/src/Illuminate/Foundation/Application.php';

/** The app's laravel/framework version, or undefined when the directory has neither file (or no such package). */
export function laravelVersionOfApp(appDir: string): AppLaravelVersion | undefined {
  return fromLock(appDir) ?? fromVendor(appDir);
}

function fromLock(appDir: string): AppLaravelVersion | undefined {
  const file = join(appDir, LOCK);
  if (!existsSync(file)) return undefined;
  let lock: { packages?: { name?: unknown; version?: unknown }[] };
  try {
    lock = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return undefined; // not ours to judge; the vendor file or the default decides
  }
  const framework = lock.packages?.find((p) => p.name === 'laravel/framework');
  const version = typeof framework?.version === 'string' ? majorMinor(framework.version) : undefined;
  return version === undefined ? undefined : { version, source: LOCK };
}

function fromVendor(appDir: string): AppLaravelVersion | undefined {
  const file = join(appDir, APPLICATION);
  if (!existsSync(file)) return undefined;
  const constant = /const\s+VERSION\s*=\s*'([^']+)'/.exec(readFileSync(file, 'utf8'));
  const version = constant ? majorMinor(constant[1]) : undefined;
  return version === undefined ? undefined : { version, source: APPLICATION };
}

// `v12.67.0`, `12.67.0`, `13.x-dev` -> `12.67`, `12.67`, `13`
function majorMinor(text: string): string | undefined {
  const m = /^v?(\d+)(?:\.(\d+))?/.exec(text);
  if (!m) return undefined;
  return m[2] === undefined ? m[1] : `${m[1]}.${m[2]}`;
}
