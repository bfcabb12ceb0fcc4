// parsePayload: tolerant reading of every payload shape, precise errors; and the rewrite helpers.
import { spawnSync } from 'child_process';
import { expect } from 'chai';
import { InvalidPayloadError } from '../../../lib/errors';
import { parsePayload, retryPayload, rewritePayload, withAttempts } from '../../../lib/payload/Payload';
import { loadFixtures, pushedPayloads } from '../../support/fixtures';

const EIGHT_X =
  '{"uuid":"u-1","displayName":"App\\\\Jobs\\\\A","job":"Illuminate\\\\Queue\\\\CallQueuedHandler@call","maxTries":3,"maxExceptions":null,' +
  '"failOnTimeout":false,"backoff":"5,10","timeout":null,"retryUntil":null,"data":{"commandName":"App\\\\Jobs\\\\A","command":"O:10:\\"App\\\\Jobs\\\\A\\":0:{}"},"id":"i-1","attempts":0}';

describe('parsePayload', () => {
  it('reads an 8.x object payload, missing 12.x/13.x fields as null or false', () => {
    const p = parsePayload(EIGHT_X);
    expect(p).to.include({
      uuid: 'u-1',
      displayName: 'App\\Jobs\\A',
      name: 'App\\Jobs\\A',
      isObjectJob: true,
      maxTries: 3,
      backoff: '5,10',
    });
    expect(p).to.include({
      commandName: 'App\\Jobs\\A',
      command: 'O:10:"App\\Jobs\\A":0:{}',
      batchId: null,
      createdAt: null,
      delay: null,
    });
    expect(p).to.include({
      deleteWhenMissingModels: false,
      failOnTimeout: false,
      id: 'i-1',
      attempts: 0,
      raw: EIGHT_X,
    });
    expect(Object.isFrozen(p)).to.equal(true);
  });

  it('reads a minimal hand-made payload', () => {
    const p = parsePayload('{"job":"custom","data":{"x":1},"attempts":0,"id":"fixed-id"}');
    expect(p).to.include({
      job: 'custom',
      name: 'custom',
      isObjectJob: false,
      uuid: null,
      displayName: null,
      maxTries: null,
      commandName: null,
      id: 'fixed-id',
    });
    expect(p.data).to.deep.equal({ x: 1 });
  });

  it("accepts Horizon's extra keys, [] or {} as empty data, and keeps unknown keys in decoded", () => {
    const p = parsePayload(
      '{"uuid":"u","job":"H@handle","data":{},"type":"job","tags":{},"silenced":false,"pushedAt":"1795276770.1234","id":"u","attempts":2}',
    );
    expect(p.data).to.deep.equal({});
    expect(p.decoded).to.include({ type: 'job', silenced: false, pushedAt: '1795276770.1234' });
    expect(p.attempts).to.equal(2);
    expect(parsePayload('{"job":"H","data":[],"attempts":0}').data).to.deep.equal([]);
  });

  it('reads integers PHP would accept: 64-bit ones and numeric strings; other types as null', () => {
    const p = parsePayload(
      '{"job":"J","attempts":0,"maxTries":"5","timeout":9007199254740993,"retryUntil":[1],"failOnTimeout":1,"backoff":3,"id":7}',
    );
    expect(p).to.include({
      maxTries: 5,
      timeout: 9007199254740992,
      retryUntil: null,
      failOnTimeout: true,
      backoff: '3',
      id: '7',
    });
  });

  it('uses job as name when displayName is empty', () => {
    expect(parsePayload('{"job":"J@x","displayName":"","attempts":0}').name).to.equal('J@x');
  });

  const bad: [string, string, RegExp][] = [
    ['text that is not JSON', '{"job":"J",', /^Payload is not valid JSON: Invalid JSON at character 11/],
    ['a JSON list', '["job"]', /^Payload must be a JSON object, got an array$/],
    ['a JSON string', '"job"', /^Payload must be a JSON object, got string "job"$/],
    ['JSON null', 'null', /^Payload must be a JSON object, got null$/],
    ['a payload without job', '{"attempts":0}', /^Payload has no "job" field$/],
    ['a payload with a numeric job', '{"job":5,"attempts":0}', /^Payload "job" must be a string, got number 5$/],
    ['a payload without attempts', '{"job":"J"}', /^Payload has no "attempts" field$/],
    // A numeric string counts, as PHP's `+ 1` counts it (issue 21): only a string PHP cannot add is refused.
    [
      'a payload with non-numeric string attempts',
      '{"job":"J","attempts":"many"}',
      /^Payload "attempts" must be a number, got string "many"$/,
    ],
    [
      'a payload with empty string attempts',
      '{"job":"J","attempts":""}',
      /^Payload "attempts" must be a number, got string ""$/,
    ],
    ['a payload with null attempts', '{"job":"J","attempts":null}', /^Payload "attempts" must be a number, got null$/],
  ];
  // Laravel's RedisJob::attempts() is `$decoded['attempts'] + 1` under PHP 8: "0" + 1 is 1, " 2 " + 1 is 3,
  // "1e1" + 1 is 11, "3 tries" + 1 is 4 (with a warning); Laravel's worker runs such jobs.
  for (const [text, attempts] of [
    ['0', 0],
    [' 2 ', 2],
    ['1e1', 10],
    ['3 tries', 3],
    ['-1', -1],
  ] as const) {
    it(`reads the string attempts ${JSON.stringify(text)} as PHP does: ${attempts}`, () => {
      expect(parsePayload(`{"job":"J","attempts":${JSON.stringify(text)}}`).attempts).to.equal(attempts);
    });
  }
  it('reads the other numeric fields as PHP compares them: numeric strings with spaces or exponents count', () => {
    const p = parsePayload(
      '{"job":"J","attempts":0,"maxTries":" 3","timeout":"1e2","retryUntil":"1700000000 ","maxExceptions":"x"}',
    );
    expect([p.maxTries, p.timeout, p.retryUntil, p.maxExceptions]).to.deep.equal([3, 100, 1700000000, null]);
  });

  for (const [what, raw, message] of bad) {
    it(`rejects ${what}, saying so`, () => {
      let error: unknown;
      try {
        parsePayload(raw);
      } catch (e) {
        error = e;
      }
      expect(error).to.be.instanceOf(InvalidPayloadError);
      expect((error as InvalidPayloadError).message).to.match(message);
      expect((error as InvalidPayloadError).payload).to.equal(raw);
    });
  }
});

describe('payload rewrites', () => {
  const raw =
    '{"uuid":"u","job":"J","data":{"url":"https:\\/\\/x.test","empty":[],"e":{},"big":12345678901234567},"ctx":"é","id":"i","attempts":3}';

  it('withAttempts changes only attempts, keeping every other key, its place and its text', () => {
    expect(withAttempts(raw, 0)).to.equal(raw.replace('"attempts":3', '"attempts":0'));
  });

  it('rewritePayload replaces keys in place and appends new ones', () => {
    expect(rewritePayload('{"a":1,"b":2}', { a: 3, c: 4 })).to.equal('{"a":3,"b":2,"c":4}');
    expect(rewritePayload('{"a":1}', Object.fromEntries([['__proto__', 2]]))).to.equal('{"a":1,"__proto__":2}');
  });

  it('retryPayload resets attempts, sets retryUntil when given, and encodes like plain json_encode', () => {
    // json_decode(..., true) made {} an empty PHP array, which json_encode writes as []
    expect(retryPayload(raw)).to.equal(
      raw.replace('"attempts":3', '"attempts":0').replace('é', '\\u00e9').replace('"e":{}', '"e":[]'),
    );
    expect(retryPayload('{"job":"J","retryUntil":1}', { retryUntil: 2 })).to.equal('{"job":"J","retryUntil":2}');
    expect(retryPayload('{"job":"J"}')).to.equal('{"job":"J"}'); // no attempts field: none is added
  });

  it('rejects what is not a payload object', () => {
    expect(() => withAttempts('[1]', 0)).to.throw(InvalidPayloadError, /must be a JSON object/);
  });

  describe("retryPayload equals what PHP's queue:retry pushes for every recorded payload", function () {
    before(function () {
      if (spawnSync('php', ['-v']).status === 0) return;
      if (process.env.CI === 'true') throw new Error('php is required in CI');
      this.skip();
    });

    it('json_encode(json_decode(payload) with attempts = 0)', () => {
      const payloads = loadFixtures().flatMap((f) => pushedPayloads(f));
      const list = payloads.map((p) => `base64_decode('${Buffer.from(p).toString('base64')}')`).join(',');
      const script = `<?php
        $out = [];
        foreach ([${list}] as $raw) {
          $p = json_decode($raw, true);
          if (isset($p['attempts'])) $p['attempts'] = 0;
          $out[] = base64_encode(json_encode($p));
        }
        echo json_encode($out);`;
      const r = spawnSync('php', [], { input: script, encoding: 'utf8' });
      const php = (JSON.parse(r.stdout) as string[]).map((b) => Buffer.from(b, 'base64').toString('utf8'));
      payloads.forEach((p, i) => expect(retryPayload(p)).to.equal(php[i]));
    });
  });
});
