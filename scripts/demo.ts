// `npm run demo`: a job's journey through Laravel's Redis keys, with Node and (where PHP is installed)
// Laravel 8.83 on the same Redis. Uses REDIS_URL when given, else starts a redis-server of its own.
//   REDIS_URL=redis://127.0.0.1:6379 npm run demo
import { spawn, spawnSync, type ChildProcess } from 'child_process';
import { existsSync, readFileSync, rmSync } from 'fs';
import { createServer } from 'net';
import { tmpdir } from 'os';
import { join } from 'path';
import Redis from 'ioredis';
import { createWorker, Encrypter, Handlers, laravelJobTraits, phpClass, RedisQueue, toPlain } from '../lib';

const PREFIX = 'larq_demo_';
const APP_KEY = 'base64:a2tra2tra2tra2tra2tra2tra2tra2tra2tra2tra2s=';
const PHP_DIR = join(__dirname, '..', 'compat-fixtures', 'php');

// The PHP job class, declared once in Node: visibilities must match PHP's or PHP drops the property.
const SendWelcomeEmail = phpClass(
  'App\\Jobs\\SendWelcomeEmail',
  { to: 'public', subject: 'protected', meta: 'private' },
  { traits: laravelJobTraits(8), serializesModels: true },
);

async function main(): Promise<void> {
  const { url, stop } = await redis();
  const client = new Redis(url);
  const queue = new RedisQueue({
    connection: url,
    prefix: PREFIX,
    laravel: 8,
    retryAfter: 90,
    encrypter: new Encrypter(APP_KEY),
  });
  await client.del(...(await client.keys(`${PREFIX}*`)), 'larq_demo_none');
  try {
    step('1. Node dispatches App\\Jobs\\SendWelcomeEmail (a PHP class declared in Node)');
    await queue.push(
      SendWelcomeEmail.make({ to: 'ada@example.com', subject: 'Welcome', meta: { plan: 'pro', seats: 3 } }),
    );
    await show(client);

    step("2. larq reserves it with Laravel's pop script: attempts 0 -> 1, reserved until now + 90 s");
    let job = (await queue.pop())!;
    console.log(`   attempt ${job.attempts()}, command as handlers see it:`, toPlain(job.command()));
    await show(client);

    step('3. The handler throws: released with a 1 s backoff, into :delayed');
    await job.release(1);
    await show(client);

    step('4. Once due, the next pop migrates it back and reserves attempt 2; it succeeds and is deleted');
    await sleep(1100);
    job = (await queue.pop())!;
    console.log(`   attempt ${job.attempts()}`);
    await job.delete();
    await show(client);

    step('5. A string job and a job delayed 2 s');
    await queue.push({ job: 'App\\Handlers\\RawHandler@handle', data: { order: 17, big: 12345678901234567n } });
    await queue.later(2, SendWelcomeEmail.make({ to: 'grace@example.com', subject: 'Later', meta: null }));
    await show(client);
    const stringJob = (await queue.pop())!;
    console.log('   string job data, big integer exact:', stringJob.payload().data);
    await stringJob.delete();

    step("6. A larq worker runs jobs with queue:work's rules: one succeeds, one fails twice (tries 2, backoff 1 s)");
    await queue.clear();
    await queue.push(SendWelcomeEmail.make({ to: 'ok@example.com', subject: 'Hi', meta: null }));
    await queue.push({
      command: SendWelcomeEmail.make({ to: 'bounce@example.com', subject: 'Hi', meta: null }),
      maxTries: 2,
      backoff: 1,
    });
    const handlers = new Handlers().object('App\\Jobs\\SendWelcomeEmail', (job) => {
      if (job.to === 'bounce@example.com') throw new Error('mailbox full');
    });
    const worker = createWorker(queue, handlers, { sleep: 0.2, stopWhenEmpty: false, maxJobs: 3, memory: 1024 });
    const to = (job: { command(): Parameters<typeof toPlain>[0] }) => (toPlain(job.command()) as { to: string }).to;
    worker.on(
      'JobProcessed',
      (e) => !e.job.hasFailed() && console.log(`   processed ${to(e.job)} (attempt ${e.job.attempts()})`),
    );
    worker.on('JobReleasedAfterException', (e) =>
      console.log(`   released ${to(e.job)} for ${e.backoff} s after: ${e.job.resolveName()} threw`),
    );
    worker.on('JobFailed', (e) => console.log(`   failed ${to(e.job)} for good: ${e.exception.message}`));
    const result = await worker.daemon('default');
    console.log(`   worker stopped: ${result.reason}, status ${result.status}`);
    await show(client);

    if (!phpAvailable()) {
      step('PHP with Laravel is not installed: skipping the Laravel half (bash scripts/setup installs it)');
    } else {
      await queue.clear();
      step('7. Laravel (PHP) dispatches a job; larq pops and decodes it');
      const sent = runPhp('dispatch.php', ['object-enums'], url);
      console.log(`   Laravel pushed job ${JSON.parse(sent).ids[0]}`);
      job = (await queue.pop())!;
      console.log('   larq sees:', toPlain(job.command()));
      await job.delete();

      step("8. larq dispatches an encrypted job; Laravel's real worker runs it");
      await queue.push({
        command: SendWelcomeEmail.make({ to: 'edsger@example.com', subject: 'Secret', meta: { card: '4242' } }),
        encrypt: true,
      });
      await show(client);
      const record = runPhp('worker.php', ['--stop-when-empty', '--sleep=0.1'], url, true);
      console.log(
        '   Laravel handle() received:',
        record
          .trim()
          .split('\n')
          .map((l) => summary(JSON.parse(l).description))
          .join('\n'),
      );
      await show(client);
    }
    step('Done.');
  } finally {
    await client.del(...(await client.keys(`${PREFIX}*`)), 'larq_demo_none');
    client.disconnect();
    await queue.close();
    stop();
  }
}

function step(title: string): void {
  console.log(`\n${title}`);
}

async function show(client: Redis): Promise<void> {
  const keys = (await client.keys(`${PREFIX}*`)).sort();
  if (keys.length === 0) console.log('   (no keys left: the job is gone from Redis)');
  for (const key of keys) {
    const type = await client.type(key);
    if (type === 'list') {
      const items = await client.lrange(key, 0, -1);
      console.log(`   ${key.padEnd(40)} list ${items.length}  ${clip(items[0])}`);
    } else {
      const [member, score] = await client.zrange(key, 0, '0', 'WITHSCORES');
      const inSeconds = Number(score) - Math.floor(Date.now() / 1000);
      console.log(`   ${key.padEnd(40)} zset ${await client.zcard(key)}  due in ${inSeconds}s  ${clip(member)}`);
    }
  }
}

function clip(s: string): string {
  return s.length > 70 ? `${s.slice(0, 67)}...` : s;
}

// A description from the PHP harness, shortened to "name: value" lines for the reader.
function summary(d: { props: { name: string; visibility: string; value: unknown }[] }): string {
  return d.props
    .filter((p) => ['to', 'subject', 'meta'].includes(p.name))
    .map((p) => `     ${p.visibility} ${p.name}: ${JSON.stringify(p.value)}`)
    .join('\n');
}

function phpAvailable(): boolean {
  return (
    spawnSync('php', [
      '-r',
      'exit(is_file("/usr/share/php/Illuminate/autoload.php") && extension_loaded("redis") ? 0 : 1);',
    ]).status === 0
  );
}

function runPhp(script: string, args: string[], url: string, record = false): string {
  const { port } = new URL(url);
  const recordFile = join(tmpdir(), `larq-demo-${process.pid}.jsonl`);
  const env = {
    ...process.env,
    LARQ_REDIS_PORT: port || '6379',
    LARQ_PREFIX: PREFIX,
    LARQ_APP_KEY: APP_KEY,
    LARQ_RECORD: recordFile,
  };
  const run = spawnSync('php', [join(PHP_DIR, script), ...args], { env, encoding: 'utf8', timeout: 60000 });
  if (run.status !== 0) throw new Error(`php ${script} failed: ${run.stderr}`);
  if (!record) return run.stdout;
  const text = existsSync(recordFile) ? readFileSync(recordFile, 'utf8') : '';
  rmSync(recordFile, { force: true });
  return text;
}

async function redis(): Promise<{ url: string; stop: () => void }> {
  if (process.env.REDIS_URL) {
    console.log(`Redis: ${process.env.REDIS_URL} (from REDIS_URL); keys under "${PREFIX}"`);
    return { url: process.env.REDIS_URL, stop: () => undefined };
  }
  const port = await new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolve(p));
    });
  });
  const proc: ChildProcess = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
  proc.on('error', () => {
    console.error('redis-server is not installed: run `bash scripts/setup`, or set REDIS_URL');
    process.exit(1);
  });
  const url = `redis://127.0.0.1:${port}`;
  for (let i = 0; i < 100; i++) {
    const probe = new Redis(url, { lazyConnect: true, retryStrategy: () => null });
    probe.on('error', () => undefined);
    const ok = await probe.connect().then(
      () => probe.ping(),
      () => null,
    );
    probe.disconnect();
    if (ok) break;
    await sleep(50);
  }
  console.log(`Redis: a redis-server of our own on port ${port}; keys under "${PREFIX}"`);
  return { url, stop: () => proc.kill() };
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
