// Loader for the recorded Laravel fixtures in compat-fixtures/laravel (copied from shared/laravel-fixtures;
// its README explains the format).
import { readdirSync, readFileSync } from 'fs';
import { join } from 'path';

export const FIXTURE_DIR = join(__dirname, '..', '..', 'compat-fixtures', 'laravel');

export type RedisDump = Record<
  string,
  | { type: 'list'; items: string[] }
  | { type: 'zset'; items: { member: string; score: number }[] }
  | { type: string; value?: unknown; items?: unknown }
>;

/** The language-neutral description of a PHP value used by the fixtures' `job` field. */
export type Described =
  | {
      t: 'object';
      class: string;
      props: {
        name: string;
        visibility: 'public' | 'protected' | 'private';
        declaringClass?: string;
        value: Described;
      }[];
    }
  | { t: 'string'; v: string }
  | { t: 'int'; v: number | string }
  | { t: 'bool'; v: boolean }
  | { t: 'float'; v: string }
  | { t: 'null' }
  | { t: 'array'; entries: { k: number | string; v: Described }[] }
  | { t: 'enum'; class: string; case: string };

export interface Fixture {
  /** "8.x", "12.x" or "13.x" */
  version: string;
  /** file name without .json, e.g. "object-basic" */
  name: string;
  laravel: string;
  prefix: string;
  scenario: string;
  about: string;
  written: RedisDump;
  popped: null | { raw: string; reserved: string; attempts: number; after: RedisDump };
  job?: Described;
}

/** Every fixture, for every Laravel version. */
export function loadFixtures(): Fixture[] {
  const out: Fixture[] = [];
  for (const version of readdirSync(FIXTURE_DIR)
    .filter((d) => d.endsWith('.x'))
    .sort()) {
    for (const file of readdirSync(join(FIXTURE_DIR, version))
      .filter((f) => f.endsWith('.json'))
      .sort()) {
      const data = JSON.parse(readFileSync(join(FIXTURE_DIR, version, file), 'utf8'));
      out.push({ version, name: file.replace(/\.json$/, ''), ...data });
    }
  }
  return out;
}

/** The payload strings a fixture pushed (list items and zset members), in key order. */
export function pushedPayloads(f: Fixture): string[] {
  const out: string[] = [];
  for (const key of Object.keys(f.written)) {
    const entry = f.written[key];
    if (key.endsWith(':notify')) continue;
    if (entry.type === 'list') out.push(...(entry.items as string[]));
    if (entry.type === 'zset') out.push(...(entry.items as { member: string }[]).map((i) => i.member));
  }
  return out;
}

/** The clock every fixture was recorded at (createdAt in 12.x/13.x; pop scores minus retry_after 90). */
export const FIXTURE_NOW = 1795276770;
export const FIXTURE_RETRY_AFTER = 90;
/** The APP_KEY object-encrypted.json was made with (AES-256-CBC). */
export const FIXTURE_APP_KEY = 'base64:a2tra2tra2tra2tra2tra2tra2tra2tra2tra2tra2s=';
