// The file store (Laravel 10.10.1+'s FileFailedJobProvider). Laravel 8.83 has no such
// store, so the file is checked against the spec's format and PHP's own json_decode /
// json_encode(JSON_PRETTY_PRINT) (what that store reads and writes with), and against real Laravel
// 12.67's and 13.26's FileFailedJobProvider on the same file.
import { expect } from 'chai';
import { randomUUID } from 'crypto';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'fs';
import { dirname, join } from 'path';
import { FakeClock } from '../../../lib/clock';
import { InvalidOptionError, UnreadableFailedJobFileError } from '../../../lib/errors';
import { FileFailedJobProvider } from '../../../lib/failed/FileFailedJobProvider';
import { LARAVEL_LINES, laravelHarness, requirePhp, runPhp } from '../../support/php';
import { sameBytes, simplePayload, trickyPayload } from './support/payloads';
import { useTempDir } from '../../support/useTempDir';

const T0 = 1_700_000_000; // 2023-11-14 22:13:20 UTC

describe('failed jobs: file store', () => {
  const temp = useTempDir('failed-file');
  let dir: string;
  let path: string;
  let clock: FakeClock;
  let store: FileFailedJobProvider;

  beforeEach(() => {
    dir = temp.path;
    path = join(dir, 'cache', 'failed-jobs.json');
    clock = new FakeClock(T0 * 1000);
    store = new FileFailedJobProvider(path, { clock });
  });

  const read = (): Record<string, unknown>[] => JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>[];

  it("writes the spec's record fields, in order, newest first", async () => {
    const a = randomUUID();
    const b = randomUUID();
    expect(await store.log('redis', 'default', simplePayload(a), 'E1')).to.equal(a);
    clock.advance(5);
    await store.log('redis', 'emails', simplePayload(b), 'E2');
    const records = read();
    expect(records.map((r) => r.id)).to.deep.equal([b, a]);
    expect(Object.keys(records[0])).to.deep.equal([
      'id',
      'connection',
      'queue',
      'payload',
      'exception',
      'failed_at',
      'failed_at_timestamp',
    ]);
    expect(records[0]).to.deep.include({
      connection: 'redis',
      queue: 'emails',
      exception: 'E2',
      failed_at: '2023-11-14 22:13:25',
      failed_at_timestamp: T0 + 5,
    });
  });

  it('keeps the payload byte for byte and escapes like json_encode (\\/ and \\uXXXX)', async () => {
    const payload = trickyPayload();
    const id = await store.log('redis', 'default', payload, 'Exception: é in /a.js:1');
    expect(sameBytes((await store.find(id))!.payload, payload)).to.equal(true);
    const text = readFileSync(path, 'utf8');
    expect(/[^\x00-\x7f]/.test(text), 'file is pure ASCII').to.equal(false);
    expect(text)
      .to.include(String.raw`\\\/path\\\/to`)
      .and.include(String.raw`Exception: \u00e9 in \/a.js:1`);
    expect(text.startsWith('[\n    {\n        "id": ')).to.equal(true);
  });

  it('keeps only the last `limit` records', async () => {
    const small = new FileFailedJobProvider(path, { clock, limit: 3 });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(await small.log('redis', 'default', simplePayload(), `E${i}`));
    expect(await small.ids()).to.deep.equal(ids.slice(2).reverse());
  });

  it('reads, filters and forgets', async () => {
    const a = await store.log('redis', 'one', simplePayload(), 'E');
    const b = await store.log('redis', 'two', simplePayload(), 'E');
    expect(await store.ids()).to.deep.equal([b, a]);
    expect(await store.ids('one')).to.deep.equal([a]);
    expect((await store.all()).map((r) => r.id)).to.deep.equal([b, a]);
    expect((await store.find(a))!.failed_at_timestamp).to.equal(T0);
    expect(await store.find('nope')).to.equal(null);
    expect(await store.forget(a)).to.equal(true);
    expect(await store.forget(a)).to.equal(false);
    expect(await store.ids()).to.deep.equal([b]);
  });

  it('flushes all or by age, and prunes with <= on failed_at_timestamp', async () => {
    const a = await store.log('redis', 'default', simplePayload(), 'E');
    clock.advance(3600);
    const b = await store.log('redis', 'default', simplePayload(), 'E');
    clock.advance(3600);
    const c = await store.log('redis', 'default', simplePayload(), 'E');
    expect(await store.prune(new Date(T0 * 1000))).to.equal(1); // a failed exactly then: pruned
    expect(await store.ids()).to.deep.equal([c, b]);
    expect(await store.flush(1)).to.equal(1); // b is exactly one hour old
    expect(await store.ids()).to.deep.equal([c]);
    expect(await store.flush()).to.equal(1);
    expect(await store.all()).to.deep.equal([]);
    expect(await store.find(a)).to.equal(null);
  });

  it('writes failed_at in the app timezone', async () => {
    const tz = new FileFailedJobProvider(path, { clock, timezone: 'America/New_York' });
    const id = await tz.log('redis', 'default', simplePayload(), 'E');
    expect((await tz.find(id))!.failed_at).to.equal('2023-11-14 17:13:20');
    expect((await tz.find(id))!.failed_at_timestamp).to.equal(T0);
  });

  it('treats a missing or empty file as empty, like Laravel, and refuses a broken one instead of emptying it', async () => {
    expect(await store.all()).to.deep.equal([]);
    for (const content of ['', '  \n']) {
      writeFileSync(join(dir, 'empty.json'), content);
      expect(await new FileFailedJobProvider(join(dir, 'empty.json')).all(), JSON.stringify(content)).to.deep.equal([]);
    }
    for (const content of ['{not json', '{"id":1}', '[{"id":"a"}, "b"]']) {
      writeFileSync(join(dir, 'broken.json'), content);
      const broken = new FileFailedJobProvider(join(dir, 'broken.json'));
      const refused = await broken.log('redis', 'default', simplePayload(), 'E').then(
        () => null,
        (e: unknown) => e,
      );
      expect(refused, JSON.stringify(content)).to.be.instanceOf(UnreadableFailedJobFileError);
      expect(readFileSync(join(dir, 'broken.json'), 'utf8')).to.equal(content);
    }
  });

  it('keeps keys it does not know when rewriting', async () => {
    const id = randomUUID();
    const file = join(dir, 'f.json');
    writeFileSync(
      file,
      '[{"id":"' +
        id +
        '","connection":"redis","queue":"q","payload":"{}","exception":"E","failed_at":"2020-01-01 00:00:00","failed_at_timestamp":1577836800,"custom":{"2":"b","1":"a"}}]',
    );
    const other = new FileFailedJobProvider(file, { clock });
    await other.log('redis', 'default', simplePayload(), 'E');
    const text = readFileSync(file, 'utf8');
    expect(text).to.include('"custom": {\n            "2": "b",\n            "1": "a"\n        }');
    expect((await other.find(id))!.queue).to.equal('q');
  });

  it('serialises concurrent writers in one process and leaves no temp files', async () => {
    const second = new FileFailedJobProvider(path, { clock });
    const ids = await Promise.all(
      Array.from({ length: 40 }, (_, i) => (i % 2 ? store : second).log('redis', 'default', simplePayload(), `E${i}`)),
    );
    await Promise.all([store.forget(ids[0]), second.forget(ids[1])]);
    const left = await store.ids();
    expect(left).to.have.length(38);
    expect(new Set(left)).to.deep.equal(new Set(ids.slice(2)));
    // Beside the file: only the cache store's lock folder, with no lock left behind in it.
    expect(readdirSync(join(dir, 'cache')).sort()).to.deep.equal(['data', 'failed-jobs.json']);
    expect(
      readdirSync(join(dir, 'cache', 'data'), { recursive: true }).filter((f) => String(f).length === 40 + 6),
    ).to.deep.equal([]);
  });

  // Issue 21 finding 8: a payload without a uuid was refused, which dropped the job; it now gets one.
  it('records a payload without a uuid under a generated uuid, and refuses bad options', async () => {
    const id = await store.log('redis', 'default', '{"job":"x"}', 'E');
    expect(id).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect((await store.find(id))!.payload).to.equal('{"job":"x"}');
    expect(await store.forget(id)).to.equal(true);
    expect(() => new FileFailedJobProvider(path, { limit: -1 })).to.throw(InvalidOptionError);
    expect(() => new FileFailedJobProvider(path, { timezone: 'Mars/Base' })).to.throw(InvalidOptionError);
    expect(() => new FileFailedJobProvider('')).to.throw(InvalidOptionError);
  });

  describe('read by PHP', () => {
    before(function () {
      requirePhp(this);
    });

    it('is exactly what json_encode(JSON_PRETTY_PRINT) writes, and PHP reads every payload back unchanged', async () => {
      const payloads = [trickyPayload(), simplePayload(), trickyPayload()];
      for (const p of payloads) {
        await store.log('redis', 'default', p, new Error('boom é /x'));
        clock.advance(1);
      }
      const res = await runPhp('failed-provider.php', ['pretty', JSON.stringify({ path })]);
      expect(res.code, res.stderr).to.equal(0);
      const out = JSON.parse(res.stdout) as { text: string; records: { payload: string; id: string }[] };
      expect(out.text).to.equal(readFileSync(path, 'utf8'));
      const back = out.records.map((r) => r.payload).reverse();
      back.forEach((p, i) => expect(sameBytes(p, payloads[i]), `payload ${i}`).to.equal(true));
    });
  });

  // Laravel's own FileFailedJobProvider exists from 10.10.1: the 12.67 and 13.26 lines here.
  for (const line of LARAVEL_LINES.filter((l) => l !== '8.83')) {
    describe(`shared with Laravel ${line}'s FileFailedJobProvider`, () => {
      const laravel = laravelHarness(line);

      before(function () {
        requirePhp(this, line);
      });

      async function php<T>(command: string, arg?: object, env: Record<string, string> = {}): Promise<T> {
        const args = arg === undefined ? [command] : [command, JSON.stringify(arg)];
        const res = await laravel.runPhp('failed-provider.php', args, {
          LARQ_FAILED_DRIVER: 'file',
          LARQ_FAILED_FILE: path,
          ...env,
        });
        if (res.code !== 0) throw new Error(`failed-provider.php ${command} exited ${res.code}:\n${res.stderr}`);
        return JSON.parse(res.stdout) as T;
      }

      interface LaravelRecord {
        id: string;
        connection: string;
        queue: string;
        payload: string;
        exception: string;
        failed_at: string;
        failed_at_timestamp: number;
      }

      it('Laravel reads, finds and forgets what larq wrote; larq sees the forget', async () => {
        const ids = [randomUUID(), randomUUID(), randomUUID()];
        const payloads = ids.map((id) => trickyPayload(id));
        for (const [i, p] of payloads.entries()) {
          await store.log('redis', i === 1 ? 'emails' : 'default', p, new Error(`boom ${i} é`));
          clock.advance(1);
        }
        const mine = await store.all();
        const theirs = await php<LaravelRecord[]>('all');
        expect(theirs.map((r) => r.id)).to.deep.equal([...ids].reverse());
        for (const [i, r] of theirs.entries()) {
          expect(r).to.include({
            connection: mine[i].connection,
            queue: mine[i].queue,
            exception: mine[i].exception,
            failed_at: mine[i].failed_at,
          });
          expect(sameBytes(r.payload, payloads[2 - i]), `payload ${i}`).to.equal(true);
        }
        expect(theirs.map((r) => r.failed_at_timestamp)).to.deep.equal([T0 + 2, T0 + 1, T0]);
        expect((await php<LaravelRecord>('find', { id: ids[1] })).queue).to.equal('emails');

        expect(await php<boolean>('forget', { id: ids[1] })).to.equal(true);
        expect(await store.find(ids[1])).to.equal(null);
        expect((await store.all()).map((r) => r.id)).to.deep.equal([ids[2], ids[0]]);
      });

      it('larq reads what Laravel wrote, and both keep the file newest first', async () => {
        // Laravel's store writes into an existing folder (an app's storage/); it does not make one.
        mkdirSync(dirname(path), { recursive: true });
        const first = randomUUID();
        const logged = await php<{ id: string; exception: string }>(
          'log',
          {
            connection: 'redis',
            queue: 'default',
            payload_b64: Buffer.from(trickyPayload(first)).toString('base64'),
            message: 'from PHP é',
          },
          { LARQ_NOW: String(T0) },
        );
        expect(logged.id).to.equal(first);
        const record = (await store.find(first))!;
        expect(record).to.include({ id: first, connection: 'redis', queue: 'default', exception: logged.exception });
        expect(sameBytes(record.payload, trickyPayload(first)), 'payload bytes').to.equal(true);

        clock.advance(5);
        const second = randomUUID();
        await store.log('redis', 'default', simplePayload(second), 'E');
        expect((await php<LaravelRecord[]>('all')).map((r) => r.id)).to.deep.equal([second, first]);
        // Laravel's prune drops records failed before the cutoff, whoever wrote them.
        expect(await php<number>('prune', { before: T0 + 1 })).to.equal(1);
        expect((await store.all()).map((r) => r.id)).to.deep.equal([second]);
      });
    });
  }
});
