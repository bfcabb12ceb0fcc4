// Every Lua script documents its KEYS and ARGV in a header; this keeps the header, the file name's key
// count, the script body, and what scripts.ts actually sends in agreement.
import { expect } from 'chai';
import { readdirSync, readFileSync } from 'fs';
import { join } from 'path';
import type { Command, Redis } from 'ioredis';
import type { QueueKeys } from '../../lib/redis/keys';
import {
  defineScripts,
  LUA_DIR,
  SCRIPTS,
  scriptSha,
  scriptSource,
  scripts,
  type ScriptName,
  type ScriptSpec,
} from '../../lib/redis/scripts';

interface Header {
  keys: number[];
  args: number[];
  text: string;
}

// The leading comment block: every `-- KEYS[n]:` and `-- ARGV[n]:` line, in order.
function parseHeader(source: string): Header {
  const lines: string[] = [];
  for (const line of source.split('\n')) {
    if (!line.startsWith('--')) break;
    lines.push(line);
  }
  const indexes = (what: string) =>
    lines
      .map((l) => new RegExp(`^-- ${what}\\[(\\d+)\\]:`).exec(l))
      .filter((m) => m !== null)
      .map((m) => Number(m![1]));
  return { keys: indexes('KEYS'), args: indexes('ARGV'), text: lines.join('\n') };
}

// The highest KEYS[n] / ARGV[n] the code (comments stripped) refers to.
function highestUsed(source: string, what: string): number {
  const code = source
    .split('\n')
    .map((l) => l.replace(/--.*$/, ''))
    .join('\n');
  const used = [...code.matchAll(new RegExp(`${what}\\[(\\d+)\\]`, 'g'))].map((m) => Number(m[1]));
  return Math.max(0, ...used);
}

const range = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

// A stand-in client that records what each script was called with: through a defined command, or sent
// as a command object (an EVALSHA whose protocol text gives its argument count).
function recordingClient(): { client: Redis; calls: Map<string, unknown[]>; defined: Map<string, number> } {
  const calls = new Map<string, unknown[]>();
  const defined = new Map<string, number>();
  const bySha = new Map(
    (Object.keys(SCRIPTS) as ScriptName[]).map((n) => [scriptSha(scriptSource(n)), SCRIPTS[n].command]),
  );
  const fake: Record<string, unknown> = {
    sendCommand(command: Command) {
      const text = String(command.toWritable({}));
      const count = Number(/^\*(\d+)/.exec(text)?.[1]) - 3; // evalsha, sha, numkeys
      const name = bySha.get(String(command.args[0])) ?? 'unknown';
      calls.set(name, Array.from({ length: count }));
      command.resolve(Buffer.from('0'));
      return command.promise;
    },
    defineCommand(name: string, def: { numberOfKeys: number }) {
      defined.set(name, def.numberOfKeys);
      const command = (...args: unknown[]) => {
        calls.set(name, args);
        return Promise.resolve(name === 'larqPop' ? [null, null] : name === 'larqMigrateExpiredJobs' ? [] : 0);
      };
      // as ioredis does: the command, and its variant whose reply keeps bulk strings as Buffers
      fake[name] = command;
      fake[`${name}Buffer`] = command;
    },
  };
  return { client: fake as unknown as Redis, calls, defined };
}

describe('Lua script headers', () => {
  const files = readdirSync(LUA_DIR)
    .filter((f) => f.endsWith('.lua'))
    .sort();
  const names = Object.keys(SCRIPTS) as ScriptName[];

  it('every .lua file is registered in SCRIPTS, and every registered script has a file', () => {
    expect(files).to.deep.equal(names.map((n) => SCRIPTS[n].file).sort());
  });

  for (const name of names) {
    const spec = SCRIPTS[name];
    describe(spec.file, () => {
      const source = readFileSync(join(LUA_DIR, spec.file), 'utf8');
      const header = parseHeader(source);

      it('is named <script>-<key count>.lua', () => {
        expect(spec.file).to.equal(`${name}-${spec.keys}.lua`);
      });

      it('has a header with purpose, returns, and the Laravel method and versions it matches', () => {
        expect(header.text).to.match(/Purpose:/);
        expect(header.text).to.match(/Returns:/);
        const matches = /-- Matches: (.*(?:\n-- {3}.*)*)/.exec(header.text)?.[1] ?? '';
        expect(matches, 'a Laravel Class::method a reader can open').to.match(/Laravel .*`[A-Za-z\\]+::\w+`/);
        expect(matches, 'the Laravel versions').to.match(/\d+\.(x|\d+)/);
        expect(header.text, 'cites what a reader can open, not a document outside the repository').not.to.match(
          // built from parts, so the citations spec does not take this check for a citation
          new RegExp(`spec ${String.fromCharCode(0xa7)}`),
        );
      });

      it('declares KEYS[1..n] with examples and ARGV[1..n], matching the file name and SCRIPTS', () => {
        expect(header.keys).to.deep.equal(range(spec.keys));
        expect(header.args).to.deep.equal(range(spec.args));
        for (const line of header.text.split('\n').filter((l) => l.startsWith('-- KEYS[')))
          expect(line).to.match(/e\.g\. \S+/);
      });

      it('uses no KEYS or ARGV beyond those declared', () => {
        expect(highestUsed(source, 'KEYS')).to.equal(spec.keys);
        expect(highestUsed(source, 'ARGV')).to.equal(spec.args);
      });
    });
  }

  it('scripts.ts defines and calls each command with the declared KEYS + ARGV count', async () => {
    const { client, calls, defined } = recordingClient();
    defineScripts(client);
    const k: QueueKeys = {
      queue: 'p:queues:q',
      delayed: 'p:queues:q:delayed',
      reserved: 'p:queues:q:reserved',
      notify: 'p:queues:q:notify',
      invalid: 'p:queues:q:larq:invalid',
      failed: 'p:queues:q:larq:failed',
    };
    await scripts.size(client, k);
    await scripts.push(client, k, 'payload');
    await scripts.later(client, k, 100, 'payload');
    await scripts.pop(client, k, 100);
    await scripts.workerPop(client, k, { now: 100, limit: -1, reserved: true }, 130, 25, []);
    await scripts.release(client, k, 'reserved', 100);
    await scripts.migrateExpiredJobs(client, k.delayed, k.queue, k.notify, 100, -1);
    await scripts.clear(client, k);
    await scripts.releaseLock(client, 'p:cache:lock', 'owner');
    await scripts.extendReservation(client, k, 'reserved', 100);
    await scripts.updateMetricsInto(client, 'p_horizon:job:App\\Jobs\\X', 'p_horizon:measured_jobs', '12.5');
    await scripts.durationLimiter(client, 'p:limiter', '100.5', 100, 60, 10);
    await scripts.durationLimiterTooManyAttempts(client, 'p:limiter', '100.5', 100, 60, 10);
    for (const name of names) {
      const spec: ScriptSpec = SCRIPTS[name];
      if (spec.partOf !== undefined) {
        // Sent only inside the script it is a part of: never defined or called on its own.
        expect(defined.has(spec.command), spec.command).to.equal(false);
        expect(calls.has(spec.command), spec.command).to.equal(false);
        continue;
      }
      expect(defined.get(spec.command), spec.command).to.equal(spec.keys);
      expect(calls.get(spec.command), spec.command).to.have.length(spec.keys + spec.args);
    }
  });

  it("a script built from parts runs each part's file unchanged, as a function named after it", () => {
    const built = names.filter((n) => (SCRIPTS[n] as ScriptSpec).parts !== undefined);
    expect(built).to.deep.equal(['workerPop']);
    for (const name of built) {
      const source = scriptSource(name);
      for (const part of (SCRIPTS[name] as ScriptSpec).parts!) {
        const text = readFileSync(join(LUA_DIR, SCRIPTS[part as ScriptName].file), 'utf8');
        expect(source).to.include(`local function ${part}(KEYS, ARGV)\n${text}end\n`);
        expect((SCRIPTS[part as ScriptName] as ScriptSpec).partOf ?? name).to.equal(name);
      }
      expect(source.endsWith(readFileSync(join(LUA_DIR, SCRIPTS[name].file), 'utf8'))).to.equal(true);
    }
  });

  it('the worker pop sends the reservations to remove after its declared ARGV', async () => {
    const { client, calls } = recordingClient();
    defineScripts(client);
    const k = { queue: 'q', delayed: 'd', reserved: 'r', notify: 'n', invalid: 'i', failed: 'f' };
    await scripts.workerPop(client, k, { now: 100, limit: -1, reserved: false }, 130, 25, ['a', 'b', 'c']);
    expect(calls.get('larqWorkerPop')).to.have.length(SCRIPTS.workerPop.keys + SCRIPTS.workerPop.args + 3);
  });
});
