// How scripts.ts names a script to Redis and reads the pop scripts' replies.
import { expect } from 'chai';
import { isNoScript, popReplies, popReply, scriptSha } from '../../../lib/redis/scripts';

describe('scripts', () => {
  it('names a script by its SHA1 in lower-case hex, as Redis files it (FIPS 180 test vectors)', () => {
    expect(scriptSha('')).to.equal('da39a3ee5e6b4b0d3255bfef95601890afd80709');
    expect(scriptSha('abc')).to.equal('a9993e364706816aba3e25717850c26c9cd0d89d');
  });

  it('tells a NOSCRIPT refusal from any other error', () => {
    expect(isNoScript(new Error('NOSCRIPT No matching script. Please use EVAL.'))).to.equal(true);
    expect(isNoScript(new Error('WRONGTYPE Operation against a key holding the wrong kind of value'))).to.equal(false);
    expect(isNoScript('NOSCRIPT')).to.equal(false);
  });

  it("reads the single pop's reply: Laravel's {job, reserved}, {false, false} when empty, {job, false, reason} when quarantined", () => {
    expect(popReply(['{"attempts":0}', '{"attempts":1}'])).to.deep.equal({
      kind: 'reserved',
      job: '{"attempts":0}',
      reserved: '{"attempts":1}',
    });
    expect(popReply([null, null])).to.deep.equal({ kind: 'empty' });
    expect(popReply(['oops', null, 'Expected value but found invalid token'])).to.deep.equal({
      kind: 'invalid',
      job: 'oops',
      reason: 'Expected value but found invalid token',
    });
  });

  it("reads the batch pop's flat triples in list order", () => {
    expect(popReplies([])).to.deep.equal([]);
    expect(popReplies(['a', 'A', null, 'bad', null, 'why'])).to.deep.equal([
      { kind: 'reserved', job: 'a', reserved: 'A' },
      { kind: 'invalid', job: 'bad', reason: 'why' },
    ]);
  });
});
