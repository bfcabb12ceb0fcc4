// Command-line parsing shared by every command: artisan-style `--flag=value` options (also `--flag value`),
// strict, so a misspelt flag is an error naming it (with a suggestion) instead of being ignored, plus the
// global flags every command takes and checked readers for numeric values.
import { parseArgs, type ParseArgsConfig } from 'util';
import { join, resolve } from 'path';
import { existsSync, statSync } from 'fs';
import { LARAVEL_VERSION_RULE, type LaravelVersion } from '../LaravelLine';
import { LarqError } from '../errors';
import { configFromEnv, parseLaravelVersion, type CliConfig } from './config';
import { loadEnvironment } from './dotenv';

/** A mistake in how larq was called: printed as one line, exit status 2. */
export class UsageError extends LarqError {}

/** A command-line argument the command cannot take (e.g. a failed-job ID that is none); `argument` is the text given. */
export class InvalidArgumentError extends UsageError {
  constructor(
    readonly argument: string,
    message: string,
  ) {
    super(message);
  }
}

/** Option specs in node:util parseArgs' form. */
export type Options = NonNullable<ParseArgsConfig['options']>;

/** Parsed arguments of one command. */
export interface Parsed {
  command: string;
  values: Record<string, string | boolean | string[] | undefined>;
  positionals: string[];
}

/** Where a command writes: `out` for its results (stdout), `err` for notes and errors (stderr). */
export interface Io {
  out(line: string): void;
  err(line: string): void;
}

/** One larq command: its flags, its help, and what it does. */
export interface Command {
  name: string;
  /** One line for `larq --help`. */
  summary: string;
  /** `larq <name> --help`, without the global flags (added by help.ts). */
  help: string;
  /** Its own flags; the global ones are added. */
  options: Options;
  /** How many positional arguments it takes. */
  positionals: { min: number; max: number; what: string };
  run(p: Parsed, io: Io): Promise<number>;
}

/** The flags every command takes. */
export const GLOBAL_OPTIONS: Options = {
  env: { type: 'string' },
  app: { type: 'string' },
  prefix: { type: 'string' },
  'redis-url': { type: 'string' },
  'redis-read-timeout': { type: 'string' },
  laravel: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
};

/** Parse `argv` for `command`; every mistake throws a UsageError naming the flag and what is allowed. */
export function parse(command: Command, argv: string[]): Parsed {
  const options = { ...GLOBAL_OPTIONS, ...command.options };
  const name = command.name;
  let parsed: { values: Parsed['values']; positionals: string[] };
  try {
    parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true }) as typeof parsed;
  } catch (e) {
    throw new UsageError(`larq ${name}: ${describeParseError(e as Error & { code?: string }, options, name)}`);
  }
  const p: Parsed = { command: name, ...parsed };
  if (p.values.help) return p;
  const { min, max, what } = command.positionals;
  if (p.positionals.length > max) {
    const extra = p.positionals[max];
    throw new UsageError(
      `larq ${name}: unexpected argument "${extra}"${max === 0 ? ` (larq ${name} takes no arguments)` : ` (it takes ${what})`}`,
    );
  }
  if (p.positionals.length < min) throw new UsageError(`larq ${name}: missing ${what} (see larq ${name} --help)`);
  return p;
}

// parseArgs' messages mention positionals and `--` hints; these say what to type instead.
function describeParseError(e: Error & { code?: string }, options: Options, command: string): string {
  // "Option '-q, --quiet' does not take an argument": name the long form, not "-q,".
  const flag = /'(?:-[^-' ], )?(-{1,2}[^' ]+)/.exec(e.message)?.[1] ?? '';
  if (e.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    const guess = closest(flag.replace(/^-+/, '').split('=')[0], Object.keys(options));
    return `unknown option ${flag}${guess ? `; did you mean --${guess}?` : ''} (see larq ${command} --help)`;
  }
  if (e.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    const bare = flag.replace(/^-+/, '');
    if (options[bare]?.type === 'boolean') return `${flag} is a switch and takes no value`;
    return `${flag} needs a value: ${flag}=VALUE`;
  }
  return e.message;
}

// The known name nearest to a misspelt one (edit distance at most 2), for "did you mean".
function closest(word: string, names: string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = 3;
  for (const name of names) {
    const d = distance(word, name);
    if (d < bestDistance) [best, bestDistance] = [name, d];
  }
  return best;
}

function distance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++)
      next[j] = Math.min(row[j] + 1, next[j - 1] + 1, row[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    row = next;
  }
  return row[b.length];
}

/** A string flag's value, or undefined. */
export function stringFlag(p: Parsed, name: string): string | undefined {
  const v = p.values[name];
  return typeof v === 'string' ? v : undefined;
}

/** A number flag (>= `min`, whole unless `fractional`), `fallback` when absent; else a UsageError naming it. */
export function numberFlag(p: Parsed, name: string, fallback: number, { min = 0, fractional = false } = {}): number {
  const raw = stringFlag(p, name);
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(n) || n < min || (!fractional && !Number.isInteger(n))) {
    throw new UsageError(
      `larq ${p.command}: --${name} must be ${fractional ? 'a number' : 'a whole number'} >= ${min}, got "${raw}"`,
    );
  }
  return n;
}

/** Checks the global flags and builds the configuration: --app/--env (or ./.env), the environment, then overrides. */
export function configFor(p: Parsed, processEnv: NodeJS.ProcessEnv = process.env): CliConfig {
  const app = stringFlag(p, 'app');
  if (app !== undefined && !(existsSync(app) && statSync(app).isDirectory()))
    throw new UsageError(`larq ${p.command}: --app=${app} is not a directory`);
  // Run from a Laravel app's root, larq reads its .env as artisan would.
  const implicit = join(resolve(app ?? '.'), '.env');
  const envFile = stringFlag(p, 'env') ?? (existsSync(implicit) ? implicit : undefined);
  if (stringFlag(p, 'env') !== undefined && !existsSync(envFile!))
    throw new UsageError(`larq ${p.command}: --env=${envFile} does not exist`);
  const laravelText = stringFlag(p, 'laravel');
  let laravel: LaravelVersion | undefined;
  try {
    laravel = laravelText === undefined ? undefined : parseLaravelVersion(laravelText, '--laravel').version;
  } catch {
    throw new UsageError(`larq ${p.command}: --laravel ${LARAVEL_VERSION_RULE}, got "${laravelText}"`);
  }
  const redisUrl = stringFlag(p, 'redis-url');
  if (redisUrl !== undefined && !/^(rediss?|tls):\/\/./.test(redisUrl))
    throw new UsageError(`larq ${p.command}: --redis-url must be a redis:// or rediss:// URL, got "${redisUrl}"`);
  const readTimeout = stringFlag(p, 'redis-read-timeout');
  if (readTimeout !== undefined && !/^\d+(\.\d+)?$/.test(readTimeout))
    throw new UsageError(`larq ${p.command}: --redis-read-timeout must be seconds, got "${readTimeout}"`);
  return configFromEnv(loadEnvironment(envFile, processEnv), {
    app,
    prefix: stringFlag(p, 'prefix'),
    redisUrl,
    laravel,
    ...(readTimeout !== undefined ? { readTimeout: Number(readTimeout) } : {}),
  });
}
