// Reading a Laravel app's .env the way its dotenv does for the keys larq uses: KEY=value lines, `export`
// prefixes, '#' comments, single quotes literal, double quotes with \n and \" escapes, and ${VAR}
// expansion in unquoted and double-quoted values. The process environment wins over the file.
import { existsSync, readFileSync } from 'fs';
import { InvalidOptionError } from '../errors';

/** The variables a .env text defines, in order. */
export function parseDotenv(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const rawLine of text.split(/\r?\n/)) {
    const line = rawLine.trim();
    if (line === '' || line.startsWith('#')) continue;
    const m = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_.]*)\s*=\s*(.*)$/.exec(line);
    if (!m) continue;
    const [, key, rest] = m;
    out[key] = value(rest, out);
  }
  return out;
}

function value(rest: string, seen: Record<string, string>): string {
  const expand = (s: string) => s.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => seen[name] ?? process.env[name] ?? '');
  if (rest.startsWith("'")) return rest.slice(1, closing(rest, "'"));
  if (rest.startsWith('"')) {
    const inner = rest.slice(1, closing(rest, '"'));
    return expand(inner.replace(/\\(["\\n])/g, (_, c: string) => (c === 'n' ? '\n' : c)));
  }
  return expand(rest.replace(/\s+#.*$/, '').trim());
}

// Index of the closing quote, skipping escaped ones; the rest of the line when there is none.
function closing(text: string, quote: string): number {
  for (let i = 1; i < text.length; i++) {
    if (text[i] === '\\' && quote === '"') i++;
    else if (text[i] === quote) return i;
  }
  return text.length;
}

/** The environment for a command: the .env file's variables, overridden by the process environment. */
export function loadEnvironment(envFile: string | undefined, processEnv: NodeJS.ProcessEnv = process.env): Record<string, string> {
  let fromFile: Record<string, string> = {};
  if (envFile !== undefined) {
    if (!existsSync(envFile)) throw new InvalidOptionError('--env', `${envFile} does not exist`);
    fromFile = parseDotenv(readFileSync(envFile, 'utf8'));
  }
  const merged: Record<string, string> = { ...fromFile };
  for (const [k, v] of Object.entries(processEnv)) if (v !== undefined) merged[k] = v;
  return merged;
}
