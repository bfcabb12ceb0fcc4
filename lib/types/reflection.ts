// What `larq types`' PHP reflector (reflect.php, shipped beside this file) prints, and how it is run: with
// the app's own `php`, in the app's folder, after the app's vendor/autoload.php.
import { spawnSync } from 'child_process';
import { existsSync } from 'fs';
import { join, resolve } from 'path';
import { LarqError } from '../errors';
import type { ReflectedValue } from './TypedPhpClass';

/** A PHP class the reflector could not describe, or the app it could not load. */
export class TypesReflectionError extends LarqError {}

/** One property as reflected, in serialized order. */
export interface ReflectedProperty {
  name: string;
  visibility: 'public' | 'protected' | 'private';
  /** PHP's text of the declared type (`?int`, `int|string`, `Shop\Enums\Status`), null when untyped. */
  type: string | null;
  readonly: boolean;
  promoted: boolean;
  declaringClass: string;
  mangledClass?: string;
  default?: ReflectedValue;
  constructorDefault?: ReflectedValue;
}

/** What the reflector knows of a class: a queueable one (job, listener, notification, mail) or one they use. */
export interface ReflectedClass {
  name: string;
  kind: 'job' | 'listener' | 'notification' | 'mail' | 'value' | 'enum' | 'model' | 'models' | 'date' | 'interface';
  file?: string;
  traits?: string[];
  serializesModels?: boolean;
  properties?: ReflectedProperty[];
  tuning?: Record<string, ReflectedValue>;
  /** What PHP computes at run time and a declaration cannot know (tags(), middleware(), computed defaults). */
  dynamic?: string[];
  /** A listener's event class (its handle() parameter). */
  event?: string | null;
  /** An enum's backing type, null for a pure enum. */
  backing?: 'int' | 'string' | null;
  cases?: { name: string; value?: ReflectedValue }[];
}

/** The reflector's output. */
export interface Reflection {
  /** Illuminate\Foundation\Application::VERSION, e.g. "12.67.0". */
  laravel: string | null;
  php: string;
  classes: ReflectedClass[];
}

/** The reflector script, shipped with the package. */
export const REFLECTOR = join(__dirname, 'reflect.php');

/** Run the reflector over the app in `appDir` with the PHP binary `php` (default `php`). */
export function reflectApp(appDir: string, php = 'php'): Reflection {
  const app = resolve(appDir);
  if (!existsSync(join(app, 'vendor', 'autoload.php')))
    throw new TypesReflectionError(
      `${app} has no vendor/autoload.php: run larq types in the Laravel app (composer install)`,
    );
  const run = spawnSync(php, [reflectorPath(), app], { cwd: app, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (run.error) throw new TypesReflectionError(`cannot run ${php}: ${run.error.message}`);
  if (run.status !== 0)
    throw new TypesReflectionError(
      `the PHP reflector failed (exit ${run.status}): ${run.stderr.trim() || run.stdout.trim()}`,
    );
  try {
    return JSON.parse(run.stdout) as Reflection;
  } catch {
    throw new TypesReflectionError(`the PHP reflector printed no JSON: ${run.stdout.slice(0, 200)}`);
  }
}

// Compiled into dist/types, the script stays in lib/types (the package ships both folders).
function reflectorPath(): string {
  if (existsSync(REFLECTOR)) return REFLECTOR;
  const source = join(__dirname, '..', '..', 'lib', 'types', 'reflect.php');
  return existsSync(source) ? source : REFLECTOR;
}
