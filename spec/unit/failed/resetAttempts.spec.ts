// resetAttemptsInBytes: what `larq retry` pushes for a payload whose bytes are not valid UTF-8: the
// top-level attempts set to 0 and every other byte unchanged.
import { expect } from 'chai';
import { InvalidPayloadError } from '../../../lib/errors';
import { resetAttemptsInBytes } from '../../../lib/failed/resetAttempts';

const BAD = Buffer.from([0xff, 0xc3, 0x28]);
const bytes = (...parts: (string | Buffer)[]) =>
  Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'latin1') : p)));

describe('resetAttemptsInBytes', () => {
  it('rewrites only the top-level attempts value, keeping invalid UTF-8 and nested attempts as they are', () => {
    const before = bytes('{"data":{"attempts":7,"s":"', BAD, '","a":[1,{"x":"}]"}]},"attempts":3,"id":"i"}');
    const after = bytes('{"data":{"attempts":7,"s":"', BAD, '","a":[1,{"x":"}]"}]},"attempts":0,"id":"i"}');
    expect(resetAttemptsInBytes(before).equals(after)).to.equal(true);
  });

  it('takes whitespace, escaped quotes in strings, a string attempts and an escaped key as PHP reads them', () => {
    const before = bytes('{ "s" : "a\\"b', BAD, '" ,\n "att\\u0065mpts" : "12" }');
    expect(resetAttemptsInBytes(before).equals(bytes('{ "s" : "a\\"b', BAD, '" ,\n "att\\u0065mpts" : 0 }'))).to.equal(
      true,
    );
  });

  it('rewrites the last of duplicate keys (the one json_decode keeps), and leaves a null or missing attempts (isset is false)', () => {
    expect(
      resetAttemptsInBytes(bytes('{"attempts":1,"x":"', BAD, '","attempts":2}')).equals(
        bytes('{"attempts":1,"x":"', BAD, '","attempts":0}'),
      ),
    ).to.equal(true);
    for (const same of [bytes('{"attempts":null,"x":"', BAD, '"}'), bytes('{"x":"', BAD, '"}'), bytes('{}')]) {
      expect(resetAttemptsInBytes(same).equals(same)).to.equal(true);
    }
  });

  it('refuses what is not a JSON object, naming the problem', () => {
    for (const bad of [bytes('[1]'), bytes('{"a":'), bytes('{"a":"', BAD), bytes('{"a" 1}')]) {
      expect(() => resetAttemptsInBytes(bad), bad.toString('latin1')).to.throw(InvalidPayloadError);
    }
  });
});
