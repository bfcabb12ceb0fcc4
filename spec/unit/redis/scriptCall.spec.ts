// ScriptCall must put on the wire exactly the EVALSHA ioredis writes for the same script, keys and
// arguments: push and later go through it, and Redis must see what it saw through defineCommand.
import { expect } from 'chai';
import { Command } from 'ioredis';
import { isNoScript, ScriptCall, ScriptFrame, scriptSha } from '../../../lib/redis/ScriptCall';
import { scriptSource } from '../../../lib/redis/scripts';

// What ioredis itself writes for EVALSHA sha numkeys ...keys ...args.
function ioredisBytes(sha: string, keys: string[], args: (string | number)[]): Buffer {
  const writable = new Command('evalsha', [sha, keys.length, ...keys, ...args]).toWritable({});
  return typeof writable === 'string' ? Buffer.from(writable, 'utf8') : writable;
}

function callBytes(frame: ScriptFrame, args: (string | number)[]): Buffer {
  return Buffer.from(new ScriptCall(frame, args, 'a test run').toWritable() as string, 'utf8');
}

describe('ScriptCall', () => {
  const sha = scriptSha(scriptSource('push'));
  const keys = ['laravel_database_queues:default', 'laravel_database_queues:default:notify'];

  it('names a script by its SHA1 in lower-case hex, as Redis files it (FIPS 180 test vectors)', () => {
    expect(scriptSha('')).to.equal('da39a3ee5e6b4b0d3255bfef95601890afd80709');
    expect(scriptSha('abc')).to.equal('a9993e364706816aba3e25717850c26c9cd0d89d');
  });

  const payloads: [string, string][] = [
    ['an empty payload', ''],
    ['a payload', JSON.stringify({ uuid: 'u1', displayName: 'App\\Jobs\\A', data: { command: 'O:8:"App\\A":0:{}' } })],
    ['2-byte characters', 'é'.repeat(50)],
    ['surrogate pairs', '😀'.repeat(30)],
    ['a lone surrogate', 'a\ud800b'],
    ['CR, LF and NUL', 'a\r\nb\0c'],
  ];
  for (const [what, payload] of payloads) {
    it(`writes the bytes ioredis writes for push with ${what}`, () => {
      const frame = new ScriptFrame(sha, keys, 1);
      expect(callBytes(frame, [payload])).to.deep.equal(ioredisBytes(sha, keys, [payload]));
    });
  }

  it('writes numbers as ioredis does (later: a score, then the payload) and keys that are not ASCII', () => {
    const frame = new ScriptFrame(sha, ['präfix_queues:ünïcode:delayed'], 2);
    for (const score of [0, 1795598252, -5]) {
      expect(callBytes(frame, [score, 'p'])).to.deep.equal(ioredisBytes(sha, ['präfix_queues:ünïcode:delayed'], [score, 'p']));
    }
  });

  it('shares one frame between calls: each call writes only its own arguments after it', () => {
    const frame = new ScriptFrame(sha, keys, 1);
    expect(callBytes(frame, ['first'])).to.deep.equal(ioredisBytes(sha, keys, ['first']));
    expect(callBytes(frame, ['second'])).to.deep.equal(ioredisBytes(sha, keys, ['second']));
  });

  it('carries the script and keys as its ioredis arguments, which a cluster routes by and an error names', () => {
    const call = new ScriptCall(new ScriptFrame(sha, keys, 1), ['payload'], 'a test run');
    expect(call.name).to.equal('evalsha');
    expect(call.args).to.deep.equal([sha, '2', ...keys]);
  });

  it('tells a NOSCRIPT refusal from any other error', () => {
    expect(isNoScript(new Error('NOSCRIPT No matching script. Please use EVAL.'))).to.equal(true);
    expect(isNoScript(new Error('WRONGTYPE Operation against a key holding the wrong kind of value'))).to.equal(false);
    expect(isNoScript('NOSCRIPT')).to.equal(false);
  });
});
