// Encrypter: Laravel's wire format, checked against the recorded encrypted jobs and, when `php` is
// installed, against Debian's Laravel 8.83 Illuminate\Encryption\Encrypter in both directions.
import { spawnSync } from 'child_process';
import { existsSync } from 'fs';
import { expect } from 'chai';
import { DecryptError, EncryptError } from '../../../lib/errors';
import { Encrypter } from '../../../lib/php/Encrypter';
import { FIXTURE_APP_KEY, loadFixtures, pushedPayloads } from '../../support/fixtures';

const KEY32 = FIXTURE_APP_KEY;
const KEY16 = `base64:${Buffer.alloc(16, 'q').toString('base64')}`;
const CASES: [string, string][] = [
  ['aes-256-cbc', KEY32],
  ['aes-128-cbc', KEY16],
  ['aes-256-gcm', KEY32],
  ['aes-128-gcm', KEY16],
];
const TEXTS = ['O:18:"App\\Jobs\\SecretJob":1:{s:4:"card";s:19:"4242 4242 4242 4242";}', 'héllo / wörld 😀', ''];

const envelope = (payload: string) =>
  JSON.parse(Buffer.from(payload, 'base64').toString('utf8')) as Record<string, string>;
const reseal = (payload: string, change: Record<string, unknown>) =>
  Buffer.from(JSON.stringify({ ...envelope(payload), ...change })).toString('base64');

/** The error a call throws, for checking its class and exact message. */
function thrown(fn: () => unknown): Error {
  try {
    fn();
  } catch (e) {
    return e as Error;
  }
  throw new Error('expected an error');
}

describe('Encrypter', () => {
  it('decrypts every recorded encrypted job (8.x, 12.x, 13.x) to the serialized command', () => {
    const e = new Encrypter(FIXTURE_APP_KEY);
    const fixtures = loadFixtures().filter((f) => f.name === 'object-encrypted');
    expect(fixtures.map((f) => f.version)).to.have.members(['8.x', '12.x', '13.x']);
    for (const f of fixtures) {
      const command = (JSON.parse(pushedPayloads(f)[0]) as { data: { command: string } }).data.command;
      const plain = e.decrypt(command);
      expect(plain, f.version).to.match(/^O:18:"App\\Jobs\\SecretJob":\d+:\{s:4:"card";s:19:"4242 4242 4242 4242";/);
      // the plaintext is the command serialized a second time, as a PHP string
      expect(e.decrypt(command, false)).to.equal(`s:${Buffer.byteLength(plain)}:"${plain}";`);
    }
  });

  for (const [cipher, key] of CASES) {
    it(`${cipher}: round-trips, with Laravel's envelope`, () => {
      const e = new Encrypter(key, cipher.toUpperCase());
      for (const text of TEXTS) {
        expect(e.decrypt(e.encrypt(text))).to.equal(text);
        expect(e.decryptString(e.encryptString(text))).to.equal(text);
      }
      const payload = e.encrypt('x');
      const json = Buffer.from(payload, 'base64').toString('utf8');
      expect(Object.keys(JSON.parse(json) as object)).to.deep.equal(['iv', 'value', 'mac', 'tag']);
      expect(json).not.to.contain('\\/');
      const env = envelope(payload);
      const gcm = cipher.endsWith('gcm');
      expect(Buffer.from(env.iv, 'base64')).to.have.length(gcm ? 12 : 16);
      expect(env.mac).to.match(gcm ? /^$/ : /^[0-9a-f]{64}$/);
      expect(env.tag === '' ? 0 : Buffer.from(env.tag, 'base64').length).to.equal(gcm ? 16 : 0);
    });
  }

  it('serializes with the byte length, and decryptBuffer keeps bytes that are not UTF-8', () => {
    const e = new Encrypter(KEY32);
    expect(e.decryptString(e.encrypt('é'))).to.equal('s:2:"é";');
    const bytes = Buffer.from([0xff, 0x00, 0x22, 0x3b]);
    expect(e.decryptBuffer(e.encrypt(bytes)).equals(bytes)).to.equal(true);
  });

  it("rejects a tampered MAC, value or IV with Laravel's messages", () => {
    const cbc = new Encrypter(KEY32);
    const payload = cbc.encrypt('secret');
    const mac = envelope(payload).mac;
    const flipped = (mac[0] === 'a' ? 'b' : 'a') + mac.slice(1);
    expect(thrown(() => cbc.decrypt(reseal(payload, { mac: flipped }))))
      .to.be.instanceOf(DecryptError)
      .with.property('message', 'The MAC is invalid.');
    expect(
      thrown(() => cbc.decrypt(reseal(payload, { value: 'AAAA' + envelope(payload).value.slice(4) }))).message,
    ).to.equal('The MAC is invalid.');
    expect(thrown(() => cbc.decrypt(reseal(payload, { iv: 'AAAA' }))).message).to.equal('The payload is invalid.');
    expect(thrown(() => cbc.decrypt(reseal(payload, { tag: 'AAAAAAAAAAAAAAAAAAAAAA==' }))).message).to.equal(
      'Unable to use tag because the cipher algorithm does not support AEAD.',
    );

    const gcm = new Encrypter(KEY32, 'aes-256-gcm');
    const sealed = gcm.encrypt('secret');
    expect(thrown(() => gcm.decrypt(reseal(sealed, { tag: 'AAAAAAAAAAAAAAAAAAAAAA==' }))).message).to.equal(
      'Could not decrypt the data.',
    );
    expect(thrown(() => gcm.decrypt(reseal(sealed, { tag: '' }))).message).to.equal('Could not decrypt the data.');
  });

  it('rejects what is not an envelope with "The payload is invalid."', () => {
    const e = new Encrypter(KEY32);
    for (const junk of [
      '',
      'not base64 at all',
      Buffer.from('[1,2]').toString('base64'),
      Buffer.from('{"iv":"x","value":"y"}').toString('base64'),
    ]) {
      const error = thrown(() => e.decrypt(junk));
      expect(error, junk).to.be.instanceOf(DecryptError);
      expect(error.message).to.equal('The payload is invalid.');
    }
  });

  it('decrypts with a previous key, and encrypts with the current one', () => {
    const oldKey = Encrypter.generateKey();
    const old = new Encrypter(oldKey);
    const rotated = new Encrypter(KEY32, 'aes-256-cbc', [oldKey]);
    expect(rotated.decrypt(old.encrypt('then'))).to.equal('then');
    expect(new Encrypter(KEY32).decrypt(rotated.encrypt('now'))).to.equal('now');
    expect(thrown(() => new Encrypter(KEY32).decrypt(old.encrypt('then'))).message).to.equal('The MAC is invalid.');

    const oldGcm = new Encrypter(oldKey, 'aes-256-gcm');
    expect(new Encrypter(KEY32, 'aes-256-gcm', [oldKey]).decrypt(oldGcm.encrypt('then'))).to.equal('then');
    expect(thrown(() => new Encrypter(KEY32, 'aes-256-gcm').decrypt(oldGcm.encrypt('x'))).message).to.equal(
      'Could not decrypt the data.',
    );
  });

  it('reads keys in APP_KEY form and refuses wrong lengths and unknown ciphers, naming them', () => {
    expect(Encrypter.parseKey('base64:a2tr').toString()).to.equal('kkk');
    expect(Encrypter.parseKey('raw-key').toString()).to.equal('raw-key');
    expect(new Encrypter('k'.repeat(32)).decrypt(new Encrypter(KEY32).encrypt('same key'))).to.equal('same key');
    expect(thrown(() => new Encrypter(KEY16)))
      .to.be.instanceOf(EncryptError)
      .with.property('message', 'aes-256-cbc needs a 32-byte key, but the key has 16 bytes');
    expect(thrown(() => new Encrypter(KEY32, 'aes-128-gcm')).message).to.equal(
      'aes-128-gcm needs a 16-byte key, but the key has 32 bytes',
    );
    expect(thrown(() => new Encrypter(KEY32, 'aes-256-cbc', ['short'])).message).to.match(
      /previous key #1 has 5 bytes/,
    );
    expect(thrown(() => new Encrypter(KEY32, 'des-cbc')))
      .to.be.instanceOf(EncryptError)
      .with.property('message')
      .that.match(/Unsupported cipher "des-cbc"/);
  });
});

const LARAVEL_ENCRYPTION = '/usr/share/php/Illuminate/Encryption/autoload.php';

describe('Encrypter against PHP Laravel 8.83', function () {
  before(function () {
    if (spawnSync('php', ['-v']).status === 0 && existsSync(LARAVEL_ENCRYPTION)) return;
    if (process.env.CI === 'true')
      throw new Error(`php and ${LARAVEL_ENCRYPTION} (php-laravel-framework) are required in CI`);
    this.skip();
  });

  /** Run PHP with Laravel's Encrypter loaded; `body` sets $out, which comes back JSON-decoded. */
  function php(body: string): unknown {
    const script = `<?php require '${LARAVEL_ENCRYPTION}'; use Illuminate\\Encryption\\Encrypter; ${body} echo json_encode($out);`;
    const r = spawnSync('php', ['-d', 'display_errors=stderr'], { input: script, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`php failed: ${r.stderr}`);
    return JSON.parse(r.stdout);
  }
  const b64 = (s: string) => `base64_decode('${Buffer.from(s, 'utf8').toString('base64')}')`;
  const phpKey = (key: string) => `base64_decode('${Encrypter.parseKey(key).toString('base64')}')`;

  it('PHP decrypts what larq encrypts (decrypt and decryptString, all four ciphers)', () => {
    const calls: string[] = [];
    const expected: string[] = [];
    for (const [cipher, key] of CASES) {
      const e = new Encrypter(key, cipher);
      for (const text of TEXTS) {
        calls.push(`base64_encode((new Encrypter(${phpKey(key)}, '${cipher}'))->decrypt('${e.encrypt(text)}'))`);
        calls.push(
          `base64_encode((new Encrypter(${phpKey(key)}, '${cipher}'))->decryptString('${e.encryptString(text)}'))`,
        );
        expected.push(text, text);
      }
    }
    const out = php(`$out = [${calls.join(',\n')}];`) as string[];
    expect(out.map((s) => Buffer.from(s, 'base64').toString('utf8'))).to.deep.equal(expected);
  });

  it('larq decrypts what PHP encrypts', () => {
    const calls: string[] = [];
    for (const [cipher, key] of CASES) {
      for (const text of TEXTS) {
        calls.push(`(new Encrypter(${phpKey(key)}, '${cipher}'))->encrypt(${b64(text)})`);
        calls.push(`(new Encrypter(${phpKey(key)}, '${cipher}'))->encryptString(${b64(text)})`);
      }
    }
    const out = php(`$out = [${calls.join(',\n')}];`) as string[];
    let i = 0;
    for (const [cipher, key] of CASES) {
      const e = new Encrypter(key, cipher);
      for (const text of TEXTS) {
        expect(e.decrypt(out[i++]), `${cipher} decrypt`).to.equal(text);
        expect(e.decryptString(out[i++]), `${cipher} decryptString`).to.equal(text);
      }
    }
  });

  it('PHP reports a tampered MAC the same way', () => {
    const payload = new Encrypter(KEY32).encrypt('x');
    const mac = envelope(payload).mac;
    const tampered = reseal(payload, { mac: (mac[0] === 'a' ? 'b' : 'a') + mac.slice(1) });
    const out =
      php(`try { (new Encrypter(${phpKey(KEY32)}, 'aes-256-cbc'))->decrypt('${tampered}'); $out = 'no error'; }
      catch (\\Illuminate\\Contracts\\Encryption\\DecryptException $e) { $out = $e->getMessage(); }`);
    expect(out).to.equal('The MAC is invalid.');
    expect(thrown(() => new Encrypter(KEY32).decrypt(tampered)).message).to.equal(out);
  });
});
