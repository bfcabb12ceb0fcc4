// The middleware a payload carries: the command's `middleware` property (Laravel's Queueable, 8.x-13.x),
// which `->through([...])` and a job's own `$middleware` fill with serialized middleware objects. Each is
// read into the Node middleware that keeps its semantics and keys; anything larq cannot run throws
// UnsupportedMiddlewareError, so the job is failed or left to PHP and never runs without its guard.
import { UnsupportedMiddlewareError } from '../errors';
import { PhpArray, PhpCustomObject, PhpObject, type PhpValue } from '../php/values';
import type { JobMiddleware } from './JobMiddleware';

/** Reads one serialized middleware object; throws UnsupportedMiddlewareError for a form Node cannot run. */
export type MiddlewareDecoder = (object: PhpObject, jobName: string) => JobMiddleware;

const decoders = new Map<string, MiddlewareDecoder>();

/** Register how a serialized Laravel middleware class is read (each lib/middleware file registers its own). */
export function registerMiddlewareDecoder(className: string, decoder: MiddlewareDecoder): void {
  decoders.set(className, decoder);
}

/** The Laravel middleware classes larq can run when a payload carries them. */
export function supportedMiddlewareClasses(): string[] {
  return [...decoders.keys()];
}

/**
 * The middleware `command` carries, in order. `ignore` lists classes the user has said may be left out
 * (their guard is then not kept by Node workers). Throws UnsupportedMiddlewareError naming the first class
 * that is neither runnable nor ignored.
 */
export function payloadMiddleware(command: PhpObject, jobName: string, ignore: ReadonlySet<string>): JobMiddleware[] {
  const list = command.get('middleware');
  if (list === undefined || list === null) return [];
  if (!(list instanceof PhpArray))
    throw new UnsupportedMiddlewareError(jobName, describe(list), 'the middleware property is not an array');
  if (list.size === 0) return [];
  const out: JobMiddleware[] = [];
  for (const item of list.entries.values()) {
    const className = classOf(item);
    if (ignore.has(className)) continue;
    const decoder = item instanceof PhpObject ? decoders.get(className) : undefined;
    if (!decoder) throw new UnsupportedMiddlewareError(jobName, className, reasonFor(item));
    out.push(decoder(item as PhpObject, jobName));
  }
  return out;
}

function classOf(item: PhpValue): string {
  if (item instanceof PhpObject || item instanceof PhpCustomObject) return item.className;
  // Pipeline resolves a string through the container: a class name
  if (typeof item === 'string') return item;
  return describe(item);
}

function reasonFor(item: PhpValue): string {
  if (typeof item === 'string') return 'a class name the PHP container resolves';
  if (item instanceof PhpObject && item.className.startsWith('Illuminate\\')) return 'not a middleware larq implements';
  return item instanceof PhpObject || item instanceof PhpCustomObject
    ? "the app's own PHP code"
    : 'not a middleware object';
}

function describe(value: PhpValue): string {
  if (value === null) return 'null';
  if (value instanceof PhpArray) return 'array';
  return typeof value;
}
