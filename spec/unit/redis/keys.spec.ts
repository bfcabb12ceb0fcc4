// Key names a PHP peer would use for the same queue.
import { expect } from 'chai';
import { hasHashTag, queueKey } from '../../../lib/redis/keys';

describe('queue keys', () => {
  // Laravel `Connection::hasHashTag`, 13.x: the first `{`, the first `}` after it, at least one character between.
  const tags: [string, boolean][] = [
    ['{mail}:high', true],
    ['mail', false],
    ['{}', false],
    ['{}x}', false],
    ['{}{a}', false],
    ['a{b}c', true],
    ['}a{', false],
    ['{a', false],
  ];
  for (const [name, tagged] of tags) {
    it(`${JSON.stringify(name)} ${tagged ? 'has' : 'has no'} hash tag, as Laravel 13's Connection::hasHashTag says`, () => {
      expect(hasHashTag(name)).to.equal(tagged);
    });
  }

  it('a 13.x cluster wraps a name without a hash tag of its own, and only then', () => {
    expect(queueKey('default', 13, true)).to.equal('queues:{default}');
    expect(queueKey('{mail}:high', 13, true)).to.equal('queues:{mail}:high');
    expect(queueKey('{}x}', 13, true)).to.equal('queues:{{}x}}');
    expect(queueKey('default', 12, true)).to.equal('queues:default');
    expect(queueKey('default', 13, false)).to.equal('queues:default');
  });
});
