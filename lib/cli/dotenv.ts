// Reading a Laravel app's .env file with the rules of the dotenv library Laravel boots with, so larq sees
// the values `php artisan` sees: KEY=value lines (an `export ` in front is allowed), `#` comments, single
// quotes literal, double quotes with backslash escapes that may span lines, and ${VAR} expansion outside
// single quotes. Laravel loads .env immutably: a variable already in the process environment wins over
// the file, both as a value and inside ${VAR}. laravelEnv() then reads values as Laravel's env() helper.
import { existsSync, readFileSync, statSync } from 'fs';
import { InvalidOptionError, LarqError } from '../errors';

/** A .env file that cannot be read or parsed; the message names the file and line. */
export class DotenvError extends LarqError {}

const KEY = /^(?:export[ \t]+)?([A-Za-z_][A-Za-z0-9_.]*)[ \t]*=[ \t]*/;
const ESCAPES: Record<string, string> = { n: '\n', r: '\r', t: '\t', f: '\f', v: '\v', '"': '"', '\\': '\\', $: '$' };

/**
 * The variables a .env text defines, in file order. `lookup` answers ${VAR} before the file's own earlier
 * values do (pass the process environment); `source` names the file in errors.
 */
export function parseDotenv(text: string, lookup: (name: string) => string | undefined = () => undefined, source = '.env'): Record<string, string> {
  const out: Record<string, string> = {};
  const variable = (name: string) => lookup(name) ?? out[name] ?? '';
  const expand = (s: string) => s.replace(/\$\{([A-Za-z_][A-Za-z0-9_.]*)\}/g, (_, name: string) => variable(name));
  // One pass, so an escaped `\${X}` stays literal and an expanded value is never unescaped again.
  const unescapeAndExpand = (s: string) =>
    s.replace(/\\(.)|\$\{([A-Za-z_][A-Za-z0-9_.]*)\}/gs, (all, c: string | undefined, name: string | undefined) => (c !== undefined ? (ESCAPES[c] ?? all) : variable(name!)));
  const lines = text.replace(/^\uFEFF/, '').split(/\r\n|\r|\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    if (line === '' || line.startsWith('#')) continue;
    const where = `${source} line ${i + 1}`;
    const key = KEY.exec(line);
    if (!key) throw new DotenvError(`${where}: expected KEY=value, got "${line.slice(0, 40)}"`);
    let rest = line.slice(key[0].length);
    let value: string;
    if (rest.startsWith("'")) {
      const end = rest.indexOf("'", 1);
      if (end < 0) throw new DotenvError(`${where}: ${key[1]} has no closing single quote`);
      value = rest.slice(1, end);
      rest = rest.slice(end + 1);
    } else if (rest.startsWith('"')) {
      // A double-quoted value may continue on the following lines until its closing quote.
      let body = rest.slice(1);
      let end = closingQuote(body);
      while (end < 0 && i + 1 < lines.length) {
        body += '\n' + lines[++i];
        end = closingQuote(body);
      }
      if (end < 0) throw new DotenvError(`${where}: ${key[1]} has no closing double quote`);
      value = unescapeAndExpand(body.slice(0, end));
      rest = body.slice(end + 1);
    } else {
      // Unquoted: a `#` starts a comment only after whitespace, so `a#b` keeps its `#`.
      value = expand(rest.replace(/(^|[ \t])#.*$/, '').trim());
      rest = '';
    }
    if (rest.trim() !== '' && !rest.trim().startsWith('#')) throw new DotenvError(`${where}: unexpected text after the quoted value of ${key[1]}`);
    out[key[1]] = value;
  }
  return out;
}

// Index of the first unescaped double quote, or -1.
function closingQuote(text: string): number {
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === '"') return i;
  }
  return -1;
}

/** The environment a command runs with: the .env file's variables, each overridden by the process's own. */
export function loadEnvironment(envFile: string | undefined, processEnv: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const merged: Record<string, string> = {};
  if (envFile !== undefined) {
    if (!existsSync(envFile) || !statSync(envFile).isFile()) throw new DotenvError(`${envFile}: no such .env file`);
    Object.assign(merged, parseDotenv(readFileSync(envFile, 'utf8'), (name) => processEnv[name], envFile));
  }
  for (const [k, v] of Object.entries(processEnv)) if (v !== undefined) merged[k] = v;
  return merged;
}

/** Laravel's env() over a set of variables, with typed readers that name the variable when a value is bad. */
export interface LaravelEnv {
  /** The value; undefined when unset or null. */
  get(name: string): string | undefined;
  /** A prefix: undefined when unset (derive it), "" when null or empty (no prefix). */
  prefix(name: string): string | undefined;
  /** Whether the variable is set to "null" or "(null)". */
  isNull(name: string): boolean;
  /** A whole number from 0 to `max`; `fallback` when unset, null or blank; else InvalidOptionError naming it. */
  int(name: string, fallback: number, max?: number): number;
  /** A number >= 0 (fractions allowed), read like int(). */
  number(name: string, fallback: number): number;
}

/** Laravel's env() over `vars`: see LaravelEnv. */
export function laravelEnv(vars: Record<string, string>): LaravelEnv {
  const raw = (name: string): string | null | undefined => {
    const v = vars[name];
    if (v === undefined) return undefined;
    const lower = v.toLowerCase();
    if (lower === 'null' || lower === '(null)') return null;
    if (lower === 'empty' || lower === '(empty)') return '';
    const quoted = /^(['"])([\s\S]*)\1$/.exec(v);
    return quoted ? quoted[2] : v;
  };
  const get = (name: string) => raw(name) ?? undefined;
  const numeric = (name: string, fallback: number, whole: boolean, max = Number.MAX_SAFE_INTEGER): number => {
    const text = get(name);
    if (text === undefined || text.trim() === '') return fallback;
    const n = Number(text);
    if (!Number.isFinite(n) || n < 0 || n > max || (whole && !Number.isInteger(n))) {
      const range = max === Number.MAX_SAFE_INTEGER ? '>= 0' : `from 0 to ${max}`;
      throw new InvalidOptionError(name, `must be ${whole ? 'a whole number' : 'a number'} ${range}, got "${text}"`);
    }
    return n;
  };
  return {
    get,
    prefix: (name) => (raw(name) === null ? '' : get(name)),
    isNull: (name) => raw(name) === null,
    int: (name, fallback, max) => numeric(name, fallback, true, max),
    number: (name, fallback) => numeric(name, fallback, false),
  };
}
