// Dispatching job objects built in Node, and reading them back as a worker would: the envelope and command
// Laravel would write, tuning read from the object as PHP reads the live job, and typed errors for bad input
// that leave the job reserved rather than removing it.
import { expect } from 'chai';
import { FakeClock } from '../../lib/clock';
import { DecryptError, InvalidPayloadError, MissingEncrypterError, UnserializeError } from '../../lib/errors';
import { laravelJobTraits, php, phpClass } from '../../lib/php/builder';
import { Encrypter } from '../../lib/php/Encrypter';
import { serialize } from '../../lib/php/serialize';
import { PhpObject } from '../../lib/php/values';
import { RedisQueue } from '../../lib/RedisQueue';
import type { LaravelLine } from '../../lib/LaravelLine';
import { FIXTURE_APP_KEY, FIXTURE_NOW, loadFixtures, pushedPayloads } from '../support/fixtures';
import { useRedisQueue } from '../support/useRedisQueue';

const LINES: Record<string, LaravelLine> = { '8.x': 8, '12.x': 12, '13.x': 13 };

// The PHP class behind the fixtures' object-tuned.json, declared once per line as a user would.
function tunedJob(line: LaravelLine) {
  return phpClass(
    'App\\Jobs\\TunedJob',
    {
      tries: { visibility: 'public', default: 5 },
      timeout: { visibility: 'public', default: 30 },
      maxExceptions: { visibility: 'public', default: 2 },
      failOnTimeout: { visibility: 'public', default: true },
      backoff: { visibility: 'public', default: [1, 5, 10] },
      payload: 'public',
    },
    { traits: laravelJobTraits(line), serializesModels: true },
  );
}

function basicJob(line: LaravelLine) {
  return phpClass(
    'App\\Jobs\\SendWelcomeEmail',
    { to: 'public', subject: 'protected', meta: 'private' },
    { traits: laravelJobTraits(line), serializesModels: true },
  );
}

describe('dispatching job objects from Node', function () {
  const redis = useRedisQueue();
  let queue: RedisQueue;
  let clock: FakeClock;

  function makeQueue(line: LaravelLine, extra: { encrypter?: Encrypter } = {}): RedisQueue {
    clock = new FakeClock(FIXTURE_NOW * 1000);
    queue = redis.open({ laravel: line, retryAfter: 90, clock, ...extra });
    return queue;
  }

  // uuid and id are random by definition; everything else must be Laravel's bytes.
  function withFixtureIds(ours: string, theirs: string): string {
    const a = JSON.parse(ours) as { uuid: string; id: string };
    const b = JSON.parse(theirs) as { uuid: string; id: string };
    return ours.replace(a.uuid, b.uuid).replace(a.id, b.id);
  }

  for (const f of loadFixtures().filter((x) => x.name === 'object-tuned' || x.name === 'object-basic')) {
    it(`push() writes ${f.version} ${f.name} exactly as Laravel did (uuid and id aside)`, async function () {
      const line = LINES[f.version];
      const q = makeQueue(line);
      const command =
        f.name === 'object-tuned'
          ? tunedJob(line).make({ payload: { x: 1 } })
          : basicJob(line).make({
              to: 'ada@example.com',
              subject: 'Welcome / “hi” \\ é',
              meta: { plan: 'pro', seats: 3 },
            });
      const job =
        f.name === 'object-tuned'
          ? { command, displayName: 'Tuned job (custom display name)', retryUntil: 1900000000 }
          : command;
      await q.push(job);
      const [ours] = await redis.client.lrange(`${redis.prefix}queues:default`, 0, -1);
      const [theirs] = pushedPayloads(f);
      expect(withFixtureIds(ours, theirs)).to.equal(theirs);
    });
  }

  it('reads tuning from declared defaults even when serialization left them out (line 13)', async function () {
    const q = makeQueue(13);
    const command = tunedJob(13).make({ payload: [] });
    expect(serialize(command)).to.not.include('tries'); // SerializesModels 9.4+ omits defaults
    await q.push(command);
    const popped = await q.pop();
    expect(popped!.maxTries()).to.equal(5);
    expect(popped!.backoff()).to.equal('1,5,10');
    expect(popped!.timeout()).to.equal(30);
    expect(popped!.shouldFailOnTimeout()).to.equal(true);
  });

  it('later() scores the job now + delay and records the delay in the payload', async function () {
    const q = makeQueue(13);
    const id = await q.later(120, basicJob(13).make({ to: 'a', subject: 'b', meta: null }), 'emails');
    const [member, score] = await redis.client.zrange(`${redis.prefix}queues:emails:delayed`, 0, '-1', 'WITHSCORES');
    expect(Number(score)).to.equal(FIXTURE_NOW + 120);
    expect(JSON.parse(member)).to.include({ id, delay: 120 });
    expect(await q.pop('emails')).to.equal(null);
    clock.advance(120);
    const job = await q.pop('emails');
    expect(job!.getJobId()).to.equal(id);
  });

  it('bulk() sends a job whose delay property is set to the delayed set, the rest to the list', async function () {
    const q = makeQueue(12);
    const cls = basicJob(12);
    const delayed = cls.make({ to: 'later', subject: 's', meta: null });
    const withDelay = new PhpObject(delayed.className, [
      ...delayed.properties,
      { name: 'delay', visibility: 'public', value: 30n },
    ]);
    const ids = await q.bulk([
      cls.make({ to: 'now', subject: 's', meta: null }),
      withDelay,
      { job: 'App\\Handlers\\RawHandler@handle', data: { n: 1 } },
    ]);
    expect(ids).to.have.length(3);
    expect(await q.pendingSize()).to.equal(2);
    const delayedJobs = await q.delayedJobs();
    expect(delayedJobs.map((j) => [JSON.parse(j.payload).id, j.availableAt])).to.deep.equal([
      [ids[1], FIXTURE_NOW + 30],
    ]);
  });

  it('bulk() of non-ASCII jobs lands each payload as push() would write it, byte for byte', async function () {
    const q = makeQueue(13);
    const cls = basicJob(13);
    // 'é' x 5 is 10 bytes, '😀' x 30 is 120: byte counts with more digits than the text's length
    const jobs = ['é'.repeat(5), '€'.repeat(40), '😀'.repeat(30), 'plain'].map((to) =>
      cls.make({ to, subject: 'ÿ'.repeat(300), meta: null }),
    );
    await q.bulk(jobs);
    const bulked = await redis.client.lrangeBuffer(`${redis.prefix}queues:default`, 0, -1);
    await redis.client.del(`${redis.prefix}queues:default`);
    for (const job of jobs) await q.push(job);
    const pushed = await redis.client.lrangeBuffer(`${redis.prefix}queues:default`, 0, -1);
    // uuid and id are drawn per job: everything else must be the same bytes
    const blank = (b: Buffer) => b.toString('utf8').replace(/"(uuid|id)":"[^"]+"/g, '"$1":""');
    expect(bulked.map(blank)).to.deep.equal(pushed.map(blank));
    expect(bulked.map((b) => JSON.parse(b.toString('utf8')).data.command)).to.deep.equal(
      pushed.map((b) => JSON.parse(b.toString('utf8')).data.command),
    );
  });

  it('bulk() with a job that cannot be built sends none of them and names the problem', async function () {
    const q = makeQueue(13);
    const cls = basicJob(13);
    const good = cls.make({ to: 'a', subject: 's', meta: null });
    const error = await q.bulk([good, good, { command: good, encrypt: true }, good]).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(Error).with.property('message').that.includes('encrypt');
    expect(await redis.client.exists(`${redis.prefix}queues:default`, `${redis.prefix}queues:default:notify`)).to.equal(
      0,
    );
    // and the queue's connection was left usable (not inside a MULTI that never ends)
    await q.bulk([good]);
    await q.push(good);
    expect(await redis.client.llen(`${redis.prefix}queues:default`)).to.equal(2);
  });

  it('encrypts a ShouldBeEncrypted command and decrypts it on pop', async function () {
    const q = makeQueue(8, { encrypter: new Encrypter(FIXTURE_APP_KEY) });
    const command = basicJob(8).make({
      to: 'secret@example.com',
      subject: 'card',
      meta: { pan: '4242 4242 4242 4242' },
    });
    await q.push({ command, encrypt: true });
    const [raw] = await redis.client.lrange(`${redis.prefix}queues:default`, 0, -1);
    expect(raw).to.not.include('4242');
    const job = await q.pop();
    expect(serialize(job!.command())).to.equal(serialize(command));
  });

  it('refuses to encrypt without an encrypter, naming the option', async function () {
    const q = makeQueue(13);
    try {
      await q.push({ command: basicJob(13).make({ to: 'a', subject: 'b', meta: null }), encrypt: true });
      expect.fail('push should have thrown');
    } catch (e) {
      expect((e as Error).message).to.match(/^encrypt: .*no encrypter/);
    }
    expect(await q.size()).to.equal(0);
  });

  describe('bad input: a typed error, and the job stays reserved', function () {
    async function popRaw(payload: string, extra: { encrypter?: Encrypter } = {}) {
      const q = makeQueue(13, extra);
      await q.pushRaw(payload);
      const job = await q.pop();
      expect(job).to.not.equal(null);
      return job!;
    }

    it('a payload without `job`', async function () {
      const job = await popRaw('{"uuid":"u","data":{},"attempts":0}');
      expect(() => job.payload()).to.throw(InvalidPayloadError, 'no "job" field');
      expect(job.attempts()).to.equal(1);
      expect(await queue.reservedSize()).to.equal(1);
    });

    it('a data.command that does not unserialize', async function () {
      const job = await popRaw(
        '{"uuid":"u","job":"Illuminate\\\\Queue\\\\CallQueuedHandler@call","data":{"commandName":"App\\\\Jobs\\\\X","command":"O:9:\\"App\\\\Jobs\\\\X\\":1:{s:1:\\"a\\";i:1"},"attempts":0}',
      );
      expect(() => job.command()).to.throw(UnserializeError);
      expect(await queue.reservedSize()).to.equal(1);
    });

    it('an encrypted command with a wrong MAC', async function () {
      const good = new Encrypter(FIXTURE_APP_KEY).encrypt('O:8:"stdClass":0:{}');
      const envelope = JSON.parse(Buffer.from(good, 'base64').toString()) as Record<string, string>;
      envelope.mac = envelope.mac.replace(/^./, (c) => (c === '0' ? '1' : '0'));
      const tampered = Buffer.from(JSON.stringify(envelope)).toString('base64');
      const payload = JSON.stringify({
        uuid: 'u',
        job: 'Illuminate\\Queue\\CallQueuedHandler@call',
        data: { commandName: 'X', command: tampered },
        attempts: 0,
      });
      const job = await popRaw(payload, { encrypter: new Encrypter(FIXTURE_APP_KEY) });
      expect(() => job.command()).to.throw(DecryptError, 'The MAC is invalid.');
      expect(await queue.reservedSize()).to.equal(1);
    });

    it('an encrypted command on a queue without APP_KEY', async function () {
      const encrypted = new Encrypter(FIXTURE_APP_KEY).encrypt('O:8:"stdClass":0:{}');
      const payload = JSON.stringify({
        uuid: 'u',
        job: 'Illuminate\\Queue\\CallQueuedHandler@call',
        data: { commandName: 'App\\Jobs\\Secret', command: encrypted },
        attempts: 0,
      });
      const job = await popRaw(payload);
      expect(() => job.command()).to.throw(MissingEncrypterError, 'App\\Jobs\\Secret');
      expect(await queue.reservedSize()).to.equal(1);
    });
  });

  it('php.model builds the ModelIdentifier Laravel 8 writes', function () {
    const m = php.model('App\\Models\\User', 7, { connection: 'mysql' }, 8);
    expect(serialize(m)).to.equal(
      'O:45:"Illuminate\\Contracts\\Database\\ModelIdentifier":4:{s:5:"class";s:15:"App\\Models\\User";s:2:"id";i:7;s:9:"relations";a:0:{}s:10:"connection";s:5:"mysql";}',
    );
  });
});
