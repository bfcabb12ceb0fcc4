// The exception column of a failed job holds PHP's `(string) $exception`, and tools around Laravel
// (queue:failed, Horizon, error trackers reading the table) expect that shape. This renders a JS Error
// the same way, with file, line and frames taken from the V8 stack.
import { fileURLToPath } from 'url';

/** How formatException names the classes. */
export interface FormatExceptionOptions {
  /**
   * The class to show instead of `error.name`: a string names the outermost error only; a function is
   * asked for every error of the cause chain (undefined keeps the error's own name).
   */
  className?: string | ((error: Error) => string | undefined);
}

/** One V8 stack frame: the function running and where it was (file null when V8 gives no position). */
interface Frame {
  call: string;
  file: string | null;
  line: number;
}

// V8 writes frames as "    at NAME (LOCATION)" or "    at LOCATION".
const FRAME_LINE = /^\s*at (?:(.+?) \((.*)\)|(.+))$/;
const POSITION = /^(.*):(\d+):(\d+)$/;

/**
 * PHP's string form of a throwable for a JS Error: `Class: message in /file.js:LINE`, `Stack trace:`,
 * `#0 file(line): call()` ... `#N {main}`. `cause` errors come first, as PHP prints previous exceptions,
 * each later one after a blank line and `Next `.
 */
export function formatException(error: Error, opts: FormatExceptionOptions = {}): string {
  // Only Error causes chain: PHP's previous exception is always a Throwable. includes() stops cycles.
  const chain: Error[] = [];
  for (let e: unknown = error; e instanceof Error && !chain.includes(e); e = e.cause) chain.push(e);
  const parts = chain.map((e, i) => formatOne(e, classNameOf(e, i === 0, opts)));
  // Laravel 9.2+ stores the text converted to UTF-8; a lone surrogate has no UTF-8 form and becomes '?'
  // the way mb_convert_encoding substitutes invalid input.
  return toWellFormed(parts.reverse().join('\n\nNext '));
}

function classNameOf(error: Error, outermost: boolean, opts: FormatExceptionOptions): string {
  const option = opts.className;
  const chosen = typeof option === 'function' ? option(error) : outermost ? option : undefined;
  if (chosen) return chosen;
  return typeof error.name === 'string' && error.name !== '' ? error.name : 'Error';
}

function formatOne(error: Error, className: string): string {
  const frames = parseStack(typeof error.stack === 'string' ? error.stack : '', error);
  // PHP reports where the exception was created; when that is inside native code (JSON.parse), the
  // nearest frame with a position is the user's line that called it, which is what PHP would show.
  const origin = frames.find((f) => f.file !== null);
  const where = origin ? `${origin.file}:${origin.line}` : 'Unknown:0';
  const message = String(error.message ?? '');
  const head = message === '' ? `${className} in ${where}` : `${className}: ${message} in ${where}`;

  // A PHP frame names the function called and the place it was called from; in V8 that place is the
  // position of the next (calling) frame. The outermost call has no caller we know of.
  const lines = frames.map((frame, i) => {
    const caller = frames[i + 1];
    const place = caller && caller.file !== null ? `${caller.file}(${caller.line})` : '[internal function]';
    return `#${i} ${place}: ${frame.call}()`;
  });
  lines.push(`#${frames.length} {main}`);
  return `${head}\nStack trace:\n${lines.join('\n')}`;
}

/** The frames of a V8 stack, innermost first. */
function parseStack(stack: string, error: Error): Frame[] {
  // V8 starts the stack with "Name: message" (its Error.prototype.toString); skipping that exact text
  // keeps a multi-line message out of the frames even when a line of it looks like a frame.
  const header = String(error.message ?? '') === '' ? String(error.name) : `${error.name}: ${error.message}`;
  if (stack.startsWith(`${header}\n`)) stack = stack.slice(header.length + 1);
  // Otherwise (a name changed after construction) the frames are the trailing run of "at" lines.
  const lines = stack.split('\n');
  let start = lines.length;
  while (start > 0 && FRAME_LINE.test(lines[start - 1])) start--;
  return lines.slice(start).map(parseFrame);
}

function parseFrame(text: string): Frame {
  const m = FRAME_LINE.exec(text) as RegExpExecArray;
  const name = m[1] ?? '';
  const location = m[2] ?? m[3];
  return { call: phpCallName(name), ...parseLocation(location) };
}

function parseLocation(location: string): { file: string | null; line: number } {
  // eval'd code: "eval at f (/a.js:1:2), <anonymous>:3:4"; the position inside the eval is the last part.
  const last = location.startsWith('eval at ') ? location.slice(location.lastIndexOf(', ') + 2) : location;
  const m = POSITION.exec(last);
  if (!m) return { file: null, line: 0 }; // "native", "<anonymous>", "index 0" (Promise.all)
  let file = m[1];
  if (file.startsWith('file://')) {
    try {
      file = fileURLToPath(file);
    } catch {
      // Keep the URL as V8 gave it.
    }
  }
  return { file, line: Number(m[2]) };
}

/** V8's function label in PHP's spelling: `Class->method`, `Class->__construct`, `{closure}`. */
function phpCallName(name: string): string {
  let n = name.replace(/ \[as [^\]]*\]$/, '');
  if (n.startsWith('async ')) n = n.slice(6);
  if (n.startsWith('new ')) return `${n.slice(4)}->__construct`;
  if (n === '') return '{closure}';
  n = n.replace(/<anonymous>/g, '{closure}');
  // "Type.method" is V8's receiver type and method; PHP writes an instance call as Type->method.
  const dot = n.indexOf('.');
  return dot > 0 ? `${n.slice(0, dot)}->${n.slice(dot + 1)}` : n;
}

function toWellFormed(text: string): string {
  return text.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '?');
}
