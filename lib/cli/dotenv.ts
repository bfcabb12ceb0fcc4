// Reading a Laravel app's .env file exactly as the phpdotenv library Laravel boots with (vlucas/phpdotenv 5)
// reads it, so larq sees the values `php artisan` sees, and refuses the files artisan refuses:
// - lines end at CR, LF or CRLF; a line holding `="` whose quote does not close there continues on the
//   following lines until one does (a value that never closes is dropped with its lines, as phpdotenv does);
// - NAME=value, split at the first `=`, both sides trimmed; `export NAME`, a quoted name, and names of
//   letters, digits, `_` and `.`; a line without `=` clears the variable;
// - a value is read by phpdotenv's automaton: unquoted text ends at whitespace and a `#` anywhere starts a
//   comment (`abc#123` is `abc`); whitespace followed by more text is refused; single quotes are literal;
//   double quotes know the escapes \" \\ \$ \f \n \r \t \v and refuse any other;
// - `${NAME}` in unquoted and double-quoted values is replaced by the variable's value (the process
//   environment first, then what the file set before), or stays as written when there is none.
// Laravel loads .env immutably: a variable already in the process environment wins over the file.
// laravelEnv() then reads values as Laravel's env() helper.
import { existsSync, readFileSync, statSync } from 'fs';
import { InvalidOptionError, LarqError } from '../errors';

/** A .env file that cannot be read or that phpdotenv would refuse; the message names the file and line. */
export class DotenvError extends LarqError {}

/** One NAME=value entry of a .env file: its first line's number and its text (several lines if quoted). */
interface RawEntry {
  line: number;
  text: string;
}

/**
 * The variables a .env text sets, in file order. `lookup` answers ${VAR} before the file's own earlier
 * values do (pass the process environment); `source` names the file in errors.
 */
export function parseDotenv(
  text: string,
  lookup: (name: string) => string | undefined = () => undefined,
  source = '.env',
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of rawEntries(text)) {
    const fail = (cause: string, subject: string) =>
      new DotenvError(`${source} line ${entry.line}: ${cause} at [${subject.split('\n')[0]}]`);
    const equals = entry.text.indexOf('=');
    const name = parseName((equals < 0 ? entry.text : entry.text.slice(0, equals)).trim(), fail);
    if (equals < 0) {
      delete out[name];
      continue;
    }
    const value = parseValue(entry.text.slice(equals + 1).trim(), fail);
    out[name] = resolveVariables(value, (variable) => lookup(variable) ?? out[variable]);
  }
  return out;
}

// Splits the text into entries: blank and comment lines dropped, a double-quoted value spanning lines joined.
function rawEntries(text: string): RawEntry[] {
  const lines = text.replace(/^\uFEFF/, '').split(/\r\n|\n|\r/);
  const entries: RawEntry[] = [];
  let open: RawEntry | null = null;
  lines.forEach((line, index) => {
    if (open === null && line.includes('="') && !closesQuote(line, true)) {
      open = { line: index + 1, text: line };
      return;
    }
    if (open !== null) {
      open.text += '\n' + line;
      if (!closesQuote(line, false)) return;
      line = open.text;
      index = open.line - 1;
      open = null;
    }
    const trimmed = line.trim();
    if (trimmed !== '' && !trimmed.startsWith('#')) entries.push({ line: index + 1, text: line });
  });
  return entries;
}

// Whether a line ends a double-quoted value: the opening line needs two unescaped quotes after a character,
// a continuation line one (or is a lone quote).
function closesQuote(line: string, opening: boolean): boolean {
  if (line === '"') return true;
  const quotes = line.replaceAll('\\\\', '').match(/(?<=[^\\])"/g)?.length ?? 0;
  return opening ? quotes > 1 : quotes >= 1;
}

type Fail = (cause: string, subject: string) => DotenvError;

function parseName(raw: string, fail: Fail): string {
  if (raw === '') throw fail('an unexpected equals', raw);
  let name = raw;
  if (name.length > 8 && name.startsWith('export') && WHITESPACE.test(name[6])) name = name.slice(6).trimStart();
  if (name.length >= 3 && (name[0] === '"' || name[0] === "'") && name.at(-1) === name[0]) name = name.slice(1, -1);
  if (!/^[A-Za-z0-9_.]+$/.test(name)) throw fail('an invalid name', name);
  return name;
}

const WHITESPACE = /^[ \t\n\v\f\r]+$/;
// phpdotenv's tokens: runs of line ends, runs of other whitespace, each special character alone, runs of the rest.
const TOKEN = /[\r\n]+|[ \t\v\f]+|[\\'"#$]|[^ \t\n\v\f\r\\'"#$]+/g;
const ESCAPED: Record<string, string> = { f: '\f', n: '\n', r: '\r', t: '\t', v: '\v' };

const enum State {
  Initial,
  Unquoted,
  SingleQuoted,
  DoubleQuoted,
  Escape,
  AfterValue,
  Comment,
}

/** A value's characters and where each `$` that may start a ${NAME} stands in them. */
interface ParsedValue {
  chars: string;
  variables: number[];
}

function parseValue(raw: string, fail: Fail): ParsedValue {
  const value: ParsedValue = { chars: '', variables: [] };
  if (raw === '') return value;
  let state = State.Initial;
  const dollar = () => {
    value.variables.push(value.chars.length);
    value.chars += '$';
  };
  for (const token of raw.match(TOKEN) ?? []) {
    const blank = WHITESPACE.test(token);
    switch (state) {
      case State.Initial:
      case State.Unquoted:
        if (token === '#') state = State.Comment;
        else if (state === State.Initial && token === "'") state = State.SingleQuoted;
        else if (state === State.Initial && token === '"') state = State.DoubleQuoted;
        else if (state === State.Unquoted && blank) state = State.AfterValue;
        else {
          if (token === '$') dollar();
          else value.chars += token;
          state = State.Unquoted;
        }
        break;
      case State.SingleQuoted:
        if (token === "'") state = State.AfterValue;
        else value.chars += token;
        break;
      case State.DoubleQuoted:
        if (token === '"') state = State.AfterValue;
        else if (token === '\\') state = State.Escape;
        else if (token === '$') dollar();
        else value.chars += token;
        break;
      case State.Escape:
        if (token === '"' || token === '\\' || token === '$') value.chars += token;
        else if (ESCAPED[token[0]] !== undefined) value.chars += ESCAPED[token[0]] + token.slice(1);
        else throw fail('an unexpected escape sequence', raw);
        state = State.DoubleQuoted;
        break;
      case State.AfterValue:
        if (token === '#') state = State.Comment;
        else if (!blank) throw fail('unexpected whitespace', raw);
        break;
      case State.Comment:
        break;
    }
  }
  if (state === State.SingleQuoted || state === State.DoubleQuoted || state === State.Escape)
    throw fail('a missing closing quote', raw);
  return value;
}

// Replaces each ${NAME} that starts at a recorded `$`, from the last to the first, as phpdotenv's resolver
// does; a name with no value leaves the text as written.
function resolveVariables(value: ParsedValue, valueOf: (name: string) => string | undefined): string {
  let chars = value.chars;
  for (const at of [...value.variables].sort((a, b) => b - a)) {
    const rest = chars.slice(at);
    const reference = /^\$\{([A-Za-z0-9_.]+)\}/.exec(rest);
    const resolved = reference ? valueOf(reference[1]) : undefined;
    if (reference && resolved !== undefined) chars = chars.slice(0, at) + resolved + rest.slice(reference[0].length);
  }
  return chars;
}

/** The environment a command runs with: the .env file's variables, each overridden by the process's own. */
export function loadEnvironment(
  envFile: string | undefined,
  processEnv: NodeJS.ProcessEnv = process.env,
): Record<string, string> {
  const merged: Record<string, string> = {};
  if (envFile !== undefined) {
    if (!existsSync(envFile) || !statSync(envFile).isFile()) throw new DotenvError(`${envFile}: no such .env file`);
    Object.assign(
      merged,
      parseDotenv(readFileSync(envFile, 'utf8'), (name) => processEnv[name], envFile),
    );
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
