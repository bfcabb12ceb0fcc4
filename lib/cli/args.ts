// Command-line parsing shared by every command: artisan-style --flag=value options, strict (an unknown
// flag is an error naming it), plus the flags every command takes.
import { parseArgs, type ParseArgsConfig } from 'util';
import { LarqError } from '../errors';
import { loadEnvironment } from './dotenv';
import { configFromEnv, type CliConfig } from './config';
import { join } from 'path';

/** A mistake in how the command was called: printed as one line, exit status 2. */
export class UsageError extends LarqError {}

type Options = NonNullable<ParseArgsConfig['options']>;

/** The flags every command takes. */
export const GLOBAL_OPTIONS: Options = {
  env: { type: 'string' },
  app: { type: 'string' },
  prefix: { type: 'string' },
  'redis-url': { type: 'string' },
  laravel: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
};

/** Help lines for the global flags. */
export const GLOBAL_HELP = `Every command also takes:
  --env=PATH          read this .env file (process variables still win)
  --app=DIR           a Laravel app: reads DIR/.env, relative paths resolve from DIR
  --laravel=N         the PHP peers' Laravel major version, 8-13 (default 13, or LARQ_LARAVEL)
  --prefix=PREFIX     the Redis key prefix (default REDIS_PREFIX, else derived like Laravel)
  --redis-url=URL     Redis (default REDIS_URL, else REDIS_HOST/REDIS_PORT/...)
  -h, --help          this help`;

/** Parsed arguments of one command. */
export interface Parsed {
  values: Record<string, string | boolean | undefined>;
  positionals: string[];
}

/** Parse `argv` for `command` with its own options plus the global ones; unknown flags throw UsageError. */
export function parse(command: string, argv: string[], options: Options): Parsed {
  try {
    const { values, positionals } = parseArgs({ args: argv, options: { ...GLOBAL_OPTIONS, ...options }, allowPositionals: true, strict: true });
    return { values: values as Parsed['values'], positionals };
  } catch (e) {
    const message = (e as Error).message.replace(/^Unknown option '([^']*)'.*$/s, 'unknown option $1').replace(/\. To specify a positional.*$/s, '');
    throw new UsageError(`larq ${command}: ${message} (see larq ${command} --help)`);
  }
}

/** The configuration for a parsed command line: --app/--env, the environment, then overrides. */
export function configFor(p: Parsed): CliConfig {
  const app = p.values.app as string | undefined;
  const envFile = (p.values.env as string | undefined) ?? (app !== undefined ? join(app, '.env') : undefined);
  const env = loadEnvironment(envFile);
  return configFromEnv(env, {
    app,
    prefix: p.values.prefix as string | undefined,
    redisUrl: p.values['redis-url'] as string | undefined,
    laravel: p.values.laravel as string | undefined,
  });
}

/** A non-negative number flag, or UsageError naming it. */
export function numberFlag(command: string, p: Parsed, name: string, fallback: number, integer = true): number {
  const raw = p.values[name];
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (typeof raw !== 'string' || raw.trim() === '' || !Number.isFinite(n) || n < 0 || (integer && !Number.isInteger(n))) {
    throw new UsageError(`larq ${command}: --${name} must be ${integer ? 'a whole number' : 'a number'} >= 0, got "${String(raw)}"`);
  }
  return n;
}
