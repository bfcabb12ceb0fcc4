// The README as a user follows it: every fenced code block is compiled and run against the packed
// package and the test redis-server, or written as the file it says it is, or explicitly marked as not
// run, with a reason. No block goes unaccounted for. A block's marker is the HTML comment on the line
// before it:
//   <!-- readme-spec: file NAME -->        the block is the file NAME of the quick start's app directory
//   <!-- readme-spec: run ... -->          sh: run in the app directory; must exit 0
//   <!-- readme-spec: run worker ... -->   sh: a `larq work` command: started once the quick start's jobs
//                                          are dispatched, sent SIGTERM once they are done, must stop with 0
//   <!-- readme-spec: not run: REASON -->  any language: not run, for the reason given
// A ts block has no marker: it is compiled (strict, an ES module) and run with REDIS_URL set. Every larq
// command line in any block, run or not, must parse with the CLI's own argument parser. The environment
// table must equal CLI_ENVIRONMENT.
import { expect } from 'chai';
import { spawn } from 'child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { parse } from '../../lib/cli/args';
import { CLI_ENVIRONMENT } from '../../lib/cli/environment';
import { COMMANDS } from '../../lib/cli/main';
import { laravelJobTraits, phpClass, RedisQueue } from '../../lib/index';
import { compileProject, createProject, packLarq, ROOT, run } from '../support/packedLarq';
import { randomPrefix, requireRedis } from '../support/redis';

interface Block {
  /** 1-based line of the opening fence. */
  line: number;
  lang: string;
  code: string;
  /** The readme-spec marker's text, or null. */
  marker: string | null;
}

const README = readFileSync(join(ROOT, 'README.md'), 'utf8');

function blocks(markdown: string): Block[] {
  const lines = markdown.split('\n');
  const found: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\S*)\s*$/.exec(lines[i]);
    if (!open) continue;
    const end = lines.indexOf('```', i + 1);
    if (end < 0) throw new Error(`README.md:${i + 1}: a code block is never closed`);
    const marker = /^<!-- readme-spec: (.+?) -->$/.exec(lines[i - 1] ?? '');
    found.push({
      line: i + 1,
      lang: open[1],
      code: lines.slice(i + 1, end).join('\n') + '\n',
      marker: marker ? marker[1] : null,
    });
    i = end;
  }
  return found;
}

type Treatment =
  | { kind: 'ts' }
  | { kind: 'file'; name: string }
  | { kind: 'run' }
  | { kind: 'worker' }
  | { kind: 'not run'; reason: string };

function treatment(block: Block): Treatment {
  const where = `README.md:${block.line} (${block.lang || 'no language'})`;
  const m = block.marker;
  if (m === null) {
    if (block.lang === 'ts') return { kind: 'ts' };
    throw new Error(`${where}: a ${block.lang || 'plain'} block needs a readme-spec marker saying how it is checked`);
  }
  if (block.lang === 'ts') throw new Error(`${where}: ts blocks are compiled and run; take the marker off`);
  let match: RegExpExecArray | null;
  if ((match = /^file (\S+)$/.exec(m))) return { kind: 'file', name: match[1] };
  if ((match = /^not run: (.{10,})$/.exec(m))) return { kind: 'not run', reason: match[1] };
  if (block.lang === 'sh' && /^run worker\b/.test(m)) return { kind: 'worker' };
  if (block.lang === 'sh' && /^run\b/.test(m)) return { kind: 'run' };
  throw new Error(`${where}: unknown readme-spec marker "${m}"`);
}

/** The arguments of each larq command line in `code` (after `larq`, `npx larq` or a path ending in /larq). */
function larqCommandLines(code: string): string[][] {
  const lines: string[][] = [];
  for (const line of code.split('\n')) {
    const m = /(?:^|npx |\/)larq ([^#]*)/.exec(line);
    if (m) lines.push(m[1].trim().split(/\s+/));
  }
  return lines;
}

function runShell(
  command: string,
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<{ status: number | null; out: string; err: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-c', command], { cwd, env: { ...process.env, ...env } });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, out, err }));
  });
}

describe('README.md', function () {
  const all = blocks(README);

  it('is under 300 lines', function () {
    expect(README.trimEnd().split('\n').length).to.be.below(300);
  });

  it('says for every code block how it is checked', function () {
    expect(all.length).to.be.greaterThan(5);
    for (const block of all) treatment(block);
  });

  it('has larq command lines the CLI parses, in every block, run or not', function () {
    const lines = all.flatMap((b) => larqCommandLines(b.code));
    expect(lines.length).to.be.greaterThan(3);
    for (const [name, ...args] of lines) {
      const command = COMMANDS.find((c) => c.name === name);
      expect(command, `larq ${name}`).to.not.equal(undefined);
      expect(() => parse(command!, args), `larq ${name} ${args.join(' ')}`).to.not.throw();
    }
  });

  it("lists exactly CLI_ENVIRONMENT in the environment table it links to (docs/environment.md), in the code's order and words", function () {
    expect(README).to.include('[docs/environment.md](docs/environment.md)');
    const table = readFileSync(join(ROOT, 'docs', 'environment.md'), 'utf8')
      .split('\n')
      .filter((l) => l.startsWith('| `'));
    const rows = table.map((l) => l.split(' | ').map((c) => c.replace(/^\| |\s\|$/g, '').trim()));
    expect(rows).to.deep.equal(CLI_ENVIRONMENT.map((v) => [`\`${v.name}\``, v.meaning, v.default]));
  });

  describe('run against the packed package', function () {
    this.timeout(600_000);
    let port: number;
    let work: string;
    let app: string;
    let env: NodeJS.ProcessEnv;
    let prefix: string;

    before(async function () {
      port = await requireRedis(this);
      work = mkdtempSync(join(tmpdir(), 'larq-readme-'));
      const { tarball } = packLarq(work);
      app = join(work, 'app');
      createProject(app, tarball, { type: 'module' });
      prefix = randomPrefix();
      // The commands find Redis and the prefix through the process's variables, which win over .env.
      env = { REDIS_URL: `redis://127.0.0.1:${port}`, REDIS_PREFIX: prefix };
    });

    after(function () {
      if (work) rmSync(work, { recursive: true, force: true });
    });

    it('compiles every ts block strictly against the package and runs each', function () {
      const ts = all.filter((b) => treatment(b).kind === 'ts');
      expect(ts.length).to.be.greaterThan(1);
      ts.forEach((b) => writeFileSync(join(app, 'src', `block-${b.line}.ts`), b.code));
      compileProject(app);
      for (const b of ts) {
        try {
          run('node', [join('out', `block-${b.line}.js`)], app, env);
        } catch (e) {
          throw new Error(`README.md:${b.line}: ${(e as Error).message}`);
        }
      }
    });

    it('runs the quick start: .env, the handlers file, larq work, larq failed', async function () {
      const steps = all.filter((b) => ['file', 'run', 'worker'].includes(treatment(b).kind));
      expect(steps.map((b) => treatment(b).kind)).to.deep.equal(['file', 'file', 'worker', 'run']);
      for (const b of steps) {
        const t = treatment(b);
        if (t.kind === 'file') writeFileSync(join(app, t.name), b.code);
      }
      // What the quick start has PHP dispatch: SendInvoice::dispatch(1042) and ChargeCard::dispatch(7), each ->onQueue('node').
      const traits = { traits: laravelJobTraits(12) };
      const queue = new RedisQueue({ connection: { port }, prefix, laravel: 12 });
      try {
        await queue.push(
          phpClass('App\\Jobs\\SendInvoice', { invoice: 'public' }, traits).make({ invoice: 1042, queue: 'node' }),
          'node',
        );
        await queue.push(
          phpClass('App\\Jobs\\ChargeCard', { card: 'public' }, traits).make({ card: 7, queue: 'node' }),
          'node',
        );
      } finally {
        await queue.close();
      }

      // A process group of its own, signalled as a whole, as systemd and Supervisor (stopasgroup) do: npx
      // does not pass SIGTERM on to the larq process it starts.
      const worker = spawn('sh', ['-c', `exec ${steps[2].code.trim()}`], {
        cwd: app,
        env: { ...process.env, ...env },
        detached: true,
      });
      let out = '';
      let err = '';
      worker.stdout.on('data', (d: Buffer) => (out += d.toString()));
      worker.stderr.on('data', (d: Buffer) => (err += d.toString()));
      const exited = new Promise<void>((resolve) => worker.on('close', () => resolve()));
      try {
        const deadline = Date.now() + 120_000;
        while (!(/SendInvoice \.+ .*DONE/.test(out) && /ChargeCard \.+ .*FAIL/.test(out))) {
          if (Date.now() > deadline || worker.exitCode !== null)
            throw new Error(`larq work did not run both jobs:\n${out}\n${err}`);
          await new Promise((r) => setTimeout(r, 100));
        }
        process.kill(-worker.pid!, 'SIGTERM');
        const stopped = await Promise.race([
          exited.then(() => true),
          new Promise<boolean>((r) => setTimeout(() => r(false), 60_000)),
        ]);
        expect(stopped, `larq work did not stop on SIGTERM:\n${out}\n${err}`).to.equal(true);
      } finally {
        try {
          process.kill(-worker.pid!, 'SIGKILL');
        } catch {
          // the group is gone: every process of it exited
        }
      }
      expect(out, err).to.match(/Worker stopped: interrupted \(status 0\)/);
      expect(out).to.include('sending invoice 1042, attempt 1');
      expect(err).to.include('card declined');

      const failed = await runShell(steps[3].code, app, env);
      expect(failed.status, failed.err).to.equal(0);
      expect(failed.out).to.include('App\\Jobs\\ChargeCard');
      expect(failed.out).to.not.include('App\\Jobs\\SendInvoice');
    });
  });
});
