// Strict servers (Dragonfly by default, Redis Cluster proxies) refuse a script that touches a key it did
// not declare in KEYS. This reads every script's source: each Redis command a script issues must name
// its keys as `KEYS[n]` literally, never a key built from ARGV, a variable or a concatenation. A command
// not in the table below fails the spec until its key positions are added. (What the scripts touch at
// run time, with the keys their callers pass, is checked against a real server in
// spec/integration/lua-keys.spec.ts.)
import { expect } from 'chai';
import { SCRIPTS, scriptSource, type ScriptName, type ScriptSpec } from '../../lib/redis/scripts';

// The argument positions (0 = first after the command's name) that are keys; 'all' = every argument.
const KEY_POSITIONS: Record<string, number[] | 'all'> = {
  DEL: 'all',
  EXISTS: 'all',
  EXPIRE: [0],
  GET: [0],
  HGET: [0],
  HINCRBY: [0],
  HMGET: [0],
  HMSET: [0],
  HSETNX: [0],
  LLEN: [0],
  LPOP: [0],
  LRANGE: [0],
  LTRIM: [0],
  RPUSH: [0],
  SADD: [0],
  ZADD: [0],
  ZCARD: [0],
  ZRANGEBYSCORE: [0],
  ZREM: [0],
  ZREMRANGEBYRANK: [0],
  ZSCORE: [0],
};

/** One Redis command in a script's text: its name (or the variable holding it) and its argument expressions. */
interface CommandCall {
  command: string;
  args: string[];
  /** The line, for messages. */
  text: string;
}

// The script without comments (a `--` outside a string starts one; the scripts' strings hold no `--`).
function code(source: string): string {
  return source
    .split('\n')
    .map((line) => line.replace(/--.*$/, ''))
    .join('\n');
}

// Split an argument list at top-level commas (parentheses, braces and quotes nest).
function splitArgs(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let quote: string | null = null;
  let current = '';
  for (const ch of text) {
    if (quote) {
      if (ch === quote) quote = null;
    } else if (ch === "'" || ch === '"') quote = ch;
    else if ('({['.includes(ch)) depth++;
    else if (')}]'.includes(ch)) depth--;
    else if (ch === ',' && depth === 0) {
      out.push(current.trim());
      current = '';
      continue;
    }
    current += ch;
  }
  if (current.trim() !== '') out.push(current.trim());
  return out;
}

// Every call `name(...)` in `text` (not the function's own declaration), with its balanced argument list.
function callsOf(text: string, name: string): { args: string[]; text: string }[] {
  const out: { args: string[]; text: string }[] = [];
  const pattern = new RegExp(`(?<![\\w.])(?<!function )${name.replace('.', '\\.')}\\(`, 'g');
  for (const match of text.matchAll(pattern)) {
    let depth = 1;
    let i = match.index! + match[0].length;
    const start = i;
    for (; i < text.length && depth > 0; i++) {
      if (text[i] === '(') depth++;
      else if (text[i] === ')') depth--;
    }
    const inner = text.slice(start, i - 1);
    out.push({ args: splitArgs(inner), text: `${name}(${inner})` });
  }
  return out;
}

/**
 * Every Redis command a script issues: its `redis.call`s with a literal command name, and the calls of
 * its local helpers that pass their first two parameters on as `redis.call(command, key, ...)`.
 */
function commandsOf(source: string): { calls: CommandCall[]; unresolved: string[] } {
  const text = code(source);
  const calls: CommandCall[] = [];
  const unresolved: string[] = [];
  const wrappers = new Map<string, [string, string]>();
  for (const m of text.matchAll(/local function (\w+)\((\w+), (\w+)[,)]/g)) wrappers.set(m[1], [m[2], m[3]]);
  for (const call of callsOf(text, 'redis.call')) {
    const [command, ...args] = call.args;
    const literal = /^'(\w+)'$|^"(\w+)"$/.exec(command);
    if (literal) calls.push({ command: (literal[1] ?? literal[2]).toUpperCase(), args, text: call.text });
    else if (![...wrappers.values()].some(([c, k]) => c === command && args[0] === k)) unresolved.push(call.text);
  }
  for (const name of wrappers.keys()) {
    for (const call of callsOf(text, name)) {
      const [command, ...args] = call.args;
      const literal = /^'(\w+)'$|^"(\w+)"$/.exec(command);
      if (literal) calls.push({ command: (literal[1] ?? literal[2]).toUpperCase(), args: [args[0]], text: call.text });
      else unresolved.push(call.text);
    }
  }
  return { calls, unresolved };
}

describe('Lua scripts declare every key they touch in KEYS', () => {
  for (const name of Object.keys(SCRIPTS) as ScriptName[]) {
    const spec = SCRIPTS[name];
    describe(spec.file, () => {
      const { calls, unresolved } = commandsOf(scriptSource(name));

      it('issues every Redis command with a literal command name (or through a helper that forwards one)', () => {
        expect(unresolved).to.deep.equal([]);
        expect(calls.length).to.be.greaterThan(0);
      });

      it('names each key of each command as KEYS[n] with n declared, never built from ARGV or joined', () => {
        for (const call of calls) {
          const positions = KEY_POSITIONS[call.command];
          expect(
            positions,
            `${call.command} is not in KEY_POSITIONS: add its key positions (${call.text})`,
          ).to.not.equal(undefined);
          const keyArgs = positions === 'all' ? call.args : positions.map((p) => call.args[p]);
          for (const arg of keyArgs) {
            const key = /^KEYS\[(\d+)\]$/.exec(arg ?? '');
            expect(key, `${call.text}: the key ${arg} is not a KEYS[n]`).to.not.equal(null);
            expect(Number(key![1])).to.be.within(1, spec.keys);
          }
        }
      });

      it('touches every key it declares', () => {
        const used = new Set(
          calls.flatMap((c) =>
            KEY_POSITIONS[c.command] === 'all' ? c.args : (KEY_POSITIONS[c.command] as number[]).map((p) => c.args[p]),
          ),
        );
        // Keys handed to a part (`pcall(part, { KEYS[a], ... }, ...)`) are touched by it: each part is
        // checked above, on its own, to touch every key it is given.
        for (const part of (spec as ScriptSpec).parts ?? [])
          for (const table of code(scriptSource(name)).matchAll(new RegExp(`\\b${part}, \\{([^}]*)\\}`, 'g')))
            for (const key of table[1].matchAll(/KEYS\[\d+\]/g)) used.add(key[0]);
        expect([...used].sort()).to.deep.equal(Array.from({ length: spec.keys }, (_, i) => `KEYS[${i + 1}]`).sort());
      });
    });
  }

  it('finds a key built from ARGV or by concatenation (the checks can fail)', () => {
    const built = commandsOf(
      "local q = KEYS[1]\nredis.call('RPUSH', q .. ':notify', 1)\nredis.call('LPOP', ARGV[1])\nredis.call(ARGV[2], KEYS[1])",
    );
    expect(built.calls.map((c) => c.args[0])).to.deep.equal(["q .. ':notify'", 'ARGV[1]']);
    expect(built.unresolved).to.deep.equal(['redis.call(ARGV[2], KEYS[1])']);
  });
});
